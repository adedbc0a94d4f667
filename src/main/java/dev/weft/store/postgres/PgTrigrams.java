package dev.weft.store.postgres;

import dev.weft.query.Trigrams;
import dev.weft.store.sql.SqlConnection;
import dev.weft.store.sql.TrigramPostings;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * A trigram index on PostgreSQL: {@code <table>(id, s)} holds each document's
 * {@link Trigrams#indexed} text (folded already) under a GIN index of {@code pg_trgm}'s
 * {@code gin_trgm_ops}, whose posting lists are compressed; a document with too many trigrams
 * has a null {@code s}, found through a partial index and added to every lookup. A lookup is the
 * query's trigrams as {@code s LIKE '%gram%'}, joined with AND and OR as the query is: pg_trgm
 * answers each LIKE from the index and PostgreSQL rechecks it on the text, so the candidates are
 * exactly the documents whose folded strings hold the trigrams. (pg_trgm cuts words at
 * characters other than letters and digits; a trigram of such characters alone, as "://", gives
 * it nothing to look up, and PostgreSQL then decides it by the other trigrams of the query and
 * the recheck.) Its statements join the write's pipeline ({@link PgPipeline}).
 *
 * <p>Where {@code pg_trgm} cannot be installed (the role may not create in its database, or the
 * server has no contrib), the store opens all the same, with a logged warning, and a trigram
 * index is still created and used: it is kept as Weft's own rows, one per trigram and document
 * (the generic index table, {@link PostgresDialect#installTrigrams}). That is chosen over
 * refusing the index (a 4xx would fail a deployment over a matter of speed, and the same
 * definitions must work on every store) and over accepting it while regexes scan (silently
 * slow, and a collection's regexes would change cost with the database's privileges): the rows
 * answer the same regexes exactly, from an index, only bigger and slower to build than
 * pg_trgm's GIN (docs/benchmarks.md, search-4). Should pg_trgm be installed later, the next
 * open rebuilds such an index in this form. TrigramWithoutPgTrgmHttpTest runs it as a role
 * that may not install the extension.
 */
final class PgTrigrams implements TrigramPostings {
    /** The schema pg_trgm is installed in, quoted: its operator class is named with it, whatever the search path. */
    private final String schema;

    PgTrigrams(String schema) {
        this.schema = schema;
    }

    @Override
    public List<String> create(String table) {
        return List.of("CREATE TABLE " + table + "(id bytea PRIMARY KEY, s text)",
                "CREATE INDEX " + table + "_g ON " + table + " USING gin(s " + schema + ".gin_trgm_ops)",
                "CREATE INDEX " + table + "_o ON " + table + "(id) WHERE s IS NULL");
    }

    @Override
    public List<String> drop(String table) {
        return List.of("DROP TABLE IF EXISTS " + table);
    }

    @Override
    public void addAll(SqlConnection sql, String table, List<byte[]> ids, List<Trigrams.Indexed> texts) throws SQLException {
        List<byte[]> someIds = new ArrayList<>();
        List<String> someTexts = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            if (texts.get(i) != null) {
                someIds.add(ids.get(i));
                someTexts.add(texts.get(i).text());
            }
        }
        if (someIds.isEmpty()) {
            return;
        }
        PgPipeline.run(sql, "INSERT INTO " + table + "(id, s) SELECT * FROM unnest(?::bytea[], ?::text[])", (ps, p) -> {
            ps.setArray(p, PostgresDialect.array(ps, someIds));
            ps.setArray(p + 1, ps.getConnection().createArrayOf("text", someTexts.toArray(new String[0])));
            return p + 2;
        });
    }

    @Override
    public void remove(SqlConnection sql, String table, byte[] id) throws SQLException {
        PgPipeline.run(sql, "DELETE FROM " + table + " WHERE id = ?", (ps, p) -> {
            ps.setBytes(p, id);
            return p + 1;
        });
    }

    @Override
    public Lookup lookup(String table, Trigrams.Query query) {
        List<Object> args = new ArrayList<>();
        String condition = TrigramPostings.expression(query, gram -> {
            args.add(pattern(gram));
            return "s LIKE ?";
        });
        return new Lookup("SELECT id FROM " + table + " WHERE " + condition + " UNION ALL SELECT id FROM " + overflowed(table),
                List.copyOf(args));
    }

    @Override
    public String overflowed(String table) {
        return table + " WHERE s IS NULL";
    }

    @Override
    public String holding(String table) {
        return table + " WHERE s LIKE ?";
    }

    @Override
    public String term(byte[] gram) {
        return pattern(gram);
    }

    /** {@code %gram%}, its own {@code %}, {@code _} and {@code \} escaped (LIKE's default escape is the backslash). */
    private static String pattern(byte[] gram) {
        String g = new String(gram, StandardCharsets.UTF_8);
        return "%" + g.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%";
    }
}
