package dev.weft.core;

import java.util.function.Supplier;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON codec of the server, configured once from {@link Settings}: the nesting limit is
 * enforced by the parser itself, so no deep document reaches the evaluator's recursion, and
 * every parsed value is one both stores can hold ({@link Storable}: numbers within a double,
 * no U+0000 or unpaired surrogate). Parse failures become a {@link WeftException} 400 naming
 * what was being parsed.
 */
public final class Json {
    public static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final JsonMapper mapper;

    public Json(int maxNestingDepth) {
        JsonFactory factory = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(maxNestingDepth).build())
                .build();
        this.mapper = JsonMapper.builder(factory).nodeFactory(new Storable.Numbers()).build();
    }

    /** A codec with the default limits, for tests and tools. */
    public static Json standard() {
        return new Json(Settings.defaults().maxNestingDepth());
    }

    public JsonMapper mapper() {
        return mapper;
    }

    /** Parses a JSON text; {@code what} names the input in the 400 message. */
    public JsonNode parse(String text, String what) {
        return read(() -> mapper.readTree(text), Storable.mayHoldUnstorableStrings(text), what);
    }

    public JsonNode parse(byte[] bytes, String what) {
        return read(() -> mapper.readTree(bytes), Storable.mayHoldUnstorableStrings(bytes), what);
    }

    /** Refuses, with a 400 naming {@code what}, a string that did not come as JSON (a path segment). */
    public static void checkStorable(String s, String what) {
        try {
            Storable.check(s);
        } catch (Storable.Refused e) {
            throw WeftException.badRequest(what + " " + e.getMessage());
        }
    }

    /** Runs a Jackson read, turning every way it can fail into a 400 that names the input. */
    static JsonNode read(Supplier<JsonNode> reader, boolean checkStrings, String what) {
        try {
            JsonNode node = reader.get();
            if (node == null || node.isMissingNode()) {
                throw WeftException.badRequest(what + " is empty");
            }
            if (checkStrings) {
                Storable.checkStrings(node);
            }
            return node;
        } catch (Storable.Refused e) {
            throw WeftException.badRequest(what + " " + e.getMessage());
        } catch (StreamConstraintsException e) {
            throw WeftException.badRequest(what + " is nested too deeply (limit max-nesting-depth)");
        } catch (JacksonException e) {
            throw WeftException.badRequest(what + " is not valid JSON: " + e.getOriginalMessage());
        }
    }

    public ObjectNode parseObject(byte[] bytes, String what) {
        JsonNode node = parse(bytes, what);
        if (!node.isObject()) {
            throw WeftException.badRequest(what + " must be a JSON object");
        }
        return (ObjectNode) node;
    }

    public byte[] bytes(JsonNode node) {
        return mapper.writeValueAsBytes(node);
    }

    public String text(JsonNode node) {
        return mapper.writeValueAsString(node);
    }
}
