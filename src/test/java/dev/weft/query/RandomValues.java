package dev.weft.query;

import dev.weft.core.Json;
import java.math.BigDecimal;
import java.util.Random;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Random JSON values for property tests, drawn from small pools so that equal values, shared
 * prefixes, equal numbers in different representations and every type bracket occur often.
 */
final class RandomValues {
    static final String[] NAMES = {"a", "b", "c"};
    private static final String[] STRINGS = {"", "a", "ab", "abc", "b", "a\u0000", "a\u0000b", "\u00e9", "\uD83D\uDE00", "\uFFFF", "pach", "apache"};
    private final Random random;

    RandomValues(long seed) {
        this.random = new Random(seed);
    }

    Random random() {
        return random;
    }

    JsonNode value(int depth) {
        int kind = random.nextInt(depth > 0 ? 12 : 9);
        return switch (kind) {
            case 0 -> Json.NODES.nullNode();
            case 1 -> Json.NODES.numberNode(random.nextInt(7) - 3);
            case 2 -> Json.NODES.numberNode((random.nextInt(13) - 6) / 2.0);
            case 3 -> random.nextInt(4) == 0
                    ? Json.NODES.numberNode(new BigDecimal(random.nextInt(7) - 3).movePointLeft(random.nextInt(2)))
                    : Json.NODES.numberNode((long) (random.nextInt(5) - 2) * 10_000_000_000L);
            case 4, 5 -> Json.NODES.stringNode(STRINGS[random.nextInt(STRINGS.length)]);
            case 6 -> Json.NODES.booleanNode(random.nextBoolean());
            case 7 -> Json.NODES.objectNode().put("$oid", "5f00000000000000000000" + random.nextInt(3) + random.nextInt(2));
            case 8 -> Json.NODES.objectNode().put("$date", (random.nextInt(5) - 2) * 1000L);
            case 9, 10 -> array(depth - 1);
            default -> object(depth - 1);
        };
    }

    ArrayNode array(int depth) {
        ArrayNode a = Json.NODES.arrayNode();
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
            a.add(value(depth));
        }
        return a;
    }

    ObjectNode object(int depth) {
        ObjectNode o = Json.NODES.objectNode();
        for (String name : NAMES) {
            if (random.nextInt(3) == 0) {
                o.set(name, value(depth));
            }
        }
        return o;
    }

    /** A document: fields a, b, c sometimes present, values nested up to {@code depth}. */
    ObjectNode document(int depth) {
        ObjectNode doc = object(depth);
        doc.put("_id", random.nextInt(1_000_000));
        return doc;
    }

    String path() {
        StringBuilder p = new StringBuilder(NAMES[random.nextInt(NAMES.length)]);
        while (random.nextInt(3) == 0) {
            p.append('.').append(random.nextInt(5) == 0 ? "0" : NAMES[random.nextInt(NAMES.length)]);
        }
        return p.toString();
    }

    <T> T pick(T[] choices) {
        return choices[random.nextInt(choices.length)];
    }
}
