package dev.weft.core;

import tools.jackson.core.json.JsonReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * JSON as RESTHeart reads query parameters ({@code filter}, {@code sort}, {@code keys},
 * {@code hint}, {@code avars}) and ACL file values: MongoDB's relaxed syntax, so
 * {@code {'name':'x'}} and {@code {name:'x'}} parse as {@code {"name":"x"}}. It is the server's
 * codec ({@link Json}, same limits and number handling) with Jackson's single-quote and
 * unquoted-name features on; request bodies stay strict JSON, as RESTHeart's are.
 */
public final class RelaxedJson {
    private static final RelaxedJson STANDARD = new RelaxedJson(Json.standard());

    private final Json strict;
    private final JsonMapper mapper;

    public RelaxedJson(Json strict) {
        this.strict = strict;
        this.mapper = strict.mapper().rebuild()
                .enable(JsonReadFeature.ALLOW_SINGLE_QUOTES, JsonReadFeature.ALLOW_UNQUOTED_PROPERTY_NAMES)
                .build();
    }

    /** Whether this reads as {@code codec} does, but relaxed. */
    public boolean relaxes(Json codec) {
        return strict == codec;
    }

    /**
     * {@code text} as strict JSON text when it is a relaxed JSON object or array, else as it is
     * (for parameters that are JSON or something else, such as {@code sort=a,-b}).
     */
    public String strictText(String text, String what) {
        String trimmed = text.trim();
        return trimmed.startsWith("{") || trimmed.startsWith("[") ? strict.text(read(trimmed, what)) : text;
    }

    /** Parses with the default limits. */
    public static JsonNode parse(String text, String what) {
        return STANDARD.read(text, what);
    }

    /** Parses a relaxed JSON text; {@code what} names the input in the 400 message. */
    public JsonNode read(String text, String what) {
        return Json.read(() -> mapper.readTree(text), Storable.mayHoldUnstorableStrings(text), what);
    }
}
