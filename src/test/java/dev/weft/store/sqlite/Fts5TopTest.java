package dev.weft.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.query.TextIndex;
import dev.weft.query.TextLanguage;
import dev.weft.store.sql.SqlConnection;
import dev.weft.store.sql.TextPostings;
import java.nio.charset.StandardCharsets;
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
 * {@link Fts5Postings#top}, FTS5 keeping only the best n scores, against every match read in
 * {@link TextPostings#ranked}'s order: a beginning of that order (same ids, order and scores),
 * cut only between two scores, for random postings over two weight classes, after deletes, for
 * terms asked once or twice and pages small and large; and the cut by score bound for two words
 * ({@link Fts5PairTop}) against the same full order.
 */
class Fts5TopTest {
    private static final TextIndex INDEX = new TextIndex(Map.of("title", 10, "body", 1), TextLanguage.ENGLISH, "language");
    private static final int VOCABULARY = 40;
    private static final String[] WORDS = {"a", "b", "c", "d", "e", "f", "g", "h", "rare", "x'y"};

    @TempDir
    Path dir;

    @Test
    void theBoundedTopKIsFts5sOwnOrderAndScores() throws SQLException {
        long seed = Long.getLong("weft.seed", System.nanoTime());
        Random random = new Random(seed);
        Fts5Postings postings = new Fts5Postings(0, new PendingPostings());
        try (Connection c = open(postings)) {
            SqlConnection sql = new SqlConnection(c);
            for (int i = 0; i < 600; i++) {
                postings.add(sql, "ix", INDEX, id(i), List.of(words(random, random.nextInt(4)), words(random, random.nextInt(30))));
            }
            for (int i = 0; i < 600; i += 1 + random.nextInt(9)) {
                postings.remove(sql, "ix", id(i));
            }
            c.commit(); // FTS5 writes its totals at commit; before, top falls back to scoring every document
            for (int q = 0; q < 200; q++) {
                List<String> terms = new ArrayList<>();
                for (int k = 1 + random.nextInt(3); k > 0; k--) {
                    terms.add(WORDS[random.nextInt(WORDS.length)]);
                }
                int n = 1 + random.nextInt(random.nextBoolean() ? 5 : 300);
                List<TextPostings.Ranked> expected = everyDocumentScored(postings, sql, terms);
                TextPostings.Top top = postings.top(sql, "ix", INDEX, terms, n);
                List<TextPostings.Ranked> actual = top.ranked();
                String context = "seed=" + seed + " terms=" + terms + " n=" + n;
                assertThat(top.complete()).as(context).isEqualTo(expected.size() < n);
                assertThat(ids(actual)).as(context).isEqualTo(ids(expected.subList(0, actual.size())));
                assertThat(actual.stream().map(TextPostings.Ranked::score).toList()).as(context)
                        .isEqualTo(expected.subList(0, actual.size()).stream().map(TextPostings.Ranked::score).toList());
                if (!top.complete()) {
                    assertThat(actual).as(context).isNotEmpty();
                    assertThat(expected.get(actual.size()).score()).as(context).isLessThan(actual.getLast().score());
                    assertThat(actual.size() <= n || actual.getFirst().score() == actual.getLast().score()).as(context).isTrue();
                }
            }
        }
    }

    @Test
    void aGroupOfEqualScoresIsNeverCut() throws SQLException {
        Fts5Postings postings = new Fts5Postings(0, new PendingPostings());
        try (Connection c = open(postings)) {
            SqlConnection sql = new SqlConnection(c);
            for (int i = 999; i >= 0; i--) {
                postings.add(sql, "ix", INDEX, id(i), List.of(i % 100 == 0 ? "rare" : "a", "rare b c d e f g h"));
            }
            c.commit();
            // the ten with the word in the title tie: asked for 5, all ten, by id; asked for 12, the ten alone
            assertThat(ids(postings.top(sql, "ix", INDEX, List.of("rare"), 5).ranked()))
                    .containsExactly("000", "100", "200", "300", "400", "500", "600", "700", "800", "900");
            TextPostings.Top twelve = postings.top(sql, "ix", INDEX, List.of("rare"), 12);
            assertThat(ids(twelve.ranked())).hasSize(10).endsWith("900");
            assertThat(twelve.complete()).isFalse();
            assertThat(postings.top(sql, "ix", INDEX, List.of("rare"), 1001).ranked()).hasSize(1000);
            assertThat(postings.top(sql, "ix", INDEX, List.of("rare"), 1001).complete()).isTrue();
        }
    }

    /**
     * {@link Fts5PairTop}, the cut by score bound for two words: where it applies, its n
     * documents are the full order's first ones with the same scores, but for the n-th's group
     * of equal scores (of which it may hold any); over Zipf-like random postings, with deletes,
     * inside the writing transaction and after its commit. The cut must apply to some pairs.
     */
    @Test
    void theCutKeepsFts5sOrderAndScores() throws SQLException {
        long seed = Long.getLong("weft.seed", System.nanoTime());
        Random random = new Random(seed);
        Fts5Postings postings = new Fts5Postings(0, new PendingPostings());
        try (Connection c = open(postings)) {
            SqlConnection sql = new SqlConnection(c);
            int cut = 0;
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 1500; i++) {
                    postings.add(sql, "ix", INDEX, id(round * 1500 + i), List.of(zipfWords(random, 1 + random.nextInt(5)), zipfWords(random, 10 + random.nextInt(50))));
                }
                for (int i = random.nextInt(7); i < 1500 * (round + 1); i += 1 + random.nextInt(13)) {
                    postings.remove(sql, "ix", id(i));
                }
                if (round == 1) {
                    c.commit();
                }
                for (int q = 0; q < 150; q++) {
                    String a = word(random);
                    String b = word(random);
                    int n = 1 + random.nextInt(random.nextBoolean() ? 10 : 200);
                    String context = "seed=" + seed + " round=" + round + " words=" + a + "," + b + " n=" + n;
                    if (a.equals(b)) {
                        continue;
                    }
                    List<TextPostings.Ranked> pair = new Fts5PairTop(sql, "ix", INDEX, a, b).best(n);
                    if (pair == null) {
                        continue;
                    }
                    cut++;
                    assertIsTheFullOrdersBeginning(pair, everyDocumentScored(postings, sql, List.of(a, b)), n, context);
                }
            }
            assertThat(cut).as("seed=" + seed + ": pairs the cut applied to").isGreaterThan(10);
        }
    }

    /**
     * The cut where it is easiest to get wrong: a word in every document (its idf at FTS5's floor,
     * 1e-6, so its bound is below any theta), a word only in the title (weight 10), groups of
     * identical documents whose equal scores straddle the n-th place, and a title word whose
     * documents without the other must still be ranked (their bound is above theta). For every pair and n the cut applies to, its n
     * documents are the full order's; and top's page (which fetches the n-th's group of equal
     * scores whole) is a beginning of the full order, ids, order and scores.
     */
    @Test
    void theCutKeepsTiesAWordInEveryDocumentAndTitleOnlyWords() throws SQLException {
        Fts5Postings postings = new Fts5Postings(0, new PendingPostings());
        try (Connection c = open(postings)) {
            SqlConnection sql = new SqlConnection(c);
            for (int i = 0; i < 400; i++) {
                String title = (i % 4 == 0 ? "head" : "x") + (i % 5 == 0 ? " top" : "");
                String body = "every" + (i % 3 == 0 ? " both" : "") + (i % 8 == 0 ? " tail" : "") + (i % 2 == 0 ? " mid" : "")
                        + " filler".repeat(i % 5);
                postings.add(sql, "ix", INDEX, id(i), List.of(title, body));
            }
            c.commit();
            int cut = 0;
            // top's documents without mid score about as those with both (mid's idf is at the floor too): they must be ranked
            String[][] pairs = {{"head", "every"}, {"every", "head"}, {"both", "every"}, {"head", "both"}, {"both", "head"},
                {"tail", "both"}, {"top", "mid"}, {"mid", "top"}};
            for (String[] words : pairs) {
                List<TextPostings.Ranked> full = everyDocumentScored(postings, sql, List.of(words));
                for (int n : new int[] {1, 7, 20, 33, 50, 99}) {
                    String context = "words=" + List.of(words) + " n=" + n;
                    List<TextPostings.Ranked> pair = new Fts5PairTop(sql, "ix", INDEX, words[0], words[1]).best(n);
                    if (pair != null) {
                        cut++;
                        assertIsTheFullOrdersBeginning(pair, full, n, context);
                    }
                    List<TextPostings.Ranked> top = postings.top(sql, "ix", INDEX, List.of(words), n).ranked();
                    assertThat(ids(top)).as(context).isEqualTo(ids(full.subList(0, top.size())));
                    assertThat(scores(top)).as(context).isEqualTo(scores(full.subList(0, top.size())));
                }
            }
            assertThat(cut).as("pairs and sizes the cut applied to").isGreaterThan(12);
        }
    }

    /**
     * A cut's n documents against the full order: the same n scores; the same ids above the
     * n-th's score; of that score, ids the full order has at that score.
     */
    private static void assertIsTheFullOrdersBeginning(List<TextPostings.Ranked> pair, List<TextPostings.Ranked> full, int n,
                                                       String context) {
        assertThat(pair).as(context).hasSize(n);
        double last = pair.getLast().score();
        int above = (int) pair.stream().filter(r -> r.score() != last).count();
        assertThat(ids(pair.subList(0, above))).as(context).isEqualTo(ids(full.subList(0, above)));
        assertThat(scores(pair)).as(context).isEqualTo(scores(full.subList(0, n)));
        assertThat(ids(full.subList(0, n + (int) full.subList(n, full.size()).stream().filter(r -> r.score() == last).count())))
                .as(context).containsAll(ids(pair));
    }

    /**
     * The fewest documents that put a term's bound below theta, from which the cut counts a
     * term's documents only that far: the bound is below theta from there on and not one
     * document before, for random row counts and thetas (including none reaching it, and the
     * floor of the idf at 1e-6).
     */
    @Test
    void theFewestDocumentsBelowThetaAreExactlyWhereTheBoundFallsUnderIt() {
        long seed = Long.getLong("weft.seed", System.nanoTime());
        Random random = new Random(seed);
        int none = 0;
        for (int k = 0; k < 5000; k++) {
            long rows = 1 + (long) Math.exp(random.nextDouble() * Math.log(10_000_000));
            double theta = random.nextInt(10) == 0 ? 1e-7 * random.nextDouble() : random.nextDouble() * 40;
            long fewest = Fts5PairTop.fewestDocumentsBelow(rows, theta);
            String context = "seed=" + seed + " rows=" + rows + " theta=" + theta;
            if (fewest < 0) {
                none++;
                assertThat(Fts5PairTop.bound(rows, rows)).as(context).isGreaterThanOrEqualTo(theta);
                continue;
            }
            assertThat(fewest).as(context).isBetween(0L, rows);
            assertThat(Fts5PairTop.bound(rows, fewest)).as(context).isLessThan(theta);
            for (long more : new long[] {fewest + 1, fewest + (rows - fewest) / 2, rows}) {
                assertThat(Fts5PairTop.bound(rows, Math.min(more, rows))).as(context).isLessThan(theta);
            }
            if (fewest > 0) {
                assertThat(Fts5PairTop.bound(rows, fewest - 1)).as(context).isGreaterThanOrEqualTo(theta);
            }
        }
        assertThat(none).as("seed=" + seed + ": thetas no count reaches").isGreaterThan(0);
    }

    /** Word k with probability about 1 / (k + 1): a few common words, many rare ones. */
    private static String word(Random random) {
        double u = random.nextDouble() * Math.log(VOCABULARY + 1);
        return "w" + Math.min(VOCABULARY - 1, (int) Math.exp(u) - 1);
    }

    private static String zipfWords(Random random, int n) {
        StringBuilder s = new StringBuilder();
        for (int k = 0; k < n; k++) {
            s.append(k > 0 ? " " : "").append(word(random));
        }
        return s.toString();
    }

    private static List<Double> scores(List<TextPostings.Ranked> ranked) {
        return ranked.stream().map(TextPostings.Ranked::score).toList();
    }

    private static List<String> ids(List<TextPostings.Ranked> ranked) {
        return ranked.stream().map(r -> new String(r.id(), StandardCharsets.UTF_8)).toList();
    }

    private Connection open(Fts5Postings postings) throws SQLException {
        Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("t.db"));
        for (String ddl : postings.create("ix", INDEX)) {
            c.createStatement().execute(ddl);
        }
        c.setAutoCommit(false); // the postings written in one transaction, read back in it
        return c;
    }

    /** Every match in {@link TextPostings#ranked}'s order. */
    private static List<TextPostings.Ranked> everyDocumentScored(Fts5Postings postings, SqlConnection sql, List<String> terms)
            throws SQLException {
        List<TextPostings.Ranked> out = new ArrayList<>();
        try (ResultSet rs = postings.ranked(sql, "ix", INDEX, terms).executeQuery()) {
            while (rs.next()) {
                out.add(new TextPostings.Ranked(rs.getBytes(1), rs.getDouble(2)));
            }
        }
        return out;
    }

    private static byte[] id(int i) {
        return String.format("%03d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static String words(Random random, int n) {
        StringBuilder s = new StringBuilder();
        for (int k = 0; k < n; k++) {
            s.append(k > 0 ? " " : "").append(WORDS[random.nextInt(WORDS.length)]);
        }
        return s.toString();
    }
}
