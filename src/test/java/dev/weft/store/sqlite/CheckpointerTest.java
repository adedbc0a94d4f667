package dev.weft.store.sqlite;

import static dev.weft.store.sqlite.StoreTesting.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.query.Filter;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

class CheckpointerTest {
    private static final Namespace NS = new Namespace("db", "coll");

    @TempDir
    Path dir;

    /**
     * The writer's own checkpoint is set far above what the test writes, so every frame that
     * reaches the database file was copied by the background thread; the documents are all there
     * after a reopen.
     */
    @Test
    void theLogIsCopiedBackOffTheWriterAndNothingIsLost() throws Exception {
        try (SqliteStore store = StoreTesting.open(dir, "--sqlite-wal-pages", "1000000")) {
            store.putDatabase("db", obj("{}"), Optional.empty());
            store.putCollection(NS, obj("{}"), Optional.empty());
            for (int batch = 0; batch < 20; batch++) {
                List<ObjectNode> docs = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    docs.add(obj("{\"_id\":" + (batch * 100 + i) + ",\"text\":\"" + "x".repeat(400) + "\"}"));
                }
                assertThat(store.write(new WriteOp.InsertMany(NS, docs)).ok()).isTrue();
            }
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (store.checkpointedFrames() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(store.checkpointedFrames()).isPositive();
        }
        assertThat(Files.size(dir.resolve("weft.db"))).isGreaterThan(2000L * 400);
        try (SqliteStore reopened = StoreTesting.open(dir)) {
            assertThat(reopened.count(NS, Filter.all())).isEqualTo(2000);
        }
    }
}
