package dev.weft.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.query.TextIndex;
import dev.weft.query.TextLanguage;
import dev.weft.store.sql.SqlConnection;
import dev.weft.store.sql.TextPostings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The native ranking function {@code weft_top} ({@link NativeRanking}, src/main/c/weft_rank.c)
 * against FTS5's bm25 (the reference): where this build can have it (Linux x86_64 with a C
 * compiler) it must be built and load, never silently absent; loading it leaves SQL's
 * {@code load_extension} off; and {@link Fts5Postings#top} and {@link Fts5Postings#best} give
 * exactly bm25's answers through it (same ids, order, scores bit for bit, the same completeness)
 * for random queries over random postings in three weight classes, with groups of identical
 * documents (ties at the n-th place), deletes, and inside a writing transaction as after it.
 */
class NativeRankingTest {
    private static final TextIndex INDEX = new TextIndex(Map.of("title", 10, "tags", 3, "body", 1), TextLanguage.ENGLISH, "language");
    private static final int VOCABULARY = 60;

    @TempDir
    Path dir;

    /** This machine builds the library (./weft build and test run scripts/build-native): it must be packaged and load. */
    @Test
    void theLibraryIsBuiltAndLoadsWhereACompilerIs() throws SQLException {
        boolean compiler = Files.isExecutable(Path.of("/usr/bin/cc")) || Files.isExecutable(Path.of("/usr/bin/gcc"));
        if (!NativeRanking.platform().equals("linux-x86_64") || !compiler) {
            assertThat(NativeRanking.forStore(false).enabled()).isFalse();
            return;
        }
        assertThat(NativeRanking.forStore(true).enabled())
                .as("weft_top not built or not loaded on " + NativeRanking.platform() + ": run scripts/build-native before mvn (./weft build and ./weft test do)")
                .isTrue();
        assertThat(NativeRanking.forStore(false).enabled()).as("text-native-ranking 0").isFalse();
        try (Connection c = nativeConnection()) {
            try (ResultSet rs = c.createStatement().executeQuery("SELECT count(*) FROM pragma_function_list WHERE name = 'load_extension'")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isPositive(); // it exists, and is refused:
            }
            assertThatThrownBy(() -> c.createStatement().executeQuery("SELECT load_extension('/nonexistent/x.so')").next())
                    .hasMessageContaining("not authorized");
        }
    }

    /** weft_top refuses what would break its bound or its memory: n out of 1..10^7, a weight not positive. */
    @Test
    void badArgumentsAreErrorsNotWrongScores() throws SQLException {
        try (Connection c = nativeConnection()) {
            Fts5Postings postings = new Fts5Postings(0, new PendingPostings(), true);
            create(c, postings);
            SqlConnection sql = new SqlConnection(c);
            postings.add(sql, "ix", INDEX, id(1), List.of("w1", "", "w2 w1"));
            for (String call : new String[] {"weft_top(ix_t, 0, 10.0, 3.0, 1.0)", "weft_top(ix_t, 20000000, 1.0)",
                "weft_top(ix_t, 5, 10.0, 0.0, 1.0)", "weft_top(ix_t, 5, -1.0)"}) {
                assertThatThrownBy(() -> c.createStatement().executeQuery("SELECT " + call + " FROM ix_t WHERE ix_t MATCH 'w1'").next())
                        .as(call).isInstanceOf(SQLException.class).hasMessageContaining("weft_top");
            }
        }
    }

    /** The cut is real: over many matches, most rows past the first n get no length lookup (NULL). */
    @Test
    void rowsThatCannotReachTheBestNAreNotScored() throws SQLException {
        try (Connection c = nativeConnection()) {
            Fts5Postings postings = new Fts5Postings(0, new PendingPostings(), true);
            create(c, postings);
            SqlConnection sql = new SqlConnection(c);
            for (int i = 0; i < 1000; i++) {
                // the word last in the body: its offset proves the length, so the bound is the score
                postings.add(sql, "ix", INDEX, id(i), List.of(i % 50 == 0 ? "common" : "", "", "filler ".repeat(i % 20) + "common"));
            }
            c.commit();
            int rows = 0;
            int scored = 0;
            try (ResultSet rs = c.createStatement().executeQuery("SELECT weft_top(ix_t, 10, 10.0, 3.0, 1.0) FROM ix_t WHERE ix_t MATCH 'common'")) {
                while (rs.next()) {
                    rows++;
                    rs.getDouble(1);
                    scored += rs.wasNull() ? 0 : 1;
                }
            }
            assertThat(rows).isEqualTo(1000);
            assertThat(scored).isBetween(10, 100);
        }
    }

    @Test
    void theNativeTopIsBm25sTopForRandomQueries() throws SQLException {
        long seed = Long.getLong("weft.seed", System.nanoTime());
        Random random = new Random(seed);
        PendingPostings pending = new PendingPostings();
        Fts5Postings reference = new Fts5Postings(0, pending, false);
        Fts5Postings bounded = new Fts5Postings(0, pending, true);
        try (Connection c = nativeConnection()) {
            create(c, reference);
            SqlConnection sql = new SqlConnection(c);
            int ids = 0;
            int compared = 0;
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 1200; i++) {
                    List<String> doc = List.of(words(random, random.nextInt(4)), words(random, random.nextInt(3)), words(random, 5 + random.nextInt(60)));
                    // groups of identical documents: equal scores straddling the n-th place
                    for (int copies = random.nextInt(8) == 0 ? 2 + random.nextInt(6) : 1; copies > 0; copies--) {
                        reference.add(sql, "ix", INDEX, id(ids++), doc);
                    }
                }
                for (int i = random.nextInt(5); i < ids; i += 1 + random.nextInt(17)) {
                    reference.remove(sql, "ix", id(i));
                }
                if (round > 0) {
                    c.commit();
                }
                for (int q = 0; q < 120; q++) {
                    List<String> terms = new ArrayList<>();
                    for (int k = 1 + random.nextInt(3); k > 0; k--) {
                        terms.add(word(random));
                    }
                    int n = 1 + random.nextInt(random.nextBoolean() ? 8 : 400);
                    String context = "seed=" + seed + " round=" + round + " terms=" + terms + " n=" + n;
                    TextPostings.Top expected = reference.top(sql, "ix", INDEX, terms, n);
                    TextPostings.Top actual = bounded.top(sql, "ix", INDEX, terms, n);
                    assertThat(ids(actual.ranked())).as(context).isEqualTo(ids(expected.ranked()));
                    assertThat(bits(actual.ranked())).as(context).isEqualTo(bits(expected.ranked()));
                    assertThat(actual.complete()).as(context).isEqualTo(expected.complete());
                    String match = (String) reference.lookupArgs(terms).getFirst();
                    List<TextPostings.Ranked> best = Fts5Postings.best(sql, "ix", INDEX, match, n, false);
                    List<TextPostings.Ranked> bestNative = Fts5Postings.best(sql, "ix", INDEX, match, n, true);
                    assertThat(bits(bestNative)).as(context).isEqualTo(bits(best));
                    if (!best.isEmpty()) {
                        double last = best.getLast().score();
                        assertThat(ids(bestNative.stream().filter(r -> r.score() != last).toList()))
                                .as(context).isEqualTo(ids(best.stream().filter(r -> r.score() != last).toList()));
                    }
                    if (terms.size() == 2 && !terms.get(0).equals(terms.get(1))) {
                        List<TextPostings.Ranked> pair = new Fts5PairTop(sql, "ix", INDEX, terms.get(0), terms.get(1), false).best(n);
                        List<TextPostings.Ranked> pairNative = new Fts5PairTop(sql, "ix", INDEX, terms.get(0), terms.get(1), true).best(n);
                        assertThat(pairNative == null).as(context).isEqualTo(pair == null);
                        if (pair != null) {
                            assertThat(bits(pairNative)).as(context).isEqualTo(bits(pair));
                        }
                    }
                    compared++;
                }
            }
            assertThat(compared).isEqualTo(360);
        }
    }

    private Connection nativeConnection() throws SQLException {
        NativeRanking ranking = NativeRanking.forStore(true);
        assertThat(ranking.enabled()).as("weft_top not built: run scripts/build-native (./weft build and ./weft test do)").isTrue();
        Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("t.db"));
        ranking.load(c);
        return c;
    }

    private static void create(Connection c, Fts5Postings postings) throws SQLException {
        for (String ddl : postings.create("ix", INDEX)) {
            c.createStatement().execute(ddl);
        }
        c.setAutoCommit(false); // the postings written in one transaction, read back in it
    }

    /** Word k with probability about 1 / (k + 1): a few common words, many rare ones. */
    private static String word(Random random) {
        double u = random.nextDouble() * Math.log(VOCABULARY + 1);
        return "w" + Math.min(VOCABULARY - 1, (int) Math.exp(u) - 1);
    }

    private static String words(Random random, int n) {
        StringBuilder s = new StringBuilder();
        for (int k = 0; k < n; k++) {
            s.append(k > 0 ? " " : "").append(word(random));
        }
        return s.toString();
    }

    private static List<Long> bits(List<TextPostings.Ranked> ranked) {
        return ranked.stream().map(r -> Double.doubleToRawLongBits(r.score())).toList();
    }

    private static List<String> ids(List<TextPostings.Ranked> ranked) {
        return ranked.stream().map(r -> new String(r.id(), StandardCharsets.UTF_8)).toList();
    }

    private static byte[] id(int i) {
        return String.format("%05d", i).getBytes(StandardCharsets.UTF_8);
    }
}
