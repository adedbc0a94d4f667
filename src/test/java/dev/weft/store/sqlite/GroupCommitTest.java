package dev.weft.store.sqlite;

import static dev.weft.store.sqlite.StoreTesting.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.query.Filter;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GroupCommitTest {
    @TempDir
    Path dir;

    @Test
    void concurrentSingleWritesShareCommits() throws Exception {
        StoreTesting.assumeQueryImplemented();
        Namespace ns = new Namespace("db", "c");
        int writers = 500;
        try (SqliteStore store = StoreTesting.open(dir)) {
            store.putDatabase("db", obj("{}"), Optional.empty());
            store.putCollection(ns, obj("{}"), Optional.empty());
            long before = store.commits();
            List<Future<WriteResult>> results = new ArrayList<>();
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < writers; i++) {
                    int n = i;
                    results.add(pool.submit(() -> store.write(new WriteOp.InsertMany(ns,
                            List.of(obj("{\"_id\":" + n + ", \"v\":\"" + "x".repeat(100) + "\"}"))))));
                }
            }
            for (Future<WriteResult> r : results) {
                assertThat(r.get().outcome()).isEqualTo(WriteResult.Outcome.CREATED);
            }
            long commits = store.commits() - before;
            assertThat(commits).isLessThan(writers);
            assertThat(store.count(ns, Filter.all())).isEqualTo(writers);
            for (int i = 0; i < writers; i++) {
                assertThat(store.get(ns, StoreTesting.node(String.valueOf(i)))).isPresent();
            }
        }
    }

    @Test
    void fullQueueIsRefusedWith503() {
        StoreTesting.assumeQueryImplemented();
        Namespace ns = new Namespace("db", "c");
        try (SqliteStore store = StoreTesting.open(dir, "--write-queue-length", "1", "--write-batch-max", "1")) {
            store.putDatabase("db", obj("{}"), Optional.empty());
            store.putCollection(ns, obj("{}"), Optional.empty());
            List<Integer> statuses = java.util.Collections.synchronizedList(new ArrayList<>());
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < 200; i++) {
                    int n = i;
                    pool.submit(() -> {
                        try {
                            store.write(new WriteOp.InsertMany(ns, List.of(obj("{\"_id\":" + n + "}"))));
                            statuses.add(200);
                        } catch (dev.weft.core.WeftException e) {
                            statuses.add(e.status());
                        }
                    });
                }
            }
            assertThat(statuses).hasSize(200).containsOnly(200, 503).contains(503);
            assertThat(store.count(ns, Filter.all())).isEqualTo(statuses.stream().filter(s -> s == 200).count());
        }
    }
}
