package dev.weft.http;

import java.util.Optional;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.json.JsonFactory;

/**
 * Reads a stored document's top-level {@code _etag} without building its tree: a streaming pass
 * that skips every other value, so answering a GET with an ETag costs a scan, not a parse into
 * objects and a re-encoding.
 */
final class Etags {
    private static final JsonFactory FACTORY = new JsonFactory();

    private Etags() {}

    static Optional<String> of(byte[] json) {
        try (JsonParser p = FACTORY.createParser(ObjectReadContext.empty(), json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return Optional.empty();
            }
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (name.equals("_etag")) {
                    if (value == JsonToken.START_OBJECT && p.nextToken() == JsonToken.PROPERTY_NAME
                            && p.currentName().equals("$oid") && p.nextToken() == JsonToken.VALUE_STRING) {
                        return Optional.of(p.getString());
                    }
                    return value == JsonToken.VALUE_STRING ? Optional.of(p.getString()) : Optional.empty();
                }
                p.skipChildren();
            }
            return Optional.empty();
        }
    }
}
