package dev.weft.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.query.TextIndex;
import dev.weft.query.TextLanguage;
import dev.weft.store.sql.SqlConnection;
import dev.weft.store.sql.TextPostings;
import java.nio.ByteBuffer;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link Fts5Postings#top} scores the matches itself, from FTS5's occurrences and the lengths the
 * documents' numbers carry: its scores are FTS5's own {@code bm25} to the last bit, after
 * deletes too, and its first n are {@link Fts5Postings#ranked}'s first n (score, then id).
 */
class Fts5PostingsScoreTest {
    private static final String[] WORDS = {"alpha", "beta", "gamma", "delta", "o'neil", "caf\u00e9", "x9", "zeta", "eta"};
    private static final TextIndex INDEX = new TextIndex(Map.of("title", 10, "body", 1), TextLanguage.ENGLISH, "language");

    @Test
    void scoresAreFts5sBm25AndTheTopIsTheRankedOrdersBeginning() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        Fts5Postings postings = new Fts5Postings();
        try (SqlConnection sql = new SqlConnection(DriverManager.getConnection("jdbc:sqlite::memory:"))) {
            for (String ddl : postings.create("i1", INDEX)) {
                sql.exec(ddl);
            }
            for (int d = 0; d < 600; d++) {
                postings.add(sql, "i1", INDEX, id(d), List.of(words(random, 1 + random.nextInt(4)), words(random, random.nextInt(60))));
                if (d % 7 == 3) {
                    postings.remove(sql, "i1", id(random.nextInt(d + 1)));
                }
            }
            assertThat(postings.outdated(sql, "i1")).isFalse();
            for (List<String> terms : List.of(List.of("alpha"), List.of("beta", "o'neil"), List.of("caf\u00e9", "x9", "eta"),
                    List.of("missing"), List.of("gamma", "missing"))) {
                Map<Long, Double> fts5 = new HashMap<>();
                PreparedStatement bm25 = sql.prepare("SELECT rowid, -bm25(i1_t, 10.0, 1.0) FROM i1_t WHERE i1_t MATCH ?");
                bm25.setString(1, (String) postings.lookupArgs(terms).getFirst());
                try (ResultSet rs = bm25.executeQuery()) {
                    while (rs.next()) {
                        fts5.put(rs.getLong(1), rs.getDouble(2));
                    }
                }
                var mine = Fts5Postings.scores(sql, "i1", INDEX, terms);
                Map<Long, Double> ours = new HashMap<>();
                for (int i = 0; i < mine.size(); i++) {
                    ours.put(mine.doc()[i], mine.score()[i]);
                }
                assertThat(ours).as("seed %d, %s", seed, terms).isEqualTo(fts5);
                List<TextPostings.Ranked> ranked = new ArrayList<>();
                try (ResultSet rs = postings.ranked(sql, "i1", INDEX, terms).executeQuery()) {
                    while (rs.next()) {
                        ranked.add(new TextPostings.Ranked(rs.getBytes(1), rs.getDouble(2)));
                    }
                }
                for (int n : new int[] {1, 5, 64, 1000}) {
                    TextPostings.Top top = postings.top(sql, "i1", INDEX, terms, n);
                    List<TextPostings.Ranked> expected = ranked.subList(0, Math.min(n, ranked.size()));
                    assertThat(top.ranked()).as("seed %d, %s, n %d", seed, terms, n).hasSize(expected.size());
                    for (int i = 0; i < expected.size(); i++) {
                        assertThat(top.ranked().get(i).id()).isEqualTo(expected.get(i).id());
                        assertThat(top.ranked().get(i).score()).isEqualTo(expected.get(i).score());
                    }
                    assertThat(top.complete()).isEqualTo(ranked.size() <= n);
                    // past the most scored here, SQLite's sorter keeps the best n: a beginning of the same order
                    TextPostings.Top sorted = postings.top(sql, "i1", INDEX, terms, n, 3);
                    for (int i = 0; i < sorted.ranked().size(); i++) {
                        assertThat(sorted.ranked().get(i).id()).isEqualTo(ranked.get(i).id());
                        assertThat(sorted.ranked().get(i).score()).isEqualTo(ranked.get(i).score());
                    }
                    assertThat(sorted.ranked().isEmpty()).isEqualTo(ranked.isEmpty());
                }
            }
        }
    }

    @Test
    void tokensAreCountedAsFts5sAsciiTokenizerCutsThem() {
        assertThat(Fts5Postings.tokens(List.of("a b  c", "o'neil caf\u00e9", ""))).isEqualTo(5);
        assertThat(Fts5Postings.tokens(List.of("a-b", "\uD83D\uDE00x"))).isEqualTo(3);
    }

    @Test
    void varintsAreSqlitesBigEndianSevenBitsAByte() {
        int[] at = {0};
        byte[] b = {0x04, (byte) 0x81, 0x00, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff,
                (byte) 0xff, (byte) 0xff, (byte) 0xff};
        assertThat(Fts5Postings.varint(b, at)).isEqualTo(4);
        assertThat(Fts5Postings.varint(b, at)).isEqualTo(128);
        assertThat(Fts5Postings.varint(b, at)).isEqualTo(-1L);
        assertThat(at[0]).isEqualTo(b.length);
    }

    private static byte[] id(int d) {
        return ByteBuffer.allocate(5).put((byte) 0x10).putInt(d).array();
    }

    private static String words(Random random, int n) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n; i++) {
            s.append(i == 0 ? "" : " ").append(WORDS[random.nextInt(random.nextInt(WORDS.length) + 1)]);
        }
        return s.toString();
    }
}
