package dev.weft.core;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * One setting, declared once: its name, its default, how its text is read and checked, and its
 * description. {@link Settings} is made from the list of them (each fills the record component
 * of its camel-case name), and so are {@code --help} and the README's table.
 *
 * @param name        {@code --name} on the command line, {@code WEFT_NAME} in the environment
 * @param fallback    the value when the setting is not given
 * @param shown       the default as {@code --help} and the README show it
 * @param read        the value of a given text; a bad text throws a 400 {@link WeftException}
 * @param description what it bounds or chooses
 * @param component   the record component it fills; empty: applied by the {@code weft} script
 * @param repeatable  given more than once, its texts are joined with commas
 */
public record Setting<T>(String name, T fallback, String shown, Function<String, T> read, String description,
                         Optional<String> component, boolean repeatable) {

    static Setting<Integer> integer(String name, int fallback, int min, int max, String description) {
        return of(name, fallback, raw -> (int) number(name, raw, min, max), description);
    }

    static Setting<Long> longValue(String name, long fallback, long min, long max, String description) {
        return of(name, fallback, raw -> number(name, raw, min, max), description);
    }

    static Setting<String> string(String name, String fallback, String description) {
        return of(name, fallback, raw -> raw, description);
    }

    /** A setting with no default; an empty text counts as absent. */
    static <T> Setting<Optional<T>> optional(String name, Function<String, T> read, String description) {
        return new Setting<>(name, Optional.<T>empty(), "none",
                raw -> raw.isBlank() ? Optional.<T>empty() : Optional.of(read.apply(raw)), description,
                Optional.of(camelCase(name)), false);
    }

    /** Comma-separated values, each read by {@code each}; none by default. */
    static Setting<List<String>> list(String name, Function<String, String> each, String description) {
        return new Setting<>(name, List.<String>of(), "none",
                raw -> Arrays.stream(raw.split(",")).map(String::trim).filter(s -> !s.isEmpty()).map(each).toList(),
                description, Optional.of(camelCase(name)), false);
    }

    static <T> Setting<T> of(String name, T fallback, Function<String, T> read, String description) {
        return new Setting<>(name, fallback, String.valueOf(fallback), read, description,
                Optional.of(camelCase(name)), false);
    }

    /** The default as shown, when its value prints otherwise ({@code 16 MiB}, {@code cores}). */
    Setting<T> showing(String text) {
        return new Setting<>(name, fallback, text, read, description, component, repeatable);
    }

    Setting<T> repeated() {
        return new Setting<>(name, fallback, shown, read, description, component, true);
    }

    /** Fills the record component {@code other} instead of the one named like the setting. */
    Setting<T> filling(String other) {
        return new Setting<>(name, fallback, shown, read, description, Optional.of(other), repeatable);
    }

    /** A setting the {@code weft} start script applies, before Java runs. */
    Setting<T> appliedByStartScript() {
        return new Setting<>(name, fallback, shown, read, description, Optional.empty(), repeatable);
    }

    /** The value of the given text, or the default when none is given. */
    T value(String rawOrNull) {
        return rawOrNull == null ? fallback : read.apply(rawOrNull);
    }

    /** The line of {@code --help}. */
    String help() {
        return description + " (" + shown + ")";
    }

    /** A power of two within {@code min..max}, as SQLite's page size must be. */
    static int powerOfTwo(String name, String raw, int min, int max) {
        int value = (int) number(name, raw, min, max);
        if (Integer.bitCount(value) != 1) {
            throw WeftException.badRequest("setting " + name + " must be a power of two between " + min + " and " + max + ": " + raw);
        }
        return value;
    }

    private static long number(String name, String raw, long min, long max) {
        long value;
        try {
            value = Long.parseLong(raw.trim());
        } catch (NumberFormatException e) {
            throw WeftException.badRequest("setting " + name + " is not a number: " + raw);
        }
        if (value < min || value > max) {
            throw WeftException.badRequest("setting " + name + " must be between " + min + " and " + max);
        }
        return value;
    }

    private static String camelCase(String kebab) {
        StringBuilder out = new StringBuilder();
        for (String part : kebab.split("-")) {
            out.append(out.isEmpty() ? part : Character.toUpperCase(part.charAt(0)) + part.substring(1));
        }
        return out.toString();
    }
}
