package dev.weft.stream;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import tools.jackson.databind.JsonNode;

/**
 * Resume tokens: the event log position as 16 hex digits, shown as MongoDB does in the event's
 * {@code _id} as {@code {"_data": "..."}}. Clients give it back bare (SSE {@code Last-Event-ID},
 * {@code ?resumeAfter=...}) or as the whole {@code _id} object.
 */
final class Tokens {
    private Tokens() {}

    static String encode(long seq) {
        String hex = Long.toHexString(seq);
        return "0".repeat(16 - hex.length()) + hex;
    }

    static long decode(String given, Json json) {
        String token = given.trim();
        if (token.startsWith("{")) {
            JsonNode node = json.parse(token, "resume token");
            JsonNode data = node.get("_data");
            if (data == null || !data.isString()) {
                throw WeftException.badRequest("a resume token object must be {\"_data\": \"...\"}");
            }
            token = data.stringValue();
        }
        if (token.length() != 16) {
            throw WeftException.badRequest("malformed resume token: " + given);
        }
        try {
            return Long.parseUnsignedLong(token, 16);
        } catch (NumberFormatException e) {
            throw WeftException.badRequest("malformed resume token: " + given);
        }
    }
}
