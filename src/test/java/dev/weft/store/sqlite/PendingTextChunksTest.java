package dev.weft.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.query.TextIndex;
import dev.weft.query.TextLanguage;
import dev.weft.store.sql.SqlConnection;
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
 * A text index's pending documents kept as a row per write ({@link PendingPostings#insertChunk}):
 * after random writes, removals and moves into FTS5 (idle steps, all at once, a write past the
 * bound) the index finds and scores exactly what an index written straight into FTS5 does; a
 * document removed while pending never reaches FTS5 and its number is not given again while its
 * chunk is pending; a pending table of an older Weft (a row per document) is put into FTS5 at
 * open and made again as chunks.
 */
class PendingTextChunksTest {
    private static final TextIndex INDEX = new TextIndex(Map.of("title", 10, "body", 1), TextLanguage.ENGLISH, "language");
    private static final String[] WORDS = {"a", "b", "c", "d", "rare", "x'y"};

    @TempDir
    Path dir;

    @Test
    void randomWritesRemovalsAndMovesLeaveTheIndexAStraightIndexWouldHold() throws SQLException {
        Random random = new Random(22);
        PendingPostings pending = new PendingPostings();
        Fts5Postings chunked = new Fts5Postings(40, pending);
        Fts5Postings straight = new Fts5Postings(0, new PendingPostings());
        try (Connection a = open("a.db", chunked); Connection b = open("b.db", straight)) {
            SqlConnection sa = new SqlConnection(a);
            SqlConnection sb = new SqlConnection(b);
            List<Integer> live = new ArrayList<>();
            int next = 0;
            for (int step = 0; step < 400; step++) {
                int what = random.nextInt(10);
                if (what < 4) { // a write of a few documents
                    List<byte[]> ids = new ArrayList<>();
                    List<List<String>> terms = new ArrayList<>();
                    for (int k = random.nextInt(6); k >= 0; k--) {
                        ids.add(id(next));
                        live.add(next++);
                        terms.add(List.of(words(random, random.nextInt(3)), words(random, random.nextInt(12))));
                    }
                    chunked.addAll(sa, "ix", INDEX, ids, terms);
                    straight.addAll(sb, "ix", INDEX, ids, terms);
                } else if (what < 7 && !live.isEmpty()) { // a removal, the last written as often as any
                    int i = random.nextBoolean() ? live.size() - 1 : random.nextInt(live.size());
                    chunked.remove(sa, "ix", id(live.get(i)));
                    straight.remove(sb, "ix", id(live.remove(i)));
                } else if (what < 8) {
                    pending.indexPending(sa);
                } else if (what < 9) {
                    pending.moveAll(sa, "ix");
                }
                if (step % 50 == 49) {
                    pending.moveAll(sa, "ix");
                    a.commit();
                    b.commit();
                    for (String word : WORDS) {
                        assertThat(scored(chunked, sa, word)).as("step %d, %s", step, word).isEqualTo(scored(straight, sb, word));
                    }
                }
            }
        }
    }

    @Test
    void aDocumentRemovedWhilePendingNeverReachesFts5AndItsNumberWaits() throws SQLException {
        PendingPostings pending = new PendingPostings();
        Fts5Postings chunked = new Fts5Postings(1000, pending);
        try (Connection c = open("c.db", chunked)) {
            SqlConnection sql = new SqlConnection(c);
            chunked.addAll(sql, "ix", INDEX, List.of(id(1), id(2), id(3)), List.of(List.of("a", "b"), List.of("a", "c"), List.of("rare", "d")));
            chunked.remove(sql, "ix", id(3)); // the highest number, pending
            chunked.addAll(sql, "ix", INDEX, List.of(id(4)), List.of(List.of("d", "d")));
            assertThat(numbers(c)).containsExactly(1L, 2L, 4L);
            pending.moveAll(sql, "ix");
            c.commit();
            assertThat(scored(chunked, sql, "rare")).isEmpty();
            assertThat(scored(chunked, sql, "d")).extracting(s -> s.substring(0, 3)).containsExactly("004");
            assertThat(scored(chunked, sql, "a")).extracting(s -> s.substring(0, 3)).containsExactlyInAnyOrder("001", "002");
        }
    }

    @Test
    void aPendingTableOfAnOlderWeftIsPutIntoFts5AtOpenAndMadeAgainAsChunks() throws SQLException {
        PendingPostings pending = new PendingPostings();
        Fts5Postings chunked = new Fts5Postings(1000, pending);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("old.db"))) {
            for (String ddl : List.of("CREATE TABLE ix(n INTEGER PRIMARY KEY, id BLOB NOT NULL UNIQUE)",
                    "CREATE VIRTUAL TABLE ix_t USING fts5(w0, w1, content='', contentless_delete=1, tokenize=\"ascii tokenchars ''''\")",
                    "CREATE TABLE ix_p(n INTEGER PRIMARY KEY, w0, w1)",
                    "INSERT INTO ix(n, id) VALUES (1, x'303031'), (2, x'303032')",
                    "INSERT INTO ix_t(rowid, w0, w1) VALUES (1, 'a', 'b')",
                    "INSERT INTO ix_p(n, w0, w1) VALUES (2, 'rare', 'a')")) {
                c.createStatement().execute(ddl);
            }
            c.setAutoCommit(false);
            SqlConnection sql = new SqlConnection(c);
            chunked.opened(sql, "ix", INDEX);
            try (ResultSet rs = c.createStatement().executeQuery("SELECT group_concat(name) FROM pragma_table_info('ix_p')")) {
                assertThat(rs.getString(1)).isEqualTo("n,last,rows");
            }
            assertThat(pending.hasPending()).isFalse();
            c.commit();
            assertThat(scored(chunked, sql, "rare")).extracting(s -> s.substring(0, 3)).containsExactly("002");
            chunked.addAll(sql, "ix", INDEX, List.of(id(3)), List.of(List.of("rare", "")));
            assertThat(pending.hasPending()).isTrue();
            pending.moveAll(sql, "ix");
            c.commit();
            assertThat(scored(chunked, sql, "rare")).extracting(s -> s.substring(0, 3)).containsExactlyInAnyOrder("002", "003");
        }
    }

    private Connection open(String file, Fts5Postings postings) throws SQLException {
        Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(file));
        for (String ddl : postings.create("ix", INDEX)) {
            c.createStatement().execute(ddl);
        }
        c.setAutoCommit(false);
        return c;
    }

    private static List<Long> numbers(Connection c) throws SQLException {
        List<Long> out = new ArrayList<>();
        try (ResultSet rs = c.createStatement().executeQuery("SELECT n FROM ix ORDER BY n")) {
            while (rs.next()) {
                out.add(rs.getLong(1));
            }
        }
        return out;
    }

    /** The documents holding {@code word}, as "id score" in the ranked order. */
    private static List<String> scored(Fts5Postings postings, SqlConnection sql, String word) throws SQLException {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = postings.ranked(sql, "ix", INDEX, List.of(word)).executeQuery()) {
            while (rs.next()) {
                out.add(new String(rs.getBytes(1), StandardCharsets.UTF_8) + " " + rs.getDouble(2));
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
