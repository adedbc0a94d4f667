package bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.LongAdder;

/** What every candidate shares: the payload, and a count of which kind of thread ran the handler. */
final class Common {
    static final LongAdder VIRTUAL = new LongAdder();
    static final LongAdder PLATFORM = new LongAdder();

    static int port(String[] args) { return Integer.parseInt(args[0]); }

    static byte[] payload(String[] args) throws IOException { return Files.readAllBytes(Path.of(args[1])); }

    /** Called at the top of every handler invocation. */
    static void countThread() {
        (Thread.currentThread().isVirtual() ? VIRTUAL : PLATFORM).increment();
    }

    static byte[] threadsReport() {
        return ("{\"virtual\":" + VIRTUAL.sum() + ",\"platform\":" + PLATFORM.sum() + "}").getBytes();
    }

    static void started(String name, int port) {
        System.err.println(name + " listening on 127.0.0.1:" + port + " (pid " + ProcessHandle.current().pid() + ", "
                + Runtime.version() + ")");
    }

    private Common() {}
}
