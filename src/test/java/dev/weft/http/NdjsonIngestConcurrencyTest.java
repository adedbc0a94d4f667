package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * An ndjson ingest whose two threads have lines to report at once: the store thread of one chunk
 * its conflicting lines, the request thread the bad lines of the next chunk it parses. Each keeps
 * a report of its own (NdjsonIngestReportTest shows a shared one refuses), and the answer counts
 * every line exactly.
 */
class NdjsonIngestConcurrencyTest {
    static final Json JSON = Json.standard();
    static final int CHUNKS = 4;
    static final int BAD_LINES_BETWEEN = 5;
    static TestServer weft;

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
        weft.createCollection("db", "race");
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    @Test
    void conflictsAndBadLinesReportedAtOnceAreAllCounted() throws Exception {
        StringBuilder body = new StringBuilder();
        List<Long> badLines = new ArrayList<>();
        long line = 0;
        for (int chunk = 0; chunk < CHUNKS; chunk++) {
            for (int i = 0; i < NdjsonIngest.CHUNK; i++) {
                // Every chunk after the first repeats the first one's ids: each of its lines
                // conflicts, reported by the store thread line by line.
                body.append("{\"_id\":").append(i).append("}\n");
                line++;
                if (chunk > 0) {
                    badLines.add(line);
                }
                for (int b = 0; b < BAD_LINES_BETWEEN; b++) {
                    body.append("x\n");
                    badLines.add(++line);
                }
            }
        }

        HttpResponse<String> r = weft.post("/db/race", body.toString(), "Content-Type", "application/x-ndjson");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode answer = JSON.parse(r.body(), "answer");
        assertThat(answer.get("inserted").asLong()).isEqualTo(NdjsonIngest.CHUNK);
        assertThat(answer.get("failed").asLong()).isEqualTo(badLines.size());
        List<Long> reported = new ArrayList<>();
        answer.get("errors").forEach(e -> reported.add(e.get("line").asLong()));
        assertThat(reported).isEqualTo(badLines.subList(0, NdjsonIngest.MAX_REPORTED));
    }
}
