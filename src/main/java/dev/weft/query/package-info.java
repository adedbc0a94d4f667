/**
 * Weft's query language with MongoDB semantics, as pure functions over Jackson trees: no I/O.
 *
 * <p>Everything a client sends is compiled once ({@link dev.weft.query.Filter#parse},
 * {@link dev.weft.query.Update#parse}, {@link dev.weft.query.Projection#parse},
 * {@link dev.weft.query.Sort#parse}); every mistake is a {@code WeftException} 400 naming the
 * operator or path, raised while compiling where possible. The compiled forms are immutable and
 * safe to share between threads.
 *
 * <p>The in-memory evaluator ({@link dev.weft.query.Filter#matches}) is the reference for the
 * whole product. The storage planner may only narrow what it reads with
 * {@link dev.weft.query.Filter#keyRanges} over keys from
 * {@link dev.weft.query.KeyEncoding#indexKeys}, and must re-check {@code matches}. Three things
 * keep the two in agreement: one traversal of dotted paths ({@code Path}) serves matching, index
 * keys and sorting; one order ({@link dev.weft.query.Values#compare}) is mirrored byte for byte
 * by {@link dev.weft.query.KeyEncoding}; and property tests check, over random documents and
 * filters, that no matching document's key falls outside the ranges.
 */
package dev.weft.query;
