import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Issue 17, item 1: which shape of a single-document write is fastest on PostgreSQL, measured
 * with JDBC alone (no HTTP, no Weft), on tables shaped like Weft's: a document table, one index
 * table, the shared events table. Each shape writes the same rows per transaction:
 * <ul>
 * <li>statements: one statement per row plus the catalog-row share lock and COMMIT (Weft before
 *     issue 17: 5 round trips for an insert, 7 for an update);</li>
 * <li>cte: one statement with data-modifying CTEs, autocommit (1 round trip);</li>
 * <li>pipeline: the same rows as separate statements in one protocol message burst (one Sync),
 *     autocommit: PostgreSQL runs them as one implicit transaction (1 round trip);</li>
 * <li>function: one call of a PL/pgSQL function that writes the rows with dynamic SQL (1 round trip).</li>
 * </ul>
 * Updates: a read of the row under FOR UPDATE, then the rows; "statements" as before issue 17,
 * "pipeline" as the read then one burst that also carries COMMIT (2 round trips).
 * usage: java -cp postgresql.jar bench/lib/PgWriteShapes.java JDBC_URL THREADS SECONDS
 */
public class PgWriteShapes {
    static String url;

    public static void main(String[] args) throws Exception {
        url = args[0];
        int threads = Integer.parseInt(args[1]);
        int seconds = Integer.parseInt(args[2]);
        setup();
        System.out.printf("%-22s %9s %9s%n", "shape", "writes/s", "mean_ms");
        for (String shape : List.of("insert statements", "insert cte", "insert pipeline", "insert function",
                "update statements", "update pipeline", "insert statements")) {
            run(shape, threads, seconds);
        }
    }

    static Connection connect() throws SQLException {
        return DriverManager.getConnection(url);
    }

