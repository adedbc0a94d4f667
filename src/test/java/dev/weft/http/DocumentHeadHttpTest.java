package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Counts, unindexed sorts and {@code $group}s over documents whose fields are small in some,
 * large or nested in others, missing in others: on SQLite counts and {@code $group}s read each
 * row from its head (docs/decisions/0009-document-head.md, a budget of 64 bytes here) where the
 * head can stand for it (sorts read bodies), split into parts
 * from 50 documents on. The answers are the documents' own, and a
 * restricted user sees only hers: a readFilter on a field the heads hold (notes' owner) and on
 * one they cannot (teams' team.name, in a large object), with projectResponse.
 */
class DocumentHeadHttpTest {
    private static final Json JSON = Json.standard();
    static TestServer server;
    static final List<Map<String, Object>> NOTES = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer("--document-head-bytes", "64", "--scan-split-min-rows", "50");
        AuthorizationMatrixTest.users(server);
        send(server, "admin", "PUT", "/db", null);
        send(server, "admin", "PUT", "/db/notes", null);
        send(server, "admin", "PUT", "/db/teams", null);
        StringBuilder notes = new StringBuilder("[");
        StringBuilder teams = new StringBuilder("[");
        for (int i = 0; i < 120; i++) {
            String owner = i % 3 == 0 ? "alice" : "bob";
            // n: a small number, a large string, a nested object or missing; secret sometimes large
            String n = switch (i % 4) {
                case 0, 1 -> String.valueOf(i * 37 % 101);
                case 2 -> "{\"v\":" + i + ",\"pad\":\"" + "p".repeat(80) + "\"}";
                default -> null;
            };
            String secret = i % 5 == 0 ? "\"" + "s".repeat(120) + "\"" : "\"s" + i + "\"";
            notes.append(i == 0 ? "" : ",").append("{\"_id\":\"n").append(i).append("\",\"owner\":\"").append(owner)
                    .append("\",\"g\":").append(i % 7).append(",\"secret\":").append(secret)
                    .append(n == null ? "" : ",\"n\":" + n).append("}");
            NOTES.add(Map.of("i", i, "owner", owner, "g", i % 7, "n", n == null ? "missing" : n));
            teams.append(i == 0 ? "" : ",").append("{\"_id\":\"t").append(i).append("\",\"k\":").append(i % 11)
                    .append(",\"secret\":\"x").append(i).append("\",\"team\":{\"name\":\"").append(owner)
                    .append("\",\"bio\":\"").append("b".repeat(100)).append("\"}}");
        }
        assertThat(send(server, "admin", "POST", "/db/notes", notes.append("]").toString()).statusCode()).isEqualTo(200);
        assertThat(send(server, "admin", "POST", "/db/teams", teams.append("]").toString()).statusCode()).isEqualTo(200);
        send(server, "admin", "POST", "/weft/acl", """
                [{"_id":"notes-read","roles":["user"],"priority":10,
                  "predicate":"path-prefix('/db/notes') and method(GET)",
                  "readFilter":{"owner":"@user._id"},"projectResponse":{"secret":0}},
                 {"_id":"teams-read","roles":["user"],"priority":10,
                  "predicate":"path-prefix('/db/teams') and method(GET)",
                  "readFilter":{"team.name":"@user._id"},"projectResponse":{"secret":0}},
                 {"_id":"notes-adhoc","roles":["user"],"priority":20,
                  "predicate":"path('/db/notes/_aggrs') and method(POST)",
                  "readFilter":{"owner":"@user._id"},"projectResponse":{"secret":0},"allowAdhocAggregations":true}]""");
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static JsonNode get(String who, String path) throws Exception {
        HttpResponse<String> r = send(server, who, "GET", path, null);
        assertThat(r.statusCode()).as(path + " " + r.body()).isEqualTo(200);
        return JSON.parse(r.body(), "answer");
    }

    private static List<String> ids(JsonNode page) {
        List<String> out = new ArrayList<>();
        page.forEach(d -> out.add(d.get("_id").asText()));
        return out;
    }

    /** The notes {@code who} may read, sorted by n descending as MongoDB orders its types (objects over numbers over missing), then _id. */
    private static List<String> byNDescending(String who) {
        Comparator<Map<String, Object>> rank = Comparator.comparingInt(d -> {
            String n = (String) d.get("n");
            return n.equals("missing") ? 0 : n.startsWith("{") ? 2 : 1;
        });
        Comparator<Map<String, Object>> within = Comparator.comparingInt(d -> {
            String n = (String) d.get("n");
            return n.equals("missing") ? 0 : n.startsWith("{") ? (Integer) d.get("i") : Integer.parseInt(n);
        });
        return NOTES.stream().filter(d -> who.equals("admin") || d.get("owner").equals(who))
                .sorted(rank.thenComparing(within).reversed().thenComparing(d -> "n" + d.get("i")))
                .map(d -> "n" + d.get("i")).toList();
    }

    @Test
    void anUnindexedSortCountsAndGroupsAnswerAsTheDocumentsDo() throws Exception {
        // ties: objects {"v":i,...} compare by v, which is i; _id ascending breaks the rest
        List<String> expected = byNDescending("admin");
        assertThat(ids(get("admin", "/db/notes?sort=" + q("{\"n\":-1}") + "&pagesize=7&page=2"))).isEqualTo(expected.subList(7, 14));
        long withNumbers = NOTES.stream().filter(d -> !d.get("n").equals("missing") && !((String) d.get("n")).startsWith("{")
                && Integer.parseInt((String) d.get("n")) > 50).count();
        assertThat(get("admin", "/db/notes/_size?filter=" + q("{\"n\":{\"$gt\":50}}")).get("_size").asLong()).isEqualTo(withNumbers);
        assertThat(get("admin", "/db/notes/_size?filter=" + q("{\"n\":{\"$exists\":false}}")).get("_size").asLong()).isEqualTo(30);
        assertThat(get("admin", "/db/notes/_size?filter=" + q("{\"n.v\":{\"$gte\":60}}")).get("_size").asLong()).isEqualTo(15);
        Map<Integer, Integer> perG = new TreeMap<>();
        NOTES.forEach(d -> perG.merge((Integer) d.get("g"), 1, Integer::sum));
        HttpResponse<String> grouped = send(server, "admin", "POST", "/db/notes/_aggrs",
                "[{\"$group\":{\"_id\":\"$g\",\"n\":{\"$sum\":1},\"big\":{\"$sum\":{\"$strLenCP\":{\"$ifNull\":[\"$secret\",\"\"]}}}}},{\"$sort\":{\"_id\":1}}]");
        assertThat(grouped.statusCode()).as(grouped.body()).isEqualTo(200);
        JsonNode groups = JSON.parse(grouped.body(), "groups");
        assertThat(groups.size()).isEqualTo(7);
        for (JsonNode g : groups) {
            int key = g.get("_id").asInt();
            assertThat(g.get("n").asInt()).isEqualTo(perG.get(key));
            int secretChars = NOTES.stream().filter(d -> d.get("g").equals(key))
                    .mapToInt(d -> (Integer) d.get("i") % 5 == 0 ? 120 : ("s" + d.get("i")).length()).sum();
            assertThat(g.get("big").asInt()).isEqualTo(secretChars);
        }
    }

    @Test
    void aRestrictedUserSeesOnlyHerDocumentsWhetherHerRulesFieldIsInTheHeadOrNot() throws Exception {
        // notes: the rule's owner is in every head
        JsonNode page = get("alice", "/db/notes?sort=" + q("{\"n\":-1}") + "&pagesize=100");
        assertThat(ids(page)).isEqualTo(byNDescending("alice"));
        page.forEach(d -> assertThat(d.has("secret")).isFalse());
        assertThat(get("alice", "/db/notes/_size").get("_size").asLong()).isEqualTo(40);
        assertThat(get("bob", "/db/notes/_size?filter=" + q("{\"n\":{\"$exists\":false}}")).get("_size").asLong()).isEqualTo(20);
        HttpResponse<String> grouped = send(server, "alice", "POST", "/db/notes/_aggrs",
                "[{\"$group\":{\"_id\":\"$owner\",\"n\":{\"$sum\":1},\"g\":{\"$sum\":\"$g\"}}}]");
        int herG = NOTES.stream().filter(d -> d.get("owner").equals("alice")).mapToInt(d -> (Integer) d.get("g")).sum();
        assertThat(grouped.body()).isEqualTo("[{\"_id\":\"alice\",\"n\":40,\"g\":" + herG + "}]");
        assertThat(send(server, "alice", "POST", "/db/notes/_aggrs",
                "[{\"$group\":{\"_id\":null,\"s\":{\"$max\":\"$secret\"}}}]").statusCode()).isEqualTo(403);
        // teams: the rule's team.name lies in a 100-byte object no 64-byte head holds
        JsonNode teams = get("alice", "/db/teams?sort=" + q("{\"k\":-1}") + "&pagesize=100");
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 120; i += 3) {
            expected.add("t" + i);
        }
        expected.sort(Comparator.comparingInt((String t) -> Integer.parseInt(t.substring(1)) % 11).reversed()
                .thenComparing(Comparator.naturalOrder()));
        assertThat(ids(teams)).isEqualTo(expected);
        teams.forEach(d -> {
            assertThat(d.get("team").get("name").asText()).isEqualTo("alice");
            assertThat(d.has("secret")).isFalse();
        });
        assertThat(get("bob", "/db/teams/_size?filter=" + q("{\"k\":{\"$lt\":3}}")).get("_size").asLong())
                .isEqualTo(java.util.stream.IntStream.range(0, 120).filter(i -> i % 3 != 0 && i % 11 < 3).count());
    }
}
