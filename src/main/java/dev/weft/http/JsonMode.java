package dev.weft.http;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Values;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * RESTHeart's {@code ?jsonMode=} output modes, MongoDB Extended JSON v2 as its Java driver writes
 * it. Weft stores JSON numbers as 64-bit integers or doubles and keeps no int32 type, so an
 * integer that fits 32 bits is rendered as one (what MongoDB's driver would have stored for that
 * JSON number).
 *
 * <ul>
 *   <li>{@code extended} (canonical): {@code {"$numberInt":"1"}}, {@code {"$numberLong":"..."}},
 *       {@code {"$numberDouble":"1.0"}}, {@code {"$date":{"$numberLong":"millis"}}}.
 *   <li>{@code relaxed}: numbers plain, a date from 1970 to 9999 as ISO-8601
 *       ({@code {"$date":"2019-09-12T13:42:49.26Z"}}), any other as {@code {"$numberLong"}}.
 *   <li>{@code strict} (MongoDB's legacy mode): numbers plain but a 64-bit one,
 *       {@code {"$date": millis}}.
 *   <li>{@code standard}: the answer as stored, what RESTHeart answers without the parameter.
 * </ul>
 *
 * ObjectIds ({@code {"$oid"}}) and timestamps ({@code {"$timestamp":{"t","i"}}}) read the same in
 * every mode. MongoDB's {@code shell} mode is not JSON, so it is refused like an unknown mode.
 */
enum JsonMode {
    STANDARD, STRICT, EXTENDED, RELAXED;

    static final String PARAMETER = "jsonMode";
    /** The last instant MongoDB's relaxed mode writes as ISO-8601 (9999-12-31T23:59:59.999Z). */
    private static final long LAST_ISO_MILLIS = 253402300799999L;
    private static final JsonMapper MAPPER = Json.standard().mapper();

    /** The request's mode; empty without the parameter or for {@code standard}; 400 for any other value. */
    static Optional<JsonMode> of(Exchange ex) {
        Optional<String> value = ex.param(PARAMETER);
        if (value.isEmpty()) {
            return Optional.empty();
        }
        JsonMode mode = parse(value.get());
        return mode == STANDARD ? Optional.empty() : Optional.of(mode);
    }

    static JsonMode parse(String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "standard" -> STANDARD;
            case "strict" -> STRICT;
            case "extended" -> EXTENDED;
            case "relaxed" -> RELAXED;
            default -> throw WeftException.badRequest("query parameter jsonMode=" + value
                    + ": expected extended, relaxed, strict or standard");
        };
    }

    /** A JSON answer (a document, an array of them, any JSON) in this mode. */
    byte[] render(byte[] json) {
        return MAPPER.writeValueAsBytes(render(MAPPER.readTree(json)));
    }

    JsonNode render(JsonNode value) {
        if (value.isObject()) {
            return renderObject((ObjectNode) value);
        }
        if (value.isArray()) {
            ArrayNode out = Json.NODES.arrayNode(value.size());
            value.forEach(element -> out.add(render(element)));
            return out;
        }
        if (value.isIntegralNumber()) {
            return integer(value);
        }
        if (value.isNumber() && this == EXTENDED) {
            return wrapped("$numberDouble", Double.toString(value.doubleValue()));
        }
        return value;
    }

    private JsonNode renderObject(ObjectNode object) {
        if (Values.isDate(object)) {
            return date(Values.dateMillis(object));
        }
        if (Values.isObjectId(object) || isTimestamp(object)) {
            return object;
        }
        ObjectNode out = Json.NODES.objectNode();
        for (Map.Entry<String, JsonNode> field : object.properties()) {
            out.set(field.getKey(), render(field.getValue()));
        }
        return out;
    }

    private JsonNode integer(JsonNode value) {
        boolean fitsInt = value.canConvertToInt();
        return switch (this) {
            case EXTENDED -> wrapped(fitsInt ? "$numberInt" : "$numberLong", value.bigIntegerValue().toString());
            case STRICT -> fitsInt ? value : wrapped("$numberLong", Long.toString(value.longValue()));
            default -> value;
        };
    }

    private JsonNode date(long millis) {
        ObjectNode date = Json.NODES.objectNode();
        switch (this) {
            case RELAXED -> {
                if (millis >= 0 && millis <= LAST_ISO_MILLIS) {
                    date.put("$date", iso(millis));
                } else {
                    date.set("$date", wrapped("$numberLong", Long.toString(millis)));
                }
            }
            case EXTENDED -> date.set("$date", wrapped("$numberLong", Long.toString(millis)));
            default -> date.put("$date", millis);
        }
        return date;
    }

    /** ISO-8601 in UTC with as few fraction digits as the milliseconds need ({@code .26}, not {@code .260}), as MongoDB's driver writes it. */
    static String iso(long millis) {
        return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(Instant.ofEpochMilli(millis).atOffset(ZoneOffset.UTC));
    }

    private static boolean isTimestamp(ObjectNode object) {
        JsonNode ts = object.get("$timestamp");
        return object.size() == 1 && ts != null && ts.isObject();
    }

    private static ObjectNode wrapped(String name, String text) {
        return Json.NODES.objectNode().put(name, text);
    }
}
