package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The report of one ndjson ingest: exact counts, the lowest-numbered errors, one writing thread. */
class NdjsonIngestReportTest {

    @Test
    void aChunkReportAddsItsCountsAndKeepsTheLowestNumberedErrors() {
        NdjsonIngest.Report request = new NdjsonIngest.Report();
        for (long line = 200; line < 350; line++) {
            request.error(line, "bad " + line);
        }
        NdjsonIngest.Report chunk = new NdjsonIngest.Report();
        chunk.inserted(40);
        for (long line = 1; line <= 60; line++) {
            chunk.error(line, "conflict " + line);
        }

        request.add(chunk);

        assertThat(request.inserted()).isEqualTo(40);
        assertThat(request.failed()).isEqualTo(150 + 60);
        List<Long> lines = new ArrayList<>();
        request.errorList().forEach(e -> lines.add(e.get("line").asLong()));
        List<Long> lowest = new ArrayList<>();
        for (long line = 1; line <= 60; line++) {
            lowest.add(line);
        }
        for (long line = 200; line < 240; line++) {
            lowest.add(line);
        }
        assertThat(lines).isEqualTo(lowest);
        assertThat(request.errorList().get(0).get("message").asString()).isEqualTo("conflict 1");
    }

    /** What the ingest did before: a chunk's store thread counting into the request's report. */
    @Test
    void aReportWrittenByAnotherThreadThanItsOwnerRefuses() {
        NdjsonIngest.Report request = new NdjsonIngest.Report();

        CompletableFuture<Void> storeThread = CompletableFuture.runAsync(() -> request.inserted(1000),
                Thread.ofVirtual()::start);
        CompletableFuture<Void> storeThreadError = CompletableFuture.runAsync(() -> request.error(7, "conflict"),
                Thread.ofVirtual()::start);

        assertThatThrownBy(storeThread::join).hasCauseInstanceOf(IllegalStateException.class);
        assertThatThrownBy(storeThreadError::join).hasCauseInstanceOf(IllegalStateException.class);
        assertThat(request.inserted()).isZero();
        assertThat(request.failed()).isZero();
    }
}
