package dev.weft.query;

import dev.weft.core.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Random documents, filters, sorts and projections for differential tests of evaluators that
 * read only part of a document: nested objects and arrays (of objects, scalars and arrays),
 * every type, missing fields, numeric-looking field names, strings with escaped characters; and
 * filters over dotted paths (array positions included) with every operator the evaluator runs.
 */
public final class RandomQueries {
    private static final Json JSON = Json.standard();
    private static final JsonNodeFactory F = JSON.mapper().getNodeFactory();
    private static final String[] NAMES = {"a", "b", "c", "0", "1", "01", "s"};
    private static final String[] STRINGS = {"", "a", "ab", "pach", "apache", "Apache", "x\"y", "t\tb", "b\\s", "\u00e9",
            "\u212Aelvin", "https://projects.apache.org/x", "0"};
    private static final String[] PATHS = {"a", "b", "c", "s", "a.b", "a.0", "a.1", "a.b.c", "a.0.b", "0", "1.a", "01",
            "b.1", "c.a.b", "a.01", "c.0.0", "s.a", "zz"};
    private static final String[] TYPES = {"string", "number", "array", "object", "null", "bool", "date", "objectId",
            "double", "int", "long"};
    private static final String[] REGEXES = {".*pach.*", "^a", "ap", "a|b", "(?i)APACHE", "x\"", "\\t", "\\\\", "^$",
            "e.v", "[ab]c?", "kelvin"};

    private final Random random;

    public RandomQueries(long seed) {
        this.random = new Random(seed);
    }

    public Random random() {
        return random;
    }

    // --- documents -------------------------------------------------------------------------

    /** A document with {@code _id} {@code id}. */
    public ObjectNode document(int id) {
        ObjectNode d = object(3);
        d.put("_id", id);
        return d;
    }

    private ObjectNode object(int depth) {
        ObjectNode o = F.objectNode();
        for (String name : NAMES) {
            if (random.nextInt(3) != 0) {
                o.set(name, value(depth - 1));
            }
        }
        return o;
    }

    private JsonNode value(int depth) {
        int kind = random.nextInt(depth > 0 ? 12 : 8);
        return switch (kind) {
            case 0, 1, 2 -> scalar();
            case 3, 4 -> F.stringNode(string());
            case 5 -> F.numberNode(random.nextInt(7) - 3);
            case 6 -> F.nullNode();
            case 7 -> random.nextBoolean() ? F.booleanNode(random.nextBoolean()) : F.numberNode(random.nextInt(5) * 1.5);
            case 8, 9 -> array(depth - 1);
            default -> object(depth);
        };
    }

    private ArrayNode array(int depth) {
        ArrayNode a = F.arrayNode();
        for (int n = random.nextInt(4); n > 0; n--) {
            a.add(random.nextInt(3) == 0 ? object(Math.max(depth, 1)) : value(depth));
        }
        return a;
    }

    private JsonNode scalar() {
        return switch (random.nextInt(9)) {
            case 0 -> F.nullNode();
            case 1 -> F.booleanNode(random.nextBoolean());
            case 2, 3 -> F.stringNode(string());
            case 4 -> F.objectNode().put("$oid", String.format("%024x", random.nextInt(4)));
            case 5 -> F.objectNode().put("$date", 1_700_000_000_000L + random.nextInt(4) * 1000L);
            case 6 -> F.numberNode(random.nextInt(6) - 2 + 0.5);
            case 7 -> F.numberNode(random.nextInt(3) * 10_000_000_000L);
            default -> F.numberNode(random.nextInt(7) - 3);
        };
    }

    private String string() {
        return STRINGS[random.nextInt(STRINGS.length)];
    }

    // --- filters, sorts, projections -------------------------------------------------------

    /** A filter document as JSON text. */
    public String filter() {
        return filter(0);
    }

