package dev.weft.security.acl;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * Which keys a request body holds, for RESTHeart's {@code bson-request-*} predicates: a key is
 * a dotted path, found in the document or in any update operator's object ({@code $set: {k: v}}),
 * and an array body is judged document by document.
 */
final class BodyPaths {
    private BodyPaths() {}

    static boolean containsAll(JsonNode body, Set<String> keys) {
        if (body.isArray()) {
            if (body.isEmpty()) {
                return false;
            }
            for (JsonNode doc : body) {
                if (!containsAll(doc, keys)) {
                    return false;
                }
            }
            return true;
        }
        return body.isObject() && keys.stream().allMatch(k -> present(body, k));
    }

    static boolean containsAny(JsonNode body, Set<String> keys) {
        if (body.isArray()) {
            for (JsonNode doc : body) {
                if (containsAny(doc, keys)) {
                    return true;
                }
            }
            return false;
        }
        return body.isObject() && keys.stream().anyMatch(k -> present(body, k));
    }

    /** Every leaf key is a whitelisted key or lies under one; an empty document passes. */
    static boolean onlyWhitelisted(JsonNode body, Set<String> whitelist) {
        if (body.isArray()) {
            for (JsonNode doc : body) {
                if (doc.isObject() && !onlyWhitelisted(doc, whitelist)) {
                    return false;
                }
            }
            return true;
        }
        if (!body.isObject()) {
            return false;
        }
        List<String> leaves = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : body.properties()) {
            if (e.getKey().startsWith("$") && e.getValue().isObject()) {
                e.getValue().propertyNames().forEach(leaves::add);
            } else {
                leaves(e.getKey(), e.getValue(), leaves);
            }
        }
        return leaves.stream().allMatch(leaf ->
                whitelist.stream().anyMatch(w -> leaf.equals(w) || leaf.startsWith(w + ".")));
    }

    private static void leaves(String path, JsonNode value, List<String> out) {
        if (value.isObject() && !value.isEmpty()) {
            for (Map.Entry<String, JsonNode> e : value.properties()) {
                leaves(path + "." + e.getKey(), e.getValue(), out);
            }
        } else {
            out.add(path);
        }
    }

    private static boolean present(JsonNode doc, String key) {
        if (walk(doc, key)) {
            return true;
        }
        for (Map.Entry<String, JsonNode> e : doc.properties()) {
            if (e.getKey().startsWith("$") && e.getValue().isObject() && walk(e.getValue(), key)) {
                return true;
            }
        }
        return false;
    }

    private static boolean walk(JsonNode doc, String key) {
        if (doc.has(key)) {
            return true;
        }
        JsonNode node = doc;
        for (String part : key.split("\\.", -1)) {
            if (node == null || !node.isObject() || !node.has(part)) {
                return false;
            }
            node = node.get(part);
        }
        return true;
    }
}
