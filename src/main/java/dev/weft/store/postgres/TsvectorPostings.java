package dev.weft.store.postgres;

import dev.weft.store.sql.SqlConnection;
import dev.weft.store.sql.TextPostings;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A text index on PostgreSQL: {@code <table>(id, terms tsvector)} with a GIN index. The lexemes
 * are Weft's terms as they are ({@code array_to_tsvector}, no text search configuration parses or
 * stems them again); a lookup is a {@code tsquery} of them ORed, read from the GIN index.
 * PostgreSQL bounds a lexeme (2 KB) and a tsvector (1 MB): a longer term is stored and searched
 * as its digest, and a document whose terms pass {@link #MAX_TERM_BYTES} in all is stored under
 * the one lexeme {@link #OVERFLOW}, which every lookup includes (the filter then decides). Its
 * statements join the write's pipeline ({@link PgPipeline}): no round trip of their own.
 */
final class TsvectorPostings implements TextPostings {
    /** Longest term kept as itself (PostgreSQL refuses lexemes of 2 KB). */
    private static final int MAX_LEXEME_BYTES = 1024;
    /** Most bytes of distinct terms one document's tsvector holds (PostgreSQL's bound is 1 MB). */
    private static final int MAX_TERM_BYTES = 512 * 1024;
    /** Not a term: '#' separates words. */
    private static final String OVERFLOW = "#overflow";

    private final PostgresDialect dialect;

    TsvectorPostings(PostgresDialect dialect) {
        this.dialect = dialect;
    }

    @Override
    public List<String> create(String table) {
        return List.of("CREATE TABLE " + table + "(id bytea PRIMARY KEY, terms tsvector NOT NULL)",
                "CREATE INDEX " + table + "_g ON " + table + " USING gin(terms)");
    }

    @Override
    public List<String> drop(String table) {
        return List.of("DROP TABLE IF EXISTS " + table);
    }

    @Override
    public void add(SqlConnection sql, String table, byte[] id, String terms) throws SQLException {
        Set<String> lexemes = new LinkedHashSet<>();
        long bytes = 0;
        for (String term : terms.isEmpty() ? new String[0] : terms.split(" ")) {
            String lexeme = lexeme(term);
            if (lexemes.add(lexeme)) {
                bytes += lexeme.getBytes(StandardCharsets.UTF_8).length;
            }
        }
        if (bytes > MAX_TERM_BYTES) {
            lexemes = Set.of(OVERFLOW);
        }
        java.sql.Array array = sql.connection().createArrayOf("text", lexemes.toArray());
        PgPipeline.run(sql, "INSERT INTO " + table + "(id, terms) VALUES (?, array_to_tsvector(?::text[]))", (ps, p) -> {
            ps.setBytes(p, id);
            ps.setArray(p + 1, array);
            return p + 2;
        });
    }

    @Override
    public void remove(SqlConnection sql, String table, byte[] id) throws SQLException {
        dialect.deleteDocument(sql, table, id); // the same statement: the row keyed by the document's id
    }

    @Override
    public String lookup(String table) {
        return "SELECT id FROM " + table + " WHERE terms @@ ?::tsquery";
    }

    /** The terms ORed with {@link #OVERFLOW}, each quoted as tsquery reads a lexeme (a quote doubled). */
    @Override
    public List<Object> lookupArgs(List<String> terms) {
        List<String> quoted = new ArrayList<>();
        for (String term : terms) {
            quoted.add(quote(lexeme(term)));
        }
        quoted.add(quote(OVERFLOW));
        return List.of(String.join(" | ", quoted));
    }

    private static String quote(String lexeme) {
        return "'" + lexeme.replace("'", "''") + "'";
    }

    private static String lexeme(String term) {
        byte[] utf8 = term.getBytes(StandardCharsets.UTF_8);
        if (utf8.length <= MAX_LEXEME_BYTES) {
            return term;
        }
        try {
            return "#" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(utf8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