    private String filter(int depth) {
        int kind = random.nextInt(depth > 1 ? 8 : 12);
        if (kind >= 8) {
            String op = kind == 8 || kind == 9 ? "$and" : kind == 10 ? "$or" : "$nor";
            List<String> parts = new ArrayList<>();
            for (int n = 1 + random.nextInt(3); n > 0; n--) {
                parts.add(filter(depth + 1));
            }
            return "{\"" + op + "\":[" + String.join(",", parts) + "]}";
        }
        if (kind == 7) {
            return "{" + leaf(depth) + "," + leaf(depth) + "}";
        }
        if (kind == 6 && depth == 0 && random.nextInt(4) == 0) {
            return "{}";
        }
        return "{" + leaf(depth) + "}";
    }

    private String path() {
        return PATHS[random.nextInt(PATHS.length)];
    }

    private String leaf(int depth) {
        return "\"" + path() + "\":" + condition(depth, true);
    }

    private String condition(int depth, boolean allowElemMatch) {
        String v = JSON.text(scalar());
        return switch (random.nextInt(allowElemMatch && depth < 2 ? 19 : 17)) {
            case 0, 1 -> v;
            case 2 -> "{\"$gt\":" + v + "}";
            case 3 -> "{\"$gte\":" + v + ",\"$lt\":" + JSON.text(scalar()) + "}";
            case 4 -> "{\"$lte\":" + v + "}";
            case 5 -> "{\"$in\":[" + v + "," + JSON.text(scalar()) + ",{\"$regex\":\"^a\"}]}";
            case 6 -> "{\"$ne\":" + v + "}";
            case 7 -> "{\"$exists\":" + random.nextBoolean() + "}";
            case 8 -> "{\"$type\":\"" + TYPES[random.nextInt(TYPES.length)] + "\"}";
            case 9 -> "{\"$nin\":[" + v + "," + JSON.text(scalar()) + "]}";
            case 10, 11 -> "{\"$regex\":" + JSON.text(F.stringNode(REGEXES[random.nextInt(REGEXES.length)]))
                    + (random.nextInt(3) == 0 ? ",\"$options\":\"i\"" : "") + "}";
            case 12 -> "{\"$not\":{\"$gt\":" + v + "}}";
            case 13 -> "{\"$size\":" + random.nextInt(3) + "}";
            case 14 -> "{\"$all\":[" + v + "," + JSON.text(scalar()) + "]}";
            case 15 -> JSON.text(value(2));
            case 16 -> "{\"$in\":[" + JSON.text(F.stringNode(string())) + "," + JSON.text(F.stringNode(string())) + "]}";
            case 17 -> "{\"$elemMatch\":" + filter(depth + 2) + "}";
            default -> {
                String c = condition(depth + 2, false);
                yield "{\"$elemMatch\":" + (c.startsWith("{\"$") ? c : "{\"$eq\":" + c + "}") + "}";
            }
        };
    }

    /** A sort of one or two keys (or null: the default). */
    public String sort() {
        return switch (random.nextInt(4)) {
            case 0 -> null;
            case 1 -> "{\"" + path() + "\":" + (random.nextBoolean() ? 1 : -1) + "}";
            default -> "{\"" + path() + "\":" + (random.nextBoolean() ? 1 : -1) + ",\"" + path() + "\":"
                    + (random.nextBoolean() ? 1 : -1) + "}";
        };
    }

    /** An inclusion or exclusion projection of one or two fields (or null: none). */
    public String projection() {
        String[] fields = {"a", "b", "a.b", "c", "s", "0"};
        int kind = random.nextInt(3);
        if (kind == 0) {
            return null;
        }
        String f1 = fields[random.nextInt(fields.length)];
        String f2 = fields[random.nextInt(fields.length)];
        int keep = kind == 1 ? 1 : 0;
        return f1.equals(f2) || f1.startsWith(f2 + ".") || f2.startsWith(f1 + ".")
                ? "{\"" + f1 + "\":" + keep + "}"
                : "{\"" + f1 + "\":" + keep + ",\"" + f2 + "\":" + keep + "}";
    }
}
