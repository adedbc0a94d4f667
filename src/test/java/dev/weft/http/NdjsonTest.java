package dev.weft.http;

import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class NdjsonTest {
    static TestServer weft;
    static final Json JSON = Json.standard();

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer("--max-ndjson-line-bytes", "200");
        weft.createCollection("db", "lines");
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    @Test
    void ingestReportsBadLinesAndKeepsGoodOnes() throws Exception {
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < 2500; i++) {
            body.append("{\"_id\":").append(i).append(",\"v\":").append(i % 7).append("}\n");
        }
        body.append("not json\n");                       // line 2501
        body.append("[1,2]\n");                          // line 2502
        body.append("{\"_id\":5}\n");                    // line 2503: duplicate
        body.append("{\"big\":\"").append("x".repeat(300)).append("\"}\n"); // line 2504: too long
        body.append("\n");                               // blank lines are skipped
        body.append("{\"_id\":\"last\"}");               // no final newline
        HttpResponse<String> r = weft.post("/db/lines", body.toString(), "Content-Type", "application/x-ndjson");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode answer = JSON.parse(r.body(), "answer");
        assertThat(answer.get("inserted").asLong()).isEqualTo(2501);
        assertThat(answer.get("failed").asLong()).isEqualTo(4);
        StringBuilder lines = new StringBuilder();
        answer.get("errors").forEach(e -> lines.append(e.get("line").asLong()).append(' '));
        assertThat(lines.toString().trim()).isEqualTo("2501 2502 2503 2504");
        assertThat(JSON.parse(weft.get("/db/lines/_size").body(), "size").get("_size").asLong()).isEqualTo(2501);
    }

    @Test
    void exportStreamsEveryMatchWithoutThePageLimit() throws Exception {
        weft.createCollection("db", "export");
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < 1500; i++) {
            body.append("{\"_id\":").append(i).append(",\"even\":").append(i % 2 == 0).append("}\n");
        }
        weft.post("/db/export", body.toString(), "Content-Type", "application/x-ndjson");
        HttpRequest request = weft.request("/db/export?filter=" + q("{\"even\":true}"))
                .header("Accept", "application/x-ndjson").build();
        HttpResponse<InputStream> r = weft.client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/x-ndjson");
        String[] lines;
        try (InputStream in = r.body()) {
            lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n");
        }
        assertThat(lines).hasSize(750);
        assertThat(JSON.parse(lines[0], "line").get("_id").asInt()).isEqualTo(1498);
        assertThat(JSON.parse(lines[749], "line").get("_id").asInt()).isEqualTo(0);
    }
}
