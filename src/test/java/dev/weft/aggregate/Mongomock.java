package dev.weft.aggregate;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * mongomock, an independent implementation of MongoDB's aggregation language, run from the
 * wheels pinned with their hashes in src/test/python/mongomock/requirements.txt. The first use
 * on a machine creates a virtual environment under {@code ~/.cache/weft/} (named by the hash of
 * the requirements, so a change of pin makes a new one) and installs them with pip; later uses
 * reuse it. There is no silent skip: without {@code python3} (or {@code WEFT_TEST_PYTHON}) with
 * its venv module, or when pip cannot install the pinned wheels, {@link #open} throws, saying
 * what is missing.
 */
public final class Mongomock {
    private static final Path SOURCES = Path.of("src/test/python/mongomock");
    private static final JsonMapper MAPPER = new JsonMapper();

    /** What mongomock made of one pipeline. */
    public sealed interface Answer {}

    public record Results(List<JsonNode> documents) implements Answer {}

    public record Failed(String reason) implements Answer {}

    /** mongomock raised NotImplementedError: it does not run what the pipeline uses. */
    public record Unsupported(String reason) implements Answer {}

    private final Path python;

    private Mongomock(Path python) {
        this.python = python;
    }

    public static Mongomock open() {
        try {
            Path requirements = SOURCES.resolve("requirements.txt");
            String pins = Files.readString(requirements);
            String hash = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(pins.getBytes(StandardCharsets.UTF_8))).substring(0, 16);
            Path cache = Path.of(System.getProperty("user.home"), ".cache", "weft");
            Files.createDirectories(cache);
            Path venv = cache.resolve("mongomock-" + hash);
            Path python = venv.resolve("bin/python");
            try (FileChannel lockFile = FileChannel.open(cache.resolve("mongomock.lock"),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE); FileLock lock = lockFile.lock()) {
                if (!Files.exists(venv.resolve("installed"))) {
                    install(venv, requirements);
                }
            }
            return new Mongomock(python);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (java.security.NoSuchAlgorithmException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void install(Path venv, Path requirements) throws IOException, InterruptedException {
        String python = System.getenv().getOrDefault("WEFT_TEST_PYTHON", "python3");
        deleteTree(venv);
        run("creating a Python virtual environment for mongomock (needs " + python + " 3.8+ with its venv module,"
                + " e.g. Debian's python3 and python3-venv; WEFT_TEST_PYTHON names another interpreter)",
                List.of(python, "-m", "venv", venv.toString()));
        run("installing the pinned mongomock wheels (src/test/python/mongomock/requirements.txt) with pip",
                List.of(venv.resolve("bin/python").toString(), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "--only-binary=:all:", "--require-hashes", "-r", requirements.toAbsolutePath().toString()));
        Files.writeString(venv.resolve("installed"), "");
    }

    private static void run(String what, List<String> command) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IllegalStateException("mongomock: " + what + " failed: " + e.getMessage(), e);
        }
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException("mongomock: " + what + " failed:\n" + output);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    /** Inserts {@code documents} into an empty collection and runs each pipeline over it. */
    public List<Answer> aggregate(List<? extends JsonNode> documents, List<? extends JsonNode> pipelines) {
        ObjectNode request = MAPPER.createObjectNode();
        request.putArray("documents").addAll(new ArrayList<JsonNode>(documents));
        ArrayNode ps = request.putArray("pipelines");
        pipelines.forEach(ps::add);
        try {
            Process p = new ProcessBuilder(python.toString(), SOURCES.resolve("run_pipelines.py").toString())
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            try (OutputStream in = p.getOutputStream()) {
                in.write(MAPPER.writeValueAsBytes(request));
            }
            List<Answer> answers = new ArrayList<>();
            try (InputStream out = p.getInputStream()) {
                for (String line : new String(out.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                    if (!line.isBlank()) {
                        answers.add(answer(MAPPER.readTree(line)));
                    }
                }
            }
            if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0 || answers.size() != pipelines.size()) {
                throw new IllegalStateException("mongomock's runner failed (exit " + p.exitValue() + ", "
                        + answers.size() + " answers for " + pipelines.size() + " pipelines)");
            }
            return answers;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Answer answer(JsonNode line) {
        if (line.has("ok")) {
            List<JsonNode> docs = new ArrayList<>();
            line.get("ok").forEach(docs::add);
            return new Results(docs);
        }
        if (line.has("unsupported")) {
            return new Unsupported(line.get("unsupported").asString());
        }
        return new Failed(line.get("error").asString());
    }
}
