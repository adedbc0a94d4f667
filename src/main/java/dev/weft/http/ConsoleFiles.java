package dev.weft.http;

import dev.weft.core.WeftException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The Weft Console: the static files under {@code console/} in the jar, served at
 * {@code /_console/}. They hold no data (every document, user and figure the page shows comes from
 * the API, with the user's credentials), so the route is open. The page renders documents that
 * anyone with write access could have filled with markup, so every answer carries a
 * Content-Security-Policy that runs only the console's own scripts (no inline script, no
 * {@code eval}, no other origin), may not be framed, and may not be sniffed into another type.
 */
final class ConsoleFiles {
    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; "
            + "frame-ancestors 'none'";

    /** One path segment: a name and an extension, so no path can leave {@code console/}. */
    private static final Pattern FILE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]*\\.[a-z0-9]+");
    private static final Map<String, String> TYPES = Map.of(
            "html", "text/html; charset=utf-8",
            "js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8",
            "svg", "image/svg+xml",
            "png", "image/png",
            "json", "application/json");

    private final String root;
    /**
     * The jar does not change while the server runs: each file is read once. Only files found are
     * kept, so names anyone may ask for cannot grow this map beyond the console's own files.
     */
    private final Map<String, byte[]> files = new ConcurrentHashMap<>();

    ConsoleFiles(String root) {
        this.root = root;
    }

    /** {@code /_console/} is the page; {@code /_console} moves there so relative URLs resolve. */
    void index(Exchange ex) {
        if (!ex.path().endsWith("/")) {
            ex.setHeader("Location", "/_console/");
            ex.sendEmpty(301);
            return;
        }
        serve(ex, "index.html");
    }

    void file(Exchange ex) {
        serve(ex, ex.pathParam("file"));
    }

    private void serve(Exchange ex, String name) {
        byte[] body = bytes(name).orElseThrow(() -> WeftException.notFound("no console file " + name));
        secure(ex);
        ex.setHeader("Cache-Control", "no-cache");
        ex.send(200, type(name), body);
    }

    /** The file named {@code name} in the console's folder, when the name is one it serves. */
    Optional<byte[]> bytes(String name) {
        if (!FILE_NAME.matcher(name).matches() || type(name) == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(files.computeIfAbsent(name, this::read));
    }

    /** How many files are kept in memory. */
    int kept() {
        return files.size();
    }

    private static String type(String name) {
        return TYPES.get(name.substring(name.lastIndexOf('.') + 1));
    }

    /** The headers every console answer carries (see the class comment). */
    static void secure(Exchange ex) {
        ex.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        ex.setHeader("X-Content-Type-Options", "nosniff");
        ex.setHeader("X-Frame-Options", "DENY");
        ex.setHeader("Referrer-Policy", "no-referrer");
    }

    /** The file's bytes, null when there is none (so nothing is kept). */
    private byte[] read(String name) {
        try (InputStream in = ConsoleFiles.class.getClassLoader().getResourceAsStream(root + name)) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
