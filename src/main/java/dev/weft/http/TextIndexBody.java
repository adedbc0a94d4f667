package dev.weft.http;

import dev.weft.core.WeftException;
import dev.weft.query.TextIndex;
import dev.weft.query.TextLanguage;
import dev.weft.store.IndexSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A text index as MongoDB and RESTHeart spell it: {@code {"keys":{"title":"text","body":"text"},
 * "ops":{"weights":{"title":10},"default_language":"english","language_override":"lang"}}}, or
 * {@code {"keys":{"$**":"text"}}} for every string field; and as MongoDB lists it
 * ({@code key {"_fts":"text","_ftsx":1}}, weights, languages, {@code textIndexVersion} 3).
 * Weft's text index holds only text keys (MongoDB's compound text indexes are 400).
 */
final class TextIndexBody {
    static final List<String> OPTIONS = List.of("weights", "default_language", "language_override", "textIndexVersion");
    private static final int MAX_WEIGHT = 99_999;

    private TextIndexBody() {}

    /** True when {@code keys} names a text key. */
    static boolean isText(JsonNode keys) {
        return keys != null && keys.isObject()
                && keys.properties().stream().anyMatch(e -> e.getValue().isString() && e.getValue().stringValue().equals("text"));
    }

    static IndexSpec spec(String name, JsonNode keys, JsonNode ops) {
        for (String option : List.of("unique", "sparse", "partialFilterExpression", "expireAfterSeconds")) {
            if (ops.has(option)) {
                throw WeftException.badRequest("a text index takes no option " + option);
            }
        }
        Map<String, Integer> weights = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : keys.properties()) {
            if (!e.getValue().isString() || !e.getValue().stringValue().equals("text")) {
                throw WeftException.badRequest("a text index has only text keys, such as {\"title\":\"text\"}; " + e.getKey()
                        + " is " + e.getValue());
            }
            weights.put(path(e.getKey()), 1);
        }
        JsonNode w = ops.get("weights");
        if (w != null) {
            if (!w.isObject()) {
                throw WeftException.badRequest("weights must be an object such as {\"title\":10}");
            }
            for (Map.Entry<String, JsonNode> e : w.properties()) {
                JsonNode weight = e.getValue();
                if (!weight.isNumber() || weight.doubleValue() != Math.rint(weight.doubleValue())
                        || weight.doubleValue() < 1 || weight.doubleValue() > MAX_WEIGHT) {
                    throw WeftException.badRequest("weight of " + e.getKey() + " must be an integer from 1 to " + MAX_WEIGHT);
                }
                weights.put(path(e.getKey()), weight.intValue());
            }
        }
        TextLanguage language = TextLanguage.named(string(ops, "default_language").orElse("english"));
        String override = string(ops, "language_override").orElse(TextIndex.DEFAULT_OVERRIDE);
        if (override.isEmpty() || override.startsWith("$") || override.contains(".")) {
            throw WeftException.badRequest("language_override must be a top-level field name");
        }
        JsonNode version = ops.get("textIndexVersion");
        if (version != null && (!version.isIntegralNumber() || version.asInt() != 3)) {
            throw WeftException.badRequest("textIndexVersion must be 3");
        }
        return IndexSpec.text(name, new TextIndex(weights, language, override));
    }

    private static String path(String key) {
        if (key.isEmpty() || (key.startsWith("$") && !key.equals(TextIndex.WILDCARD))) {
            throw WeftException.badRequest("invalid index key path: " + key);
        }
        return key;
    }

    private static Optional<String> string(JsonNode ops, String name) {
        JsonNode v = ops.get(name);
        if (v != null && !v.isString()) {
            throw WeftException.badRequest(name + " must be a string");
        }
        return Optional.ofNullable(v).map(JsonNode::stringValue);
    }

    /** Fills a listing entry as MongoDB's listIndexes shows a text index. */
    static void describe(IndexSpec spec, ObjectNode entry) {
        ObjectNode key = entry.putObject("key");
        key.put("_fts", "text");
        key.put("_ftsx", 1);
        ObjectNode weights = entry.putObject("weights");
        spec.text().weights().entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> weights.put(e.getKey(), e.getValue()));
        entry.put("default_language", spec.text().defaultLanguage().mongoName());
        entry.put("language_override", spec.text().languageOverride());
        entry.put("textIndexVersion", 3);
    }
}
