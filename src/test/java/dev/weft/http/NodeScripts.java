package dev.weft.http;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the project's JavaScript tests (the client's under node:test, the console's in a real
 * browser) from JUnit, so {@code ./weft test} runs them. A missing tool is a failure that says how
 * to get it, never a skip: {@code scripts/test-env} installs them.
 */
final class NodeScripts {
    /** What a script printed and how it ended. */
    record Run(int exitCode, String output) {}

    private NodeScripts() {}

    /** The project's root (Maven runs tests there). */
    static Path root() {
        return Path.of(System.getProperty("basedir", "")).toAbsolutePath();
    }

    /** The {@code node} on the PATH; fails the test with what to do when there is none. */
    static String node() {
        return onPath("node").orElseThrow(() -> new AssertionError(
                "node is not installed (Node.js 18 or later is needed to test the JavaScript client and the console); "
                        + "run the tests through scripts/test-env, which installs it, or install Debian's nodejs"));
    }

    static java.util.Optional<String> onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Path.of(dir, program);
            if (Files.isExecutable(candidate)) {
                return java.util.Optional.of(candidate.toString());
            }
        }
        return java.util.Optional.empty();
    }

    /** The credentials and URL of {@code weft} as the scripts read them. */
    static Map<String, String> environment(TestServer weft) {
        return Map.of("WEFT_URL", "http://127.0.0.1:" + weft.server.port(),
                "WEFT_USER", "admin", "WEFT_PASSWORD", TestServer.ADMIN_PASSWORD);
    }

    /** Runs {@code command} in {@code dir} with {@code env} added; kills it after {@code timeoutS}. */
    static Run run(Path dir, Map<String, String> env, long timeoutS, String... command) throws Exception {
        Path log = Files.createTempFile("weft-node", ".log");
        try {
            ProcessBuilder pb = new ProcessBuilder(List.of(command)).directory(dir.toFile())
                    .redirectErrorStream(true).redirectOutput(log.toFile());
            pb.environment().putAll(env);
            Process p = pb.start();
            if (!p.waitFor(timeoutS, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly().waitFor();
                return new Run(-1, "timed out after " + timeoutS + " s\n" + read(log));
            }
            return new Run(p.exitValue(), read(log));
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private static String read(Path log) throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }

    static List<String> command(String... parts) {
        return new ArrayList<>(List.of(parts));
    }
}
