package dev.weft.aggregate;

import tools.jackson.databind.JsonNode;

/**
 * The variables one evaluation sees: {@code $$ROOT} (the document entering the stage),
 * {@code $$CURRENT} (what field paths read), {@code $$NOW} (one instant for the whole pipeline)
 * and those bound by {@code $let}, {@code $filter}, {@code $map} and {@code $reduce}, as a chain
 * of frames (binding one allocates a frame, never a map).
 */
final class Scope {
    private final JsonNode root;
    private final JsonNode current;
    private final JsonNode now;
    private final Scope parent;
    private final String name;
    private final JsonNode value;

    private Scope(JsonNode root, JsonNode current, JsonNode now, Scope parent, String name, JsonNode value) {
        this.root = root;
        this.current = current;
        this.now = now;
        this.parent = parent;
        this.name = name;
        this.value = value;
    }

    static Scope of(JsonNode document, JsonNode now) {
        return new Scope(document, document, now, null, null, null);
    }

    /** The same variables with {@code name} bound to {@code value} (which may be missing: null). */
    Scope with(String name, JsonNode value) {
        return new Scope(root, current, now, this, name, value);
    }

    JsonNode current() {
        return current;
    }

    JsonNode now() {
        return now;
    }

    JsonNode variable(String variable) {
        for (Scope s = this; s != null; s = s.parent) {
            if (variable.equals(s.name)) {
                return s.value;
            }
        }
        return switch (variable) {
            case "ROOT" -> root;
            case "CURRENT" -> current;
            case "NOW" -> now;
            default -> null; // REMOVE, and names the parser has already checked
        };
    }
}
