package dev.weft;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Weft as a separate operating-system process (the same main class {@code ./weft start} runs),
 * for tests that kill or signal the server. Port 0 picks a free port, read back from the log
 * line that says where Weft listens.
 */
public final class WeftProcess implements AutoCloseable {
    /** The admin password every test process starts with (through WEFT_ADMIN_PASSWORD). */
    public static final String ADMIN_PASSWORD = "process-Admin-password-1";
    public static final String ADMIN = "Basic " + java.util.Base64.getEncoder()
            .encodeToString(("admin:" + ADMIN_PASSWORD).getBytes(StandardCharsets.UTF_8));

    private static final Pattern LISTENING = Pattern.compile("listening on http://[^:]+:(\\d+)");

    private final Process process;
    private final int port;
    private final StringBuffer log = new StringBuffer();

    public WeftProcess(Path data, String... settings) throws Exception {
        this(data, java.util.Map.of("WEFT_ADMIN_PASSWORD", ADMIN_PASSWORD), settings);
    }

    /** With {@code env} added to the process environment (a lower bcrypt cost is always added). */
    public WeftProcess(Path data, java.util.Map<String, String> env, String... settings) throws Exception {
        process = builder(data, env, settings).start();
        CompletableFuture<Integer> listening = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    log.append(line).append('\n');
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        listening.complete(Integer.parseInt(m.group(1)));
                    }
                }
            } catch (IOException ignored) {
                // the process went away; waitFor tells the rest
            }
            listening.completeExceptionally(new IllegalStateException("weft exited before listening:\n" + log));
        });
        port = listening.get(60, TimeUnit.SECONDS);
    }

    private static ProcessBuilder builder(Path data, java.util.Map<String, String> env, String... settings) {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-Xmx512m",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "--port", "0", "--data", data.toString()));
        command.addAll(List.of(settings));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("WEFT_BCRYPT_COST", "4");
        builder.environment().putAll(env);
        return builder;
    }

    /** How a start that was to fail ended: the exit code and everything Weft printed. */
    public record Exited(int code, String log) {}

    /** Runs Weft until it exits by itself (at most 60 s), for starts that must be refused. */
    public static Exited runToExit(Path data, String... settings) throws Exception {
        Process p = builder(data, java.util.Map.of("WEFT_ADMIN_PASSWORD", ADMIN_PASSWORD), settings).start();
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
            try (var in = p.getInputStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        });
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("weft did not exit within 60 s:\n" + output.getNow(""));
        }
        return new Exited(p.exitValue(), output.get(10, TimeUnit.SECONDS));
    }

    public int port() {
        return port;
    }

    public String base() {
        return "http://127.0.0.1:" + port;
    }

    public String log() {
        return log.toString();
    }

    /** SIGKILL: no shutdown hook, no flush; only what was durable survives. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** Sends SIGTERM and returns at once. */
    public void sigterm() {
        process.destroy();
    }

    /** SIGTERM, then the exit code once the process has stopped. */
    public int terminate() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("weft did not stop within 60 s of SIGTERM:\n" + log);
        }
        return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
