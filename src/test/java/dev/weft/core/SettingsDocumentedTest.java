package dev.weft.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's settings table against the code: the same names as {@link Settings#DESCRIPTIONS}
 * (the list the command line accepts), and each documented default equal to the value
 * {@link Settings#defaults()} holds. A setting with no record component ({@code heap-max}) is
 * applied by the {@code weft} start script, so its default is read from there.
 */
class SettingsDocumentedTest {
    private static final Path README = Path.of("README.md");
    private static final Path START_SCRIPT = Path.of("weft");
    private static final String TABLE_HEADER = "| setting | default | what |";
    private static final Pattern NAME = Pattern.compile("`([a-z0-9-]+)`");
    private static final Pattern SIZE = Pattern.compile("(\\d+)(?: (KiB|MiB|GiB))?");
    private static final int CORES = Runtime.getRuntime().availableProcessors();
    /** Settings whose record component is not their camel-case name (repeatable: a list). */
    private static final Map<String, String> COMPONENTS_NAMED_OTHERWISE = Map.of("read-replica", "readReplicas");

    /** One documented setting: a table row naming two settings gives two of these. */
    record Documented(String name, String defaultText) {}

    @Test
    void theTableNamesExactlyTheSettingsTheCommandLineAccepts() throws IOException {
        List<String> names = documented().stream().map(Documented::name).toList();

        assertThat(names).doesNotHaveDuplicates();
        assertThat(names).containsExactlyInAnyOrderElementsOf(Settings.DESCRIPTIONS.keySet());
    }

    @Test
    void everyDocumentedDefaultIsTheDefaultWeftUses() throws IOException {
        Settings defaults = Settings.defaults();
        List<String> wrong = new ArrayList<>();
        for (Documented d : documented()) {
            Object actual = defaultValue(defaults, d.name());
            if (!matches(d.defaultText(), actual)) {
                wrong.add(d.name() + ": README says '" + d.defaultText() + "', Weft uses '" + actual + "'");
            }
        }
        assertThat(wrong).isEmpty();
    }

    private static List<Documented> documented() throws IOException {
        List<String> lines = Files.readAllLines(README);
        int header = lines.indexOf(TABLE_HEADER);
        assertThat(header).as("README.md has the settings table").isNotNegative();
        List<Documented> rows = new ArrayList<>();
        for (String line : lines.subList(header + 2, lines.size())) {
            if (!line.startsWith("|")) {
                break;
            }
            rows.addAll(row(line));
        }
        return rows;
    }

    /** {@code | `a`, `b` | x, y | ... |}: each name with its own default, or with the one given for all. */
    private static List<Documented> row(String line) {
        String[] cells = line.split("\\|");
        List<String> names = new ArrayList<>();
        Matcher m = NAME.matcher(cells[1]);
        while (m.find()) {
            names.add(m.group(1));
        }
        assertThat(names).as("setting names in " + line).isNotEmpty();
        String defaults = cells[2].trim();
        List<String> each = Arrays.stream(defaults.split(", ")).toList();
        List<Documented> rows = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            rows.add(new Documented(names.get(i), names.size() == each.size() ? each.get(i) : defaults));
        }
        return rows;
    }

    /** The record component named like the setting, in Settings or in its AuthSettings. */
    private static Object defaultValue(Settings defaults, String name) throws IOException {
        String component = COMPONENTS_NAMED_OTHERWISE.getOrDefault(name, camelCase(name));
        Optional<Object> value = component(defaults, component).or(() -> component(defaults.auth(), component));
        return value.isPresent() ? value.get() : startScriptDefault(name);
    }

    private static Optional<Object> component(Record settings, String name) {
        for (RecordComponent c : settings.getClass().getRecordComponents()) {
            if (c.getName().equals(name)) {
                try {
                    Method accessor = c.getAccessor();
                    return Optional.of(accessor.invoke(settings));
                } catch (ReflectiveOperationException e) {
                    throw new AssertionError(e);
                }
            }
        }
        return Optional.empty();
    }

    /** A setting the {@code weft} script applies: {@code ${WEFT_HEAP_MAX:-2g}}. */
    private static Object startScriptDefault(String name) throws IOException {
        String variable = "WEFT_" + name.toUpperCase().replace('-', '_');
        Matcher m = Pattern.compile("\\$\\{" + variable + ":-([^}]*)}").matcher(Files.readString(START_SCRIPT));
        assertThat(m.find()).as(name + " is neither a component of Settings nor a default of the weft script").isTrue();
        return m.group(1);
    }

    private static String camelCase(String kebab) {
        StringBuilder out = new StringBuilder();
        for (String part : kebab.split("-")) {
            out.append(out.isEmpty() ? part : Character.toUpperCase(part.charAt(0)) + part.substring(1));
        }
        return out.toString();
    }

    /**
     * A documented default against the value: "none" is an absent or empty value, "cores" and
     * "max(2, cores)" and "max(1, cores - 1)" are computed, sizes may carry KiB/MiB/GiB and a remark in brackets
     * ("86400000 (24 h)"), anything else is compared as text.
     */
    private static boolean matches(String text, Object actual) {
        Object value = actual instanceof Optional<?> o ? o.orElse(null) : actual;
        if (text.equals("none")) {
            return value == null || value instanceof List<?> l && l.isEmpty();
        }
        String literal = text.replaceFirst(" \\(.*\\)$", "");
        if (value instanceof Number n) {
            return n.longValue() == number(literal);
        }
        String shown = value instanceof Enum<?> e ? e.name().toLowerCase() : String.valueOf(value);
        return literal.equals(shown);
    }

    private static long number(String literal) {
        if (literal.equals("cores")) {
            return CORES;
        }
        if (literal.equals("max(2, cores)")) {
            return Math.max(2, CORES);
        }
        if (literal.equals("max(1, cores - 1)")) {
            return Math.max(1, CORES - 1);
        }
        Matcher m = SIZE.matcher(literal);
        if (!m.matches()) {
            return Long.MIN_VALUE; // not a number: never equal to one
        }
        long unit = m.group(2) == null ? 1 : switch (m.group(2)) {
            case "KiB" -> 1L << 10;
            case "MiB" -> 1L << 20;
            default -> 1L << 30;
        };
        return Long.parseLong(m.group(1)) * unit;
    }
}
