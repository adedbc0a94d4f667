package dev.weft.http;

import dev.weft.core.Json;
import dev.weft.core.RelaxedJson;
import dev.weft.core.WeftException;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.MultiPart;
import org.eclipse.jetty.http.MultiPartFormData;
import org.eclipse.jetty.io.content.ByteBufferContentSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A form body ({@code application/x-www-form-urlencoded} or {@code multipart/form-data}) read
 * as RESTHeart reads it: one document whose fields are the form's, each value relaxed JSON
 * ({@code n=1} a number, {@code s="1"} a string, {@code o={a:1}} an object), and a bare word
 * ({@code name=alice}) a string. A value that is neither, a field named twice or without a name,
 * and a file part are 400. The body was read whole under {@code max-body-bytes}, which bounds the
 * number and size of fields.
 */
final class FormBody {
    static final String URLENCODED = "application/x-www-form-urlencoded";
    static final String MULTIPART = "multipart/form-data";
    private static final Pattern WORD = Pattern.compile("[\\p{L}_][\\p{L}\\p{N}_]*");

    private FormBody() {}

    static boolean isForm(String contentType) {
        return contentType.equals(URLENCODED) || contentType.equals(MULTIPART);
    }

    /** The form as a document; {@code ex}'s content type is one of {@link #isForm}'s. */
    static ObjectNode read(Exchange ex, RelaxedJson relaxed) {
        ObjectNode doc = Json.NODES.objectNode();
        byte[] body = ex.body();
        if (ex.contentType().equals(URLENCODED)) {
            urlencoded(new String(body, StandardCharsets.UTF_8), relaxed, doc);
        } else {
            multipart(ex.header("Content-Type").orElse(""), body, relaxed, doc);
        }
        return doc;
    }

    private static void urlencoded(String body, RelaxedJson relaxed, ObjectNode doc) {
        if (body.isBlank()) {
            return;
        }
        for (String pair : body.split("&", -1)) {
            int eq = pair.indexOf('=');
            String name = decode(eq < 0 ? pair : pair.substring(0, eq));
            String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
            put(doc, name, value, relaxed);
        }
    }

    private static String decode(String text) {
        try {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw WeftException.badRequest("the form body is not valid application/x-www-form-urlencoded: " + e.getMessage());
        }
    }

    private static void multipart(String contentType, byte[] body, RelaxedJson relaxed, ObjectNode doc) {
        String boundary = MultiPart.extractBoundary(contentType);
        if (boundary == null || boundary.isEmpty()) {
            throw WeftException.badRequest("a multipart/form-data body needs a boundary in its Content-Type");
        }
        MultiPartFormData.Parser parser = new MultiPartFormData.Parser(boundary);
        parser.setMaxLength(body.length);
        parser.setMaxParts(Math.max(1, body.length));
        parser.setMaxMemoryFileSize(body.length + 1L); // every part stays in memory: nothing is written to disk
        try (MultiPartFormData.Parts parts = parser.parse(new ByteBufferContentSource(ByteBuffer.wrap(body))).get()) {
            for (MultiPart.Part part : parts) {
                if (part.getFileName() != null) {
                    throw WeftException.badRequest("form field " + part.getName() + " is a file; files are not stored");
                }
                put(doc, part.getName(), part.getContentAsString(StandardCharsets.UTF_8), relaxed);
            }
        } catch (ExecutionException e) {
            throw WeftException.badRequest("the form body is not valid multipart/form-data");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw WeftException.badRequest("the form body was not read");
        }
    }

    private static void put(ObjectNode doc, String name, String value, RelaxedJson relaxed) {
        if (name == null || name.isEmpty()) {
            throw WeftException.badRequest("a form field has no name");
        }
        if (doc.has(name)) {
            throw WeftException.badRequest("form field " + name + " is given twice");
        }
        doc.set(name, value(name, value, relaxed));
    }

    /** Relaxed JSON, or a bare word as a string. */
    static JsonNode value(String name, String value, RelaxedJson relaxed) {
        String trimmed = value.trim();
        if (WORD.matcher(trimmed).matches() && !trimmed.equals("true") && !trimmed.equals("false") && !trimmed.equals("null")) {
            return Json.NODES.stringNode(trimmed);
        }
        return relaxed.read(trimmed, "form field " + name);
    }
}
