import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Issue 17, item 2: change events without a global lock, two ways, measured with JDBC alone on
 * tables shaped like Weft's. Writers insert a 1 KB document and its event row in one burst (one
 * round trip, as Weft does since decision 0004); one reader turns committed events into an
 * ordered log:
 * <ul>
 * <li>sequencer: numbering after commit (decision 0003, option c): the reader numbers every
 *     event without a seq, in id order, under an advisory lock, in one statement, and commits;</li>
 * <li>decoding: logical decoding (pgoutput, a publication on the events table only, one slot),
 *     read through pg_logical_slot_get_binary_changes: the commit LSN orders the events, the
 *     rows are not touched again.</li>
 * <li>none: no reader, the writers alone (the reference).</li>
 * </ul>
 * Prints writer commits/s, events the reader ordered per second, and how long the reader took
 * to catch up once the writers stopped. Needs wal_level=logical for "decoding".
 * usage: java -cp postgresql.jar bench/lib/PgEventShapes.java JDBC_URL THREADS SECONDS
 */
public class PgEventShapes {
    static String url;

    public static void main(String[] args) throws Exception {
        url = args[0];
        int threads = Integer.parseInt(args[1]);
        int seconds = Integer.parseInt(args[2]);
        System.out.printf("%-10s %10s %14s %12s%n", "reader", "writes/s", "ordered/s", "catchup_ms");
        for (String reader : List.of("none", "sequencer", "decoding", "sequencer", "decoding", "none")) {
            setup(reader);
            run(reader, threads, seconds);
        }
    }

    static Connection connect() throws SQLException {
        return DriverManager.getConnection(url);
    }

    static void setup(String reader) throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'e_slot'")) {
                rs.next();
                if (rs.getLong(1) > 0) {
                    s.execute("SELECT pg_drop_replication_slot('e_slot')");
                }
            }
            s.execute("DROP PUBLICATION IF EXISTS e_pub");
            s.execute("DROP TABLE IF EXISTS e_d, e_ev, e_log");
            s.execute("CREATE TABLE e_d(id bytea PRIMARY KEY, body bytea NOT NULL, doc jsonb NOT NULL)");
            s.execute("CREATE TABLE e_ev(id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, seq bigint UNIQUE,"
                    + " at bigint NOT NULL, db text NOT NULL, coll text NOT NULL, op smallint NOT NULL, key bytea NOT NULL,"
                    + " doc bytea, pre bytea, upd bytea)");
            s.execute("CREATE INDEX e_unsequenced ON e_ev(id) WHERE seq IS NULL");
            s.execute("CREATE TABLE e_log(name text PRIMARY KEY, value bigint NOT NULL)");
            s.execute("INSERT INTO e_log VALUES ('seq', 0)");
            if (reader.equals("decoding")) {
                s.execute("CREATE PUBLICATION e_pub FOR TABLE e_ev WITH (publish = 'insert')");
                s.execute("SELECT pg_create_logical_replication_slot('e_slot', 'pgoutput')");
            }
        }
    }

    static final String SEQUENCE = "WITH todo AS (SELECT id, row_number() OVER (ORDER BY id) AS rn FROM"
            + " (SELECT id FROM e_ev WHERE seq IS NULL ORDER BY id LIMIT 10000) t),"
            + " top AS (SELECT value FROM e_log WHERE name = 'seq'),"
            + " done AS (UPDATE e_ev e SET seq = top.value + todo.rn FROM todo, top WHERE e.id = todo.id RETURNING e.seq),"
            + " bump AS (UPDATE e_log SET value = (SELECT max(seq) FROM done) WHERE name = 'seq' AND EXISTS (SELECT 1 FROM done))"
            + " SELECT count(*) FROM done";

    /** Orders what committed since the last call; returns how many events. */
    interface Reader {
        long order() throws SQLException;
    }

    static Reader reader(String name, Connection c) throws SQLException {
        return switch (name) {
            case "sequencer" -> {
                c.setAutoCommit(false);
                PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(7)");
                PreparedStatement seq = c.prepareStatement(SEQUENCE);
                yield () -> {
                    lock.execute();
                    long n;
                    try (ResultSet rs = seq.executeQuery()) {
                        rs.next();
                        n = rs.getLong(1);
                    }
                    c.commit();
                    return n;
                };
            }
            case "decoding" -> {
                // one message per change: 'I' (insert) messages are the events; B/C frame each transaction
                PreparedStatement get = c.prepareStatement("SELECT count(*) FILTER (WHERE get_byte(data, 0) = 73)"
                        + " FROM pg_logical_slot_get_binary_changes('e_slot', NULL, 10000, 'proto_version', '1', 'publication_names', 'e_pub')");
                yield () -> {
                    try (ResultSet rs = get.executeQuery()) {
                        rs.next();
                        return rs.getLong(1);
                    }
                };
            }
            default -> () -> 0;
        };
    }

    static void run(String readerName, int threads, int seconds) throws Exception {
        AtomicLong written = new AtomicLong();
        AtomicLong ordered = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean readerStop = new AtomicBoolean();
        AtomicLong ids = new AtomicLong(System.nanoTime());
        String body = "{\"f\":\"" + "y".repeat(1000) + "\"}";
        List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            writers.add(Thread.ofPlatform().start(() -> {
                try (Connection c = connect()) {
                    c.setAutoCommit(false);
                    PreparedStatement w = c.prepareStatement("INSERT INTO e_d(id, body, doc) VALUES (?, convert_to(?, 'UTF8'), ?::jsonb);"
                            + " INSERT INTO e_ev(at, db, coll, op, key, doc) VALUES ((extract(epoch from clock_timestamp()) * 1000)::bigint,"
                            + " 'db', 'c', 0, ?, ?); COMMIT");
                    while (!stop.get()) {
                        byte[] id = Long.toString(ids.incrementAndGet(), 36).getBytes();
                        w.setBytes(1, id);
                        w.setString(2, body);
                        w.setString(3, body);
                        w.setBytes(4, id);
                        w.setBytes(5, body.getBytes());
                        w.execute();
                        written.incrementAndGet();
                    }
                } catch (SQLException e) {
                    throw new RuntimeException(e);
                }
            }));
        }
        Thread reader = Thread.ofPlatform().start(() -> {
            try (Connection c = connect()) {
                Reader r = reader(readerName, c);
                while (!readerStop.get()) {
                    long n = r.order();
                    ordered.addAndGet(n);
                    if (n == 0) {
                        Thread.sleep(1); // woken by a commit in Weft; here a short poll
                    }
                }
            } catch (SQLException | InterruptedException e) {
                throw new RuntimeException(e);
            }
        });
        Thread.sleep(seconds * 1000L);
        stop.set(true);
        for (Thread t : writers) {
            t.join();
        }
        long orderedAtStop = ordered.get();
        long t0 = System.nanoTime();
        long catchup = 0;
        if (!readerName.equals("none")) {
            while (ordered.get() < written.get() && System.nanoTime() - t0 < 60_000_000_000L) {
                Thread.sleep(1);
            }
            catchup = (System.nanoTime() - t0) / 1_000_000;
        }
        readerStop.set(true);
        reader.join();
        System.out.printf("%-10s %10.0f %14.0f %12d%n", readerName, written.get() / (double) seconds,
                orderedAtStop / (double) seconds, catchup);
    }
}
