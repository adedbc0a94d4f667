package dev.weft.store.plan;

import dev.weft.query.BoundedMemo;
import dev.weft.query.Filter;
import dev.weft.query.TextCondition;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * A filter's {@link TextCondition} as a SQL condition on the stored JSON column, so that the
 * database skips, in C, the rows that cannot match before Java sees them. Only ever a necessary
 * condition: every row that passes is still evaluated, so answers never depend on it.
 *
 * <p>SQLite: {@code CAST(body AS TEXT) GLOB '*literal*'} (measured 2.3 times faster than
 * {@code instr} on the BLOB, bench/results/engine-20-list-prefilter.txt: GLOB jumps to each
 * occurrence of the literal's first character with {@code strcspn}, instr compares byte by byte;
 * the cast because older SQLite versions do not match patterns on a BLOB); ASCII case-insensitive literals as {@code LIKE ? ESCAPE '\'} (LIKE folds ASCII only,
 * which is why such literals are ASCII). With Weft's native library loaded, a case-sensitive
 * literal is {@code weft_contains(body, ?)} instead (src/main/c/weft_contains.c: memmem, which does
 * not stop at each occurrence of the first byte). PostgreSQL: {@code position(? in body) > 0} on the
 * bytea; case-insensitive literals as {@code ILIKE} on the text.
 */
public record TextPrefilter(String sql, List<Object> args) {
    /** No condition. */
    public static final TextPrefilter NONE = new TextPrefilter("", List.of());

    /** SQLITE_NATIVE: SQLite with Weft's native library loaded (its {@code weft_contains}). */
    public enum Dialect { SQLITE, SQLITE_NATIVE, POSTGRESQL }

    /**
     * A LIKE or GLOB pattern bound bare ({@code GLOB ?}) makes SQLite prepare the statement again
     * at every execution (the pattern's value might change the plan), which cost a small query
     * four times its own work (bench/results/list-path-1.txt); an expression of it does not.
     */
    private static final String SQLITE_PATTERN = "(? || '')";

    /** Most conditions whose SQL is kept; past it they are rendered again. */
    static final int MAX_RENDERED = 1024;
    /**
     * The SQL of each (condition, dialect, column) rendered before: a query asked again is not
     * rendered again. Its keys are small: at most {@link TextCondition#MAX_LITERALS} literals.
     */
    private static final BoundedMemo<Key, TextPrefilter> RENDERED = new BoundedMemo<>(MAX_RENDERED);

    private record Key(TextCondition condition, Dialect dialect, String column) {}

    /**
     * The condition for {@code filter} on {@code column} (e.g. {@code body} or {@code d.body}),
     * as {@code " AND (...)"} to append to a WHERE clause, or {@link #NONE}.
     */
    public static TextPrefilter of(Filter filter, Dialect dialect, String column) {
        if (filter == null) {
            return NONE;
        }
        TextCondition c = filter.requiredText().bounded(TextCondition.MAX_LITERALS);
        if (c instanceof TextCondition.Always) {
            return NONE;
        }
        return RENDERED.get(new Key(c, dialect, column), TextPrefilter::rendered);
    }

    private static TextPrefilter rendered(Key key) {
        TextCondition c = key.condition();
        Dialect dialect = key.dialect();
        String column = key.column();
        List<Object> args = new ArrayList<>();
        StringBuilder sql = new StringBuilder(" AND ");
        render(c, dialect, column, sql, args);
        return new TextPrefilter(sql.toString(), List.copyOf(args));
    }

    private static void render(TextCondition c, Dialect dialect, String column, StringBuilder sql, List<Object> args) {
        switch (c) {
            case TextCondition.Always a -> sql.append("1 = 1");
            case TextCondition.Contains t when t.ignoreCase() -> {
                sql.append(dialect != Dialect.POSTGRESQL
                        ? "CAST(" + column + " AS TEXT) LIKE " + SQLITE_PATTERN + " ESCAPE '\\'"
                        : "convert_from(" + column + ", 'UTF8') ILIKE ? ESCAPE '\\'");
                args.add("%" + likeEscaped(t.text()) + "%");
            }
            case TextCondition.Contains t when dialect == Dialect.SQLITE_NATIVE -> {
                sql.append("weft_contains(").append(column).append(", ?)");
                args.add(t.text().getBytes(StandardCharsets.UTF_8));
            }
            case TextCondition.Contains t when dialect == Dialect.SQLITE -> {
                sql.append("CAST(").append(column).append(" AS TEXT) GLOB ").append(SQLITE_PATTERN);
                args.add("*" + globEscaped(t.text()) + "*");
            }
            case TextCondition.Contains t -> {
                sql.append("position(? in ").append(column).append(") > 0");
                args.add(t.text().getBytes(StandardCharsets.UTF_8));
            }
            case TextCondition.AllOf a -> join(a.all(), " AND ", dialect, column, sql, args);
            case TextCondition.AnyOf o -> join(o.any(), " OR ", dialect, column, sql, args);
        }
    }

    private static void join(List<TextCondition> parts, String op, Dialect dialect, String column, StringBuilder sql,
                             List<Object> args) {
        sql.append('(');
        for (int i = 0; i < parts.size(); i++) {
            if (i > 0) {
                sql.append(op);
            }
            render(parts.get(i), dialect, column, sql, args);
        }
        sql.append(')');
    }

    /** GLOB has no escape character: its wildcards match themselves inside brackets. */
    private static String globEscaped(String text) {
        StringBuilder out = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '*' || c == '?' || c == '[') {
                out.append('[').append(c).append(']');
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static String likeEscaped(String text) {
        return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
    }

    /** Binds the arguments from parameter {@code first} on; returns the next parameter's index. */
    public int bind(PreparedStatement ps, int first) throws SQLException {
        int p = first;
        for (Object arg : args) {
            if (arg instanceof byte[] bytes) {
                ps.setBytes(p++, bytes);
            } else {
                ps.setString(p++, (String) arg);
            }
        }
        return p;
    }
}
