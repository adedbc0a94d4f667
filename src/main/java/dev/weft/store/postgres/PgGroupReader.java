package dev.weft.store.postgres;

import dev.weft.core.WeftException;
import dev.weft.store.sql.SqlConnection;
import java.nio.ByteBuffer;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import javax.sql.DataSource;

/**
 * Reads of single documents by id, many requests' in one statement: concurrent
 * {@code GET /db/coll/{id}} on the primary are taken by one of a few reader threads, each on a
 * connection of its own, and read with one {@code SELECT id, body FROM d<id> WHERE id = ANY(?)}
 * per collection (docs/decisions/0008-postgresql-grouped-reads.md).
 *
 * <p>Why: a read alone on a request's virtual thread costs a pool checkout (a hand-off between
 * virtual threads under load), a write and a wait on the socket through the JDK's poller, and a
 * statement for PostgreSQL's backend, each per document; a group pays each once for up to
 * {@code pg-read-group-max} documents, on a platform thread whose socket reads block in the kernel.
 *
 * <p>What a read sees is unchanged: its statement starts after the read was queued, so (as
 * autocommit READ COMMITTED takes its snapshot at the statement's start) it sees every write
 * committed before the read was asked for, on this node or any other. A statement that fails
 * because the collection's table is gone (another node dropped it) hands its reads back to their
 * requests, which run them alone with the store's catalog reload and retry; any other failure
 * (PostgreSQL down) is a 503 for every read still unanswered.
 */
final class PgGroupReader implements AutoCloseable {
    /** A read handed back to its request: it runs alone. */
    static final byte[] ALONE = null;

    /** {@code done}: the stored body, {@link SqlConnection#ABSENT} when not stored, {@link #ALONE} to run alone. */
    private record Task(String table, byte[] id, CompletableFuture<byte[]> done) {}

    private final DataSource pool;
    private final Predicate<SQLException> staleCatalog;
    private final int groupMax;
    private final BlockingQueue<Task> queue;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong statements = new AtomicLong();
    private final AtomicLong reads = new AtomicLong();
    private final GroupGather gather = new GroupGather();
    private volatile boolean closing;

    /**
     * @param pool         the readers' connections (one each)
     * @param staleCatalog whether a failed statement named a table that is gone
     */
    PgGroupReader(DataSource pool, Predicate<SQLException> staleCatalog, int readers, int queueLength, int groupMax) {
        this.pool = pool;
        this.staleCatalog = staleCatalog;
        this.groupMax = groupMax;
        this.queue = new LinkedBlockingQueue<>(queueLength);
        for (int i = 0; i < readers; i++) {
            threads.add(Thread.ofPlatform().name("weft-pg-reader-" + i).daemon(true).start(this::loop));
        }
    }

    /** The stored body of {@code id} in {@code table}, {@link SqlConnection#ABSENT}, or {@link #ALONE}. */
    byte[] read(String table, byte[] id) {
        if (closing) {
            throw new WeftException(503, "the store is closing");
        }
        Task task = new Task(table, id, new CompletableFuture<>());
        if (!queue.offer(task)) {
            throw new WeftException(503, "read queue full (limit pg-read-queue-length)");
        }
        try {
            return task.done().join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    /** Statements run so far, and the reads they answered (for tests). */
    long statements() {
        return statements.get();
    }

    long groupedReads() {
        return reads.get();
    }

    /** Makes the next group wait for {@code reads} reads, at most {@code maxMs} (for tests). */
    void gather(int reads, long maxMs) {
        gather.gather(reads, maxMs);
    }

    private void loop() {
        GroupLoop.serve(queue, () -> closing, gather, groupMax, this::run, PgGroupReader::fail, "read");
    }

    private void run(List<Task> group) {
        Map<String, List<Task>> byTable = new LinkedHashMap<>();
        for (Task t : group) {
            byTable.computeIfAbsent(t.table(), k -> new ArrayList<>()).add(t);
        }
        try (Connection c = pool.getConnection()) {
            for (Map.Entry<String, List<Task>> e : byTable.entrySet()) {
                try {
                    readTable(c, e.getKey(), e.getValue());
                } catch (SQLException ex) {
                    if (!staleCatalog.test(ex)) {
                        throw ex;
                    }
                    e.getValue().forEach(t -> t.done().complete(ALONE));
                }
            }
        } catch (SQLException e) {
            fail(group, PgFailures.unavailable("read failed", e));
        }
    }

    /** One statement for the documents of one table, each answered from its rows. */
    private void readTable(Connection c, String table, List<Task> tasks) throws SQLException {
        Set<ByteBuffer> keys = new LinkedHashSet<>();
        tasks.forEach(t -> keys.add(ByteBuffer.wrap(t.id())));
        byte[][] ids = keys.stream().map(ByteBuffer::array).toArray(byte[][]::new);
        Map<ByteBuffer, byte[]> found = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT id, body FROM " + table + " WHERE id = ANY(?)")) {
            Array array = c.createArrayOf("bytea", ids);
            ps.setArray(1, array);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    found.put(ByteBuffer.wrap(rs.getBytes(1)), rs.getBytes(2));
                }
            }
        }
        statements.incrementAndGet();
        reads.addAndGet(tasks.size());
        for (Task t : tasks) {
            t.done().complete(found.getOrDefault(ByteBuffer.wrap(t.id()), SqlConnection.ABSENT));
        }
    }

    /** Every read not answered yet gets {@code failure}. */
    private static void fail(List<Task> group, RuntimeException failure) {
        group.forEach(t -> t.done().completeExceptionally(failure));
    }

    /** Stops taking reads, answers those queued, and stops the threads. */
    @Override
    public void close() {
        closing = true;
        GroupLoop.join(threads);
    }
}