    static void setup() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS s_colls, s_d, s_i, s_ev");
            s.execute("CREATE TABLE s_colls(id bigint PRIMARY KEY, gen bigint NOT NULL)");
            s.execute("INSERT INTO s_colls VALUES (1, 0)");
            s.execute("CREATE TABLE s_d(id bytea PRIMARY KEY, body bytea NOT NULL, doc jsonb NOT NULL)");
            s.execute("CREATE TABLE s_i(key bytea NOT NULL, id bytea NOT NULL, PRIMARY KEY(key, id))");
            s.execute("CREATE TABLE s_ev(id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, seq bigint UNIQUE,"
                    + " at bigint NOT NULL, db text NOT NULL, coll text NOT NULL, op smallint NOT NULL, key bytea NOT NULL,"
                    + " doc bytea, pre bytea, upd bytea)");
            s.execute("CREATE OR REPLACE FUNCTION s_insert(d text, i text, g bigint, did bytea, body text, k bytea)"
                    + " RETURNS int LANGUAGE plpgsql AS $$ BEGIN"
                    + " PERFORM 1 FROM s_colls WHERE id = 1 AND gen = g; IF NOT FOUND THEN RETURN 0; END IF;"
                    + " EXECUTE format('INSERT INTO %I(id, body, doc) VALUES ($1, convert_to($2, ''UTF8''), $2::jsonb)', d) USING did, body;"
                    + " EXECUTE format('INSERT INTO %I(key, id) VALUES ($1, $2)', i) USING k, did;"
                    + " INSERT INTO s_ev(at, db, coll, op, key, doc) VALUES (0, 'db', 'c', 0, did, convert_to(body, 'UTF8'));"
                    + " RETURN 1; END $$");
            // rows for the updates
            s.execute("INSERT INTO s_d SELECT ('u' || n)::bytea, convert_to(b, 'UTF8'), b::jsonb FROM"
                    + " (SELECT n, '{\"_id\":\"u' || n || '\",\"f\":\"' || repeat('x', 1000) || '\"}' AS b FROM generate_series(1, 10000) n) t");
        }
    }

    static String body(String id) {
        return "{\"_id\":\"" + id + "\",\"f\":\"" + "y".repeat(1000) + "\"}";
    }

    static void run(String shape, int threads, int seconds) throws Exception {
        AtomicLong done = new AtomicLong();
        AtomicLong nanos = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong ids = new AtomicLong(System.nanoTime());
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            ts.add(Thread.ofPlatform().start(() -> {
                try (Connection c = connect()) {
                    Shape s = shape(shape, c);
                    while (!stop.get()) {
                        long t0 = System.nanoTime();
                        s.write(Long.toString(ids.incrementAndGet(), 36));
                        nanos.addAndGet(System.nanoTime() - t0);
                        done.incrementAndGet();
                    }
                } catch (SQLException e) {
                    throw new RuntimeException(e);
                }
            }));
        }
        Thread.sleep(seconds * 1000L);
        stop.set(true);
        for (Thread t : ts) {
            t.join();
        }
        System.out.printf("%-22s %9.0f %9.2f%n", shape, done.get() / (double) seconds, nanos.get() / 1e6 / Math.max(1, done.get()));
    }

    interface Shape {
        void write(String id) throws SQLException;
    }

    static final String EVENT = "INSERT INTO s_ev(at, db, coll, op, key, doc, pre) VALUES (0, 'db', 'c', ?, ?, ?, ?)";

    static Shape shape(String name, Connection c) throws SQLException {
        return switch (name) {
            case "insert statements" -> id -> {
                c.setAutoCommit(false);
                PreparedStatement lock = c.prepareStatement("SELECT gen FROM s_colls WHERE id = 1 FOR SHARE");
                lock.executeQuery().close();
                PreparedStatement d = c.prepareStatement("INSERT INTO s_d(id, body, doc) VALUES (?, convert_to(?, 'UTF8'), ?::jsonb)");
                d.setBytes(1, id.getBytes());
                d.setString(2, body(id));
                d.setString(3, body(id));
                d.executeUpdate();
                PreparedStatement k = c.prepareStatement("INSERT INTO s_i(key, id) VALUES (?, ?)");
                k.setBytes(1, ("k" + id).getBytes());
                k.setBytes(2, id.getBytes());
                k.executeUpdate();
                PreparedStatement e = c.prepareStatement(EVENT);
                e.setInt(1, 0);
                e.setBytes(2, id.getBytes());
                e.setBytes(3, body(id).getBytes());
                e.setBytes(4, null);
                e.executeUpdate();
                c.commit();
            };
            case "insert cte" -> {
                PreparedStatement ps = c.prepareStatement("WITH g AS (SELECT 1 FROM s_colls WHERE id = 1 AND gen = ?),"
                        + " d AS (INSERT INTO s_d(id, body, doc) SELECT ?, convert_to(?, 'UTF8'), ?::jsonb FROM g RETURNING id),"
                        + " k AS (INSERT INTO s_i(key, id) SELECT ?, id FROM d),"
                        + " e AS (INSERT INTO s_ev(at, db, coll, op, key, doc) SELECT 0, 'db', 'c', 0, id, ? FROM d)"
                        + " SELECT count(*) FROM d");
                yield id -> {
                    ps.setLong(1, 0);
                    ps.setBytes(2, id.getBytes());
                    ps.setString(3, body(id));
                    ps.setString(4, body(id));
                    ps.setBytes(5, ("k" + id).getBytes());
                    ps.setBytes(6, body(id).getBytes());
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                    }
                };
            }
            case "insert pipeline" -> {
                PreparedStatement ps = c.prepareStatement("INSERT INTO s_d(id, body, doc) SELECT ?, convert_to(?, 'UTF8'), ?::jsonb"
                        + " WHERE EXISTS (SELECT 1 FROM s_colls WHERE id = 1 AND gen = ?);"
                        + " INSERT INTO s_i(key, id) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM s_colls WHERE id = 1 AND gen = ?);"
                        + EVENT);
                yield id -> {
                    ps.setBytes(1, id.getBytes());
                    ps.setString(2, body(id));
                    ps.setString(3, body(id));
                    ps.setLong(4, 0);
                    ps.setBytes(5, ("k" + id).getBytes());
                    ps.setBytes(6, id.getBytes());
                    ps.setLong(7, 0);
                    ps.setInt(8, 0);
                    ps.setBytes(9, id.getBytes());
                    ps.setBytes(10, body(id).getBytes());
                    ps.setBytes(11, null);
                    ps.execute();
                };
            }
            case "insert function" -> {
                PreparedStatement ps = c.prepareStatement("SELECT s_insert('s_d', 's_i', 0, ?, ?, ?)");
                yield id -> {
                    ps.setBytes(1, id.getBytes());
                    ps.setString(2, body(id));
                    ps.setBytes(3, ("k" + id).getBytes());
                    ps.executeQuery().close();
                };
            }
            case "update statements" -> id -> {
                byte[] key = ("u" + (1 + ThreadLocalRandom.current().nextInt(10000))).getBytes();
                c.setAutoCommit(false);
                c.prepareStatement("SELECT gen FROM s_colls WHERE id = 1 FOR SHARE").executeQuery().close();
                PreparedStatement r = c.prepareStatement("SELECT body FROM s_d WHERE id = ? FOR UPDATE");
                r.setBytes(1, key);
                byte[] old;
                try (ResultSet rs = r.executeQuery()) {
                    rs.next();
                    old = rs.getBytes(1);
                }
                PreparedStatement u = c.prepareStatement("UPDATE s_d SET body = convert_to(?, 'UTF8'), doc = ?::jsonb WHERE id = ?");
                String b = new String(old).replace("\"f\"", "\"f\"");
                u.setString(1, b);
                u.setString(2, b);
                u.setBytes(3, key);
                u.executeUpdate();
                PreparedStatement dk = c.prepareStatement("DELETE FROM s_i WHERE id = ? AND key = ANY(?::bytea[])");
                dk.setBytes(1, key);
                dk.setArray(2, c.createArrayOf("bytea", new byte[][] {"x".getBytes()}));
                dk.executeUpdate();
                PreparedStatement e = c.prepareStatement(EVENT);
                e.setInt(1, 2);
                e.setBytes(2, key);
                e.setBytes(3, b.getBytes());
                e.setBytes(4, old);
                e.executeUpdate();
                c.commit();
            };
            case "update pipeline" -> {
                PreparedStatement r = c.prepareStatement("SELECT body FROM s_d WHERE id = ? FOR UPDATE");
                PreparedStatement w = c.prepareStatement("UPDATE s_d SET body = convert_to(?, 'UTF8'), doc = ?::jsonb WHERE id = ?"
                        + " AND EXISTS (SELECT 1 FROM s_colls WHERE id = 1 AND gen = ?);"
                        + " DELETE FROM s_i WHERE id = ? AND key = ANY(?::bytea[]);" + EVENT + "; COMMIT");
                yield id -> {
                    byte[] key = ("u" + (1 + ThreadLocalRandom.current().nextInt(10000))).getBytes();
                    c.setAutoCommit(false);
                    r.setBytes(1, key);
                    byte[] old;
                    try (ResultSet rs = r.executeQuery()) {
                        rs.next();
                        old = rs.getBytes(1);
                    }
                    String b = new String(old);
                    w.setString(1, b);
                    w.setString(2, b);
                    w.setBytes(3, key);
                    w.setLong(4, 0);
                    w.setBytes(5, key);
                    w.setArray(6, c.createArrayOf("bytea", new byte[][] {"x".getBytes()}));
                    w.setInt(7, 2);
                    w.setBytes(8, key);
                    w.setBytes(9, b.getBytes());
                    w.setBytes(10, old);
                    w.execute();
                };
            }
            default -> throw new IllegalArgumentException(name);
        };
    }
}
