package dev.weft.query;

/**
 * An inclusive range of encoded index keys, compared as unsigned bytes ({@code memcmp}, which is
 * how SQLite and PostgreSQL compare BLOB/bytea). A key k is in the range when
 * {@code low <= k <= high} byte-wise; {@code high} may be a prefix bound (see
 * {@link KeyEncoding#prefixUpperBound}).
 */
public record KeyRange(byte[] low, byte[] high) {}
