package bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a long native SQLite call (sqlite-jdbc, JNI) does to other virtual threads. A ticker
 * virtual thread sleeps 5 ms in a loop and records how late it wakes up, while K virtual threads
 * each run one CPU-bound SQLite query (a recursive CTE) through JDBC. The JDK does not compensate
 * for a carrier held by a native call, and JFR's jdk.VirtualThreadPinned does not fire for it
 * (the virtual thread never tries to park inside the native frame), so the only symptom is that
 * everything else waits. usage: PinCheck [rows]
 */
public final class PinCheck {
    public static void main(String[] args) throws Exception {
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 3_000_000L;
        int carriers = Runtime.getRuntime().availableProcessors();
        System.out.println("carriers (availableProcessors): " + carriers + ", query: recursive CTE over " + rows + " rows");
        for (int k = 0; k <= carriers; k++) {
            run(k, rows);
        }
    }

    static void run(int concurrentQueries, long rows) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong maxLateNanos = new AtomicLong();
        AtomicLong ticks = new AtomicLong();
        Thread ticker = Thread.ofVirtual().start(() -> {
            while (!stop.get()) {
                long t0 = System.nanoTime();
                try { Thread.sleep(5); } catch (InterruptedException e) { return; }
                long late = System.nanoTime() - t0 - 5_000_000L;
                maxLateNanos.accumulateAndGet(late, Math::max);
                ticks.incrementAndGet();
            }
        });
        Thread.sleep(200);
        long start = System.nanoTime();
        List<Thread> queries = new ArrayList<>();
        for (int i = 0; i < concurrentQueries; i++) {
            queries.add(Thread.ofVirtual().start(() -> {
                try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:");
                     Statement s = c.createStatement();
                     ResultSet r = s.executeQuery("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < "
                             + rows + ") SELECT sum(x) FROM n")) {
                    r.next();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            }));
        }
        for (Thread q : queries) q.join();
        if (concurrentQueries == 0) Thread.sleep(1000);
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        stop.set(true);
        ticker.join();
        System.out.printf("%d concurrent SQLite queries: took %d ms; a 5 ms sleeper on another virtual thread woke up to %d ms late%n",
                concurrentQueries, elapsedMs, maxLateNanos.get() / 1_000_000);
    }
}
