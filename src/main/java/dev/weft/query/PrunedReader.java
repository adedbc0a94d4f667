package dev.weft.query;

import dev.weft.core.Json;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads a stored JSON document in one streaming pass, building only the parts a {@link PathTrie}
 * names and skipping the rest token by token (no strings decoded, no nodes made for them). The
 * small tree it returns answers every path of the trie exactly as the whole document would, so
 * the in-memory evaluator (the reference) runs on it unchanged.
 */
public final class PrunedReader {
    private final JsonMapper mapper;
    /** Reads one value where the parser stands (the document goes on after it). */
    private final ObjectReader subtree;
    private final JsonNodeFactory nodes;
    private final PathTrie trie;

    public PrunedReader(Json json, PathTrie trie) {
        this.mapper = json.mapper();
        this.subtree = mapper.readerFor(JsonNode.class).without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        this.nodes = mapper.getNodeFactory();
        this.trie = trie;
    }

    /** The document pruned to the trie's paths. */
    public JsonNode read(byte[] body) {
        if (trie.whole()) {
            return mapper.readTree(body);
        }
        try (JsonParser p = mapper.createParser(body)) {
            return p.nextToken() == JsonToken.START_OBJECT ? document(p) : value(p, trie);
        }
    }

    /**
     * A document's fields the trie names, read no further than the last of them: a stored
     * document names each field once (it is written from a parsed tree), so the rest of it holds
     * nothing the trie keeps, and a scan over wide documents reading a few leading fields skips
     * the bytes after them unread.
     */
    private JsonNode document(JsonParser p) {
        ObjectNode o = nodes.objectNode();
        int wanted = trie.fieldCount();
        // stop before the next name: Jackson reads a name together with the token of its value
        while (o.size() < wanted) {
            String name = p.nextName();
            if (name == null) {
                break;
            }
            PathTrie child = trie.child(name);
            p.nextToken();
            if (child == null) {
                p.skipChildren();
            } else {
                o.set(name, value(p, child));
            }
        }
        return o;
    }

    private JsonNode value(JsonParser p, PathTrie node) {
        JsonToken t = p.currentToken();
        if (node.whole()) {
            return whole(p, t);
        }
        if (t == JsonToken.START_OBJECT) {
            ObjectNode o = nodes.objectNode();
            for (String name = p.nextName(); name != null; name = p.nextName()) {
                PathTrie child = node.child(name);
                p.nextToken();
                if (child == null) {
                    p.skipChildren();
                } else {
                    o.set(name, value(p, child));
                }
            }
            return o;
        }
        if (t == JsonToken.START_ARRAY) {
            ArrayNode a = nodes.arrayNode();
            int i = 0;
            while (p.nextToken() != JsonToken.END_ARRAY) {
                a.add(value(p, node.element(i++)));
            }
            return a;
        }
        return whole(p, t);
    }

    /** The value at the parser, entire: the common scalars here, the rest as the mapper reads them. */
    private JsonNode whole(JsonParser p, JsonToken t) {
        return switch (t) {
            case VALUE_STRING -> nodes.stringNode(p.getString());
            case VALUE_TRUE -> nodes.booleanNode(true);
            case VALUE_FALSE -> nodes.booleanNode(false);
            case VALUE_NULL -> nodes.nullNode();
            case VALUE_NUMBER_INT -> switch (p.getNumberType()) {
                case INT -> nodes.numberNode(p.getIntValue());
                case LONG -> nodes.numberNode(p.getLongValue());
                default -> subtree.readValue(p);
            };
            default -> subtree.readValue(p);
        };
    }
}
