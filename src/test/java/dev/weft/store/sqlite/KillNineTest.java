package dev.weft.store.sqlite;

import static dev.weft.store.sqlite.StoreTesting.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.query.Filter;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An acknowledged write survives kill -9: a child JVM runs concurrent writers and prints every
 * acknowledged _id; the test kills it with SIGKILL mid-load, reopens the store, and finds them all.
 */
class KillNineTest {
    private static final Namespace NS = new Namespace("db", "c");

    @TempDir
    Path dir;

    @Test
    void acknowledgedWritesSurviveKill9() throws Exception {
        StoreTesting.assumeQueryImplemented();
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                KillNineTest.class.getName(), dir.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        List<String> acknowledged = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            String line;
            while (acknowledged.size() < 400 && System.nanoTime() < deadline && (line = out.readLine()) != null) {
                if (line.startsWith("ACK ")) {
                    acknowledged.add(line.substring(4));
                }
            }
            child.destroyForcibly(); // SIGKILL while writers are still writing
            child.waitFor(30, TimeUnit.SECONDS);
        }
        assertThat(acknowledged).hasSizeGreaterThan(50);
        try (SqliteStore store = StoreTesting.open(dir)) {
            List<String> missing = new ArrayList<>();
            for (String id : acknowledged) {
                if (store.get(NS, StoreTesting.node("\"" + id + "\"")).isEmpty()) {
                    missing.add(id);
                }
            }
            assertThat(missing).as("acknowledged but lost").isEmpty();
            assertThat(store.count(NS, Filter.all())).isGreaterThanOrEqualTo(acknowledged.size());
        }
    }

    /** The child: writes until killed, printing each acknowledged _id. */
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
        SqliteStore store = StoreTesting.open(Path.of(args[0]));
        store.putDatabase("db", obj("{}"), Optional.empty());
        store.putCollection(NS, obj("{}"), Optional.empty());
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < 16; w++) {
            int writer = w;
            writers.add(Thread.ofVirtual().start(() -> {
                for (int n = 0; ; n++) {
                    String id = "w" + writer + "-" + n;
                    WriteResult r = store.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":\"" + id + "\",\"x\":" + n + "}"))));
                    if (r.ok()) {
                        synchronized (out) {
                            out.println("ACK " + id);
                        }
                    }
                }
            }));
        }
        for (Thread t : writers) {
            t.join();
        }
    }
}
