package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.OutputStream;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The SQLite store on a small filesystem of its own (a tmpfs this test mounts: it needs root,
 * and fails rather than skips without it): when the disk fills, writes answer 503 and reads go
 * on; once space is freed, writes succeed again without a restart, every acknowledged write is
 * there and no refused write is, also after a restart.
 */
class DiskFullTest {
    private static final String DOC_FILLER = "x".repeat(32 * 1024);

    Path mount;
    Path filler;

    @BeforeEach
    void mountSmallFilesystem() throws Exception {
        mount = Files.createTempDirectory("weft-tmpfs");
        run("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mount.toString());
        filler = mount.resolve("filler");
    }

    @AfterEach
    void unmount() throws Exception {
        if (mount != null) {
            run("umount", "-l", mount.toString());
            Files.deleteIfExists(mount);
        }
    }

    @Test
    void writesRecoverOnceTheFullDiskHasRoomAgain() throws Exception {
        List<String> acknowledged = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        TestServer server = new TestServer("--data", mount.resolve("data").toString());
        try {
            server.createCollection("db", "c");
            fillLeaving(2 << 20);
            int n = 0;
            while (refused.size() < 3) {
                String id = "d" + n++;
                HttpResponse<String> r = server.post("/db/c", doc(id));
                if (r.statusCode() == 201) {
                    assertThat(refused).as("a write succeeded after one was refused for lack of space").isEmpty();
                    acknowledged.add(id);
                } else {
                    assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
                    assertThat(r.body()).contains("could not be committed", "database or disk is full");
                    refused.add(id);
                }
                assertThat(n).as("the disk never filled").isLessThan(1000);
            }
            assertThat(acknowledged).isNotEmpty();
            fillUp(mount.resolve("last-bytes"));
            HttpResponse<String> full = server.post("/db/c", doc("onFullDisk"));
            assertThat(full.statusCode()).as(full.body()).isEqualTo(503);
            refused.add("onFullDisk");
            // A catalog change is a few hundred bytes: it may still fit in pages the database or its
            // write-ahead log already holds, so whether it is refused here is up to SQLite; that it
            // works again once space is back is checked below.
            HttpResponse<String> read = server.get("/db/c/" + acknowledged.getFirst());
            assertThat(read.statusCode()).as("reads go on while the disk is full: " + read.body()).isEqualTo(200);

            Files.delete(filler);
            Files.delete(mount.resolve("last-bytes"));
            assertThat(server.put("/db/other", null).statusCode()).isEqualTo(201);
            for (int i = 0; i < 5; i++) {
                String id = "after" + i;
                HttpResponse<String> r = server.post("/db/c", doc(id));
                assertThat(r.statusCode()).as("a write once space is freed: " + r.body()).isEqualTo(201);
                acknowledged.add(id);
            }
            assertWritten(server, acknowledged, refused);
            server = server.restartWith("--data", mount.resolve("data").toString());
            assertWritten(server, acknowledged, refused);
        } finally {
            server.close();
        }
    }

    private static String doc(String id) {
        return "{\"_id\":\"" + id + "\",\"body\":\"" + DOC_FILLER + "\"}";
    }

    private static void assertWritten(TestServer server, List<String> acknowledged, List<String> refused) throws Exception {
        for (String id : acknowledged) {
            HttpResponse<String> r = server.get("/db/c/" + id + "?keys=" + TestServer.q("{\"_id\":1}"));
            assertThat(r.statusCode()).as("acknowledged " + id + ": " + r.body()).isEqualTo(200);
        }
        for (String id : refused) {
            HttpResponse<String> r = server.get("/db/c/" + id);
            assertThat(r.statusCode()).as("refused " + id + ": " + r.body()).isEqualTo(404);
        }
        HttpResponse<String> size = server.get("/db/c/_size");
        assertThat(size.body()).isEqualTo("{\"_size\":" + acknowledged.size() + "}");
    }

    /** Writes a file that leaves about {@code free} bytes of the filesystem. */
    private void fillLeaving(long free) throws IOException {
        long room = Files.getFileStore(mount).getUsableSpace() - free;
        byte[] block = new byte[64 * 1024];
        try (OutputStream out = Files.newOutputStream(filler)) {
            for (long written = 0; written + block.length <= room; written += block.length) {
                out.write(block);
            }
        }
    }

    /** Takes every byte left, down to the last block. */
    private static void fillUp(Path file) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            byte[] block = new byte[4096];
            while (true) {
                out.write(block);
                out.flush();
            }
        } catch (IOException full) {
            if (!String.valueOf(full.getMessage()).contains("No space left")) {
                throw full;
            }
        }
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            fail(String.join(" ", command) + " failed (this test needs root to mount a tmpfs): "
                    + new String(p.getInputStream().readAllBytes()));
        }
    }
}
