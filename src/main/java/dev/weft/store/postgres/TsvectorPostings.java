package dev.weft.store.postgres;

import dev.weft.query.TextIndex;
import dev.weft.store.sql.SqlConnection;
import dev.weft.store.sql.TextPostings;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A text index on PostgreSQL: {@code <table>(id, words tsvector)} with a GIN index. The lexemes
 * are Weft's terms as they are (a tsvector literal written here, no text search configuration
 * parses or stems them again), each with its positions in the document and the weight label of
 * its field's weight class (A for the heaviest, then B, C, D). A lookup is a {@code tsquery} of
 * the terms ORed, read from the GIN index.
 *
 * <p>A ranked lookup scores each candidate with the sum, over the search's terms, of the term's
 * inverse document frequency (BM25's, from its documents counted in the GIN index up to
 * {@link #DF_CAP}) times {@code ts_rank} of the document for that term (its occurrences, each
 * weighted by its label as the index weighs the fields, the n-th adding 1/n² of the first):
 * like SQLite's bm25, higher for more occurrences and rarer terms, but not normalized by the
 * document's length (ts_rank's length normalization lets 2 occurrences in 4 words outrank 3 in 5).
 *
 * <p>PostgreSQL bounds a lexeme (2 KB), its positions (256, up to 16383) and a tsvector (1 MB):
 * a longer term is stored and searched as its digest, positions past the bounds are left out,
 * and a document whose terms pass {@link #MAX_TERM_BYTES} in all is stored under the one lexeme
 * {@link #OVERFLOW}, which every lookup includes (the filter then decides). Its statements join
 * the write's pipeline ({@link PgPipeline}): no round trip of their own.
 */
final class TsvectorPostings implements TextPostings {
    /** Longest term kept as itself (PostgreSQL refuses lexemes of 2 KB). */
    private static final int MAX_LEXEME_BYTES = 1024;
    /** Most bytes of distinct terms one document's tsvector holds (PostgreSQL's bound is 1 MB). */
    private static final int MAX_TERM_BYTES = 512 * 1024;
    /** Not a term: '#' separates words. */
    private static final String OVERFLOW = "#overflow";
    /** PostgreSQL's bounds on a lexeme's positions: how many, and the largest. */
    private static final int MAX_POSITIONS = 255;
    private static final int MAX_POSITION = 16383;
    /** Documents of a term counted for its document frequency; a commoner term counts as this common. */
    static final int DF_CAP = 10_000;
    /** Documents of the index counted when PostgreSQL's estimate is lower (a bound on the count's time). */
    private static final int COUNTED_DOCUMENTS = 100_000;
    private static final String LABELS = "ABCD";

    private final PostgresDialect dialect;

    TsvectorPostings(PostgresDialect dialect) {
        this.dialect = dialect;
    }

    @Override
    public List<String> create(String table, TextIndex index) {
        return List.of("CREATE TABLE " + table + "(id bytea PRIMARY KEY, words tsvector NOT NULL)",
                "CREATE INDEX " + table + "_g ON " + table + " USING gin(words)");
    }

    @Override
    public List<String> drop(String table) {
        return List.of("DROP TABLE IF EXISTS " + table);
    }

    /** Made before positions and weights: a column {@code terms} of bare lexemes. */
    @Override
    public boolean outdated(SqlConnection sql, String table) throws SQLException {
        return TextPostings.hasColumn(sql, table, "terms");
    }

    @Override
    public void add(SqlConnection sql, String table, TextIndex index, byte[] id, List<String> termsByWeight)
            throws SQLException {
        String vector = vector(termsByWeight);
        PgPipeline.run(sql, "INSERT INTO " + table + "(id, words) VALUES (?, ?::tsvector)", (ps, p) -> {
            ps.setBytes(p, id);
            ps.setString(p + 1, vector);
            return p + 2;
        });
    }

    /** Rows of one multi-row INSERT of postings: one statement text, so it stays prepared. */
    private static final int ROWS_PER_INSERT = 50;

    /** {@link #ROWS_PER_INSERT} documents per statement (the rest one by one): fewer statements in the write's pipeline. */
    @Override
    public void addAll(SqlConnection sql, String table, TextIndex index, List<byte[]> ids, List<List<String>> termsByWeight)
            throws SQLException {
        int i = 0;
        for (; i + ROWS_PER_INSERT <= ids.size(); i += ROWS_PER_INSERT) {
            List<byte[]> someIds = ids.subList(i, i + ROWS_PER_INSERT);
            List<String> vectors = termsByWeight.subList(i, i + ROWS_PER_INSERT).stream().map(TsvectorPostings::vector).toList();
            PgPipeline.run(sql, "INSERT INTO " + table + "(id, words) VALUES (?, ?::tsvector)"
                    + ", (?, ?::tsvector)".repeat(ROWS_PER_INSERT - 1), (ps, p) -> {
                        for (int k = 0; k < ROWS_PER_INSERT; k++) {
                            ps.setBytes(p++, someIds.get(k));
                            ps.setString(p++, vectors.get(k));
                        }
                        return p;
                    });
        }
        for (; i < ids.size(); i++) {
            add(sql, table, index, ids.get(i), termsByWeight.get(i));
        }
    }

    /** The tsvector literal of a document's terms: each lexeme once, with its positions and their labels. */
    static String vector(List<String> termsByWeight) {
        Map<String, StringBuilder> positions = new LinkedHashMap<>();
        Map<String, Integer> counts = new java.util.HashMap<>();
        long bytes = 0;
        int position = 0;
        for (int c = 0; c < termsByWeight.size(); c++) {
            String terms = termsByWeight.get(c);
            char label = LABELS.charAt(Math.min(c, LABELS.length() - 1));
            for (String term : terms.isEmpty() ? new String[0] : terms.split(" ")) {
                position = Math.min(position + 1, MAX_POSITION);
                String lexeme = lexeme(term);
                StringBuilder at = positions.get(lexeme);
                if (at == null) {
                    bytes += lexeme.getBytes(StandardCharsets.UTF_8).length;
                    positions.put(lexeme, new StringBuilder().append(position).append(label));
                    counts.put(lexeme, 1);
                } else if (counts.merge(lexeme, 1, Integer::sum) <= MAX_POSITIONS && position < MAX_POSITION) {
                    at.append(',').append(position).append(label);
                }
            }
        }
        if (bytes > MAX_TERM_BYTES) {
            return quote(OVERFLOW);
        }
        StringBuilder out = new StringBuilder();
        positions.forEach((lexeme, at) -> out.append(out.isEmpty() ? "" : " ").append(quote(lexeme)).append(':').append(at));
        return out.toString();
    }

    @Override
    public void remove(SqlConnection sql, String table, byte[] id) throws SQLException {
        dialect.deleteDocument(sql, table, id); // the same statement: the row keyed by the document's id
    }

    @Override
    public String lookup(String table) {
        return "SELECT id FROM " + table + " WHERE words @@ ?::tsquery";
    }

    /** The terms ORed with {@link #OVERFLOW}, each quoted as tsquery reads a lexeme. */
    @Override
    public List<Object> lookupArgs(List<String> terms) {
        List<String> quoted = new ArrayList<>();
        for (String term : terms) {
            quoted.add(quote(lexeme(term)));
        }
        quoted.add(quote(OVERFLOW));
        return List.of(String.join(" | ", quoted));
    }

    @Override
    public PreparedStatement ranked(SqlConnection sql, String table, TextIndex index, List<String> terms)
            throws SQLException {
        return ranked(sql, table, index, terms, "");
    }

    /**
     * The first {@code n} of {@link #ranked}'s order: its order is total (score, then id), so
     * PostgreSQL keeps only the best n as it scores (a top-N heap sort) and any cut is a
     * beginning of it.
     */
    @Override
    public Top top(SqlConnection sql, String table, TextIndex index, List<String> terms, int n) throws SQLException {
        PreparedStatement ps = ranked(sql, table, index, terms, " LIMIT " + n);
        List<Ranked> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new Ranked(rs.getBytes(1), rs.getDouble(2)));
            }
        }
        return new Top(out, out.size() < n);
    }

    /**
     * One statement: the matches read once (a GIN bitmap scan and a heap fetch each; the CTE is
     * referenced twice, so PostgreSQL materializes it without being told), each
     * scored per term as it is read (whether it holds the term, and ts_rank for it: a few bytes
     * kept per match, not its tsvector), each term's documents counted among them (every
     * document holding a term is a match, so this is the count the index would give, up to
     * {@link #DF_CAP}), then the sum. Counting each term with a statement of its own read its
     * documents from the heap a second time: for two words in ~9,300 of 1M documents, ~16,000
     * more heap fetches than the ranking itself.
     */
    private PreparedStatement ranked(SqlConnection sql, String table, TextIndex index, List<String> terms, String limit)
            throws SQLException {
        double documents = documents(sql, table);
        String weights = labelWeights(index);
        StringBuilder perTerm = new StringBuilder();
        StringBuilder counts = new StringBuilder();
        StringBuilder score = new StringBuilder();
        for (int i = 0; i < terms.size(); i++) {
            perTerm.append(", words @@ ?::tsquery AS h").append(i).append(", ts_rank(").append(weights)
                    .append(", words, ?::tsquery) AS r").append(i);
            counts.append(i == 0 ? "" : ", ").append("least(count(*) FILTER (WHERE h").append(i).append("), ").append(DF_CAP)
                    .append(")::float8 AS n").append(i);
            score.append(i == 0 ? "" : " + ").append("ln(1 + (?::float8 - d.n").append(i).append(" + 0.5) / (d.n").append(i)
                    .append(" + 0.5)) * m.r").append(i);
        }
        PreparedStatement ps = sql.prepare("WITH m AS (SELECT id" + perTerm + " FROM " + table
                + " WHERE words @@ ?::tsquery), d AS (SELECT " + counts + " FROM m) SELECT m.id, " + score
                + " AS score FROM m CROSS JOIN d ORDER BY score DESC, m.id" + limit);
        int p = 1;
        for (String term : terms) {
            ps.setString(p++, quote(lexeme(term)));
            ps.setString(p++, quote(lexeme(term)));
        }
        ps.setString(p++, (String) lookupArgs(terms).getFirst());
        for (int i = 0; i < terms.size(); i++) {
            ps.setDouble(p++, documents);
        }
        return ps;
    }

    /** ts_rank's weights of labels D, C, B, A: the weights of the classes labelled so, over the heaviest. */
    private static String labelWeights(TextIndex index) {
        List<Integer> classes = index.weightClasses();
        double heaviest = classes.getFirst();
        StringBuilder out = new StringBuilder();
        for (int label = LABELS.length() - 1; label >= 0; label--) {
            double weight = classes.get(Math.min(label, classes.size() - 1)) / heaviest;
            out.append(out.isEmpty() ? "'{" : ",").append(weight);
        }
        return out.append("}'::float4[]").toString();
    }

    /**
     * The documents of the index: PostgreSQL's estimate once it passes {@link #COUNTED_DOCUMENTS}
     * (a table not analyzed yet estimates nothing), else counted up to that many.
     */
    private static double documents(SqlConnection sql, String table) throws SQLException {
        double estimate = 0;
        PreparedStatement ps = sql.prepare("SELECT reltuples FROM pg_class WHERE oid = ?::regclass");
        ps.setString(1, table);
        try (ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
                estimate = rs.getDouble(1);
            }
        }
        if (estimate >= COUNTED_DOCUMENTS) {
            return estimate;
        }
        try (ResultSet rs = sql.prepare("SELECT count(*) FROM (SELECT 1 FROM " + table + " LIMIT " + COUNTED_DOCUMENTS + ") s")
                .executeQuery()) {
            rs.next();
            return Math.max(estimate, rs.getLong(1));
        }
    }

    /** A lexeme quoted as tsvector and tsquery read it: a quote doubled, a backslash escaped. */
    private static String quote(String lexeme) {
        return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'";
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
