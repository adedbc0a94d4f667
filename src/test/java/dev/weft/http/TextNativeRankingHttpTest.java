package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Issue 22: the native ranking function ({@code text-native-ranking} 1, SQLite's
 * {@code weft_top}, docs/decisions/0010-native-text-ranking.md) answers every {@code $text} page
 * exactly as FTS5's bm25 alone ({@code text-native-ranking} 0) does: the same random queries
 * (one to three words, some with a {@code -word}, pages of several sizes and numbers, with and
 * without a filter term beside {@code $text}), sorted by textScore with the score shown, asked by
 * the admin and by alice, whom a readFilter narrows to her own documents, over documents with a
 * heavier title, groups of identical documents (ties) and deletes, through one server over the
 * same data restarted with the other setting. Bodies compared byte for byte. (On PostgreSQL the
 * setting does nothing and the two runs agree as well.)
 */
class TextNativeRankingHttpTest {
    private static final String[] OWNERS = {"alice", "bob"};
    private static final int VOCABULARY = 50;

    @Test
    void nativeRankingAnswersAsBm25() throws Exception {
        long seed = Long.getLong("weft.seed", System.nanoTime());
        Random random = new Random(seed);
        List<String> requests = new ArrayList<>();
        List<String> callers = new ArrayList<>();
        List<String> nativeAnswers;
        TestServer server = new TestServer("--result-cache-entries", "0");
        try {
            AuthorizationMatrixTest.users(server);
            send(server, "admin", "PUT", "/db", null);
            send(server, "admin", "PUT", "/db/notes", null);
            assertThat(send(server, "admin", "PUT", "/db/notes/_indexes/t",
                    "{\"keys\":{\"title\":\"text\",\"text\":\"text\"},\"ops\":{\"weights\":{\"title\":10}}}").statusCode()).isEqualTo(201);
            StringBuilder docs = new StringBuilder("[");
            int id = 0;
            for (int i = 0; i < 700; i++) {
                String title = words(random, random.nextInt(3));
                String text = words(random, 3 + random.nextInt(40));
                String owner = OWNERS[random.nextInt(2)];
                for (int copies = random.nextInt(6) == 0 ? 2 + random.nextInt(5) : 1; copies > 0; copies--) {
                    docs.append(id == 0 ? "" : ",").append("{\"_id\":\"d").append(id++).append("\",\"owner\":\"").append(owner)
                            .append("\",\"n\":").append(random.nextInt(10)).append(",\"title\":\"").append(title)
                            .append("\",\"text\":\"").append(text).append("\"}");
                }
            }
            assertThat(send(server, "admin", "POST", "/db/notes", docs.append(']').toString()).statusCode()).isEqualTo(200);
            for (int i = 0; i < id; i += 1 + random.nextInt(15)) {
                assertThat(send(server, "admin", "DELETE", "/db/notes/d" + i, null).statusCode()).isIn(200, 204);
            }
            AuthorizationMatrixTest.rules(server, "admin");
            for (int k = 0; k < 60; k++) {
                StringBuilder search = new StringBuilder();
                for (int w = 1 + random.nextInt(3); w > 0; w--) {
                    search.append(search.isEmpty() ? "" : " ").append(word(random));
                }
                if (random.nextInt(6) == 0) {
                    search.append(" -").append(word(random));
                }
                String text = "\"$text\":{\"$search\":\"" + search + "\"}";
                String filter = random.nextInt(3) == 0 ? "{" + text + ",\"n\":{\"$lt\":" + (3 + random.nextInt(6)) + "}}" : "{" + text + "}";
                int pagesize = new int[] {1, 3, 10, 50}[random.nextInt(4)];
                requests.add("/db/notes?filter=" + q(filter) + "&keys=" + q("{\"owner\":1,\"s\":{\"$meta\":\"textScore\"}}")
                        + "&sort=" + q("{\"s\":{\"$meta\":\"textScore\"}}") + "&pagesize=" + pagesize + "&page=" + (1 + random.nextInt(3)));
                callers.add(random.nextInt(3) == 0 ? "alice" : "admin");
            }
            nativeAnswers = answers(server, requests, callers);
            server = server.restartWith("--result-cache-entries", "0", "--text-native-ranking", "0");
            List<String> bm25Answers = answers(server, requests, callers);
            int nonEmpty = 0;
            for (int k = 0; k < requests.size(); k++) {
                assertThat(nativeAnswers.get(k)).as("seed=" + seed + " " + callers.get(k) + " " + requests.get(k)).isEqualTo(bm25Answers.get(k));
                nonEmpty += nativeAnswers.get(k).equals("[]") ? 0 : 1;
            }
            assertThat(nonEmpty).as("seed=" + seed + ": pages with documents").isGreaterThan(30);
        } finally {
            server.close();
        }
    }

    private static List<String> answers(TestServer server, List<String> requests, List<String> callers) throws Exception {
        List<String> out = new ArrayList<>();
        for (int k = 0; k < requests.size(); k++) {
            HttpResponse<String> r = send(server, callers.get(k), "GET", requests.get(k), null);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            if (callers.get(k).equals("alice")) {
                assertThat(r.body()).doesNotContain("\"bob\"");
            }
            out.add(r.body());
        }
        return out;
    }

    /** Word k with probability about 1 / (k + 1): a few common words, many rare ones. */
    private static String word(Random random) {
        double u = random.nextDouble() * Math.log(VOCABULARY + 1);
        int k = Math.min(VOCABULARY - 1, (int) Math.exp(u) - 1);
        return "zq" + (char) ('a' + k / 26) + (char) ('a' + k % 26);
    }

    private static String words(Random random, int n) {
        StringBuilder s = new StringBuilder();
        for (int k = 0; k < n; k++) {
            s.append(k > 0 ? " " : "").append(word(random));
        }
        return s.toString();
    }
}
