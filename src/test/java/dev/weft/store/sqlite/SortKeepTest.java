package dev.weft.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The native {@code weft_sort_keep(body, name, threshold, descending)} (src/main/c/weft_sort.c),
 * through SQL: it keeps (1) every row it cannot prove strictly worse than the threshold (no
 * threshold, the field missing, null, a string, an array, an object, a boolean, an escaped name
 * passed before the field is found (fields are read from the last one back),
 * a body that is no object, a number followed by a letter), and drops (0) a plain number strictly
 * worse; over random literals (integers past 2^53, fractions, exponents) it drops exactly those
 * whose double is strictly worse, and never one whose exact value ties or beats the threshold.
 */
class SortKeepTest {

    @Test
    void keepsEverythingItCannotProveWorse() throws SQLException {
        try (Connection c = connection()) {
            List<String> kept = List.of("{\"n\":5}", "{\"m\":1}", "{\"n\":null}", "{\"n\":\"1\"}", "{\"n\":[1]}",
                    "{\"n\":{\"a\":1}}", "{\"n\":true}", "{\"\\u006e\":1}", "{\"n\":1,\"a\\\"\":2}", "[1]", "1", "{\"n\":1x}",
                    "{\"n\":-Infinity}", "{\"n\":NaN}", "", "{\"n\":");
            assertThat(keep(c, kept.getFirst(), null, true)).as("worse than 10, but no threshold is bound").isTrue();
            assertThat(keep(c, kept.getFirst(), Double.NaN, true)).as("a NaN threshold").isTrue();
            for (String body : kept.subList(1, kept.size())) {
                assertThat(keep(c, body, 10.0, true)).as(body).isTrue();
                assertThat(keep(c, body, -10.0, false)).as(body).isTrue();
            }
            // strings holding an escaped quote, or ending in an escaped backslash, are skipped whole: n is found and read
            assertThat(keep(c, "{\"a\":\"x\\\"\",\"n\":1}", 10.0, true)).isFalse();
            assertThat(keep(c, "{\"a\":\"x\\\\\",\"n\":1}", 10.0, true)).isFalse();
            // read from the end back: every kind of value after n is passed over to reach it
            String after = "{ \"n\" : 1 , \"a\":\"x\\\\\", \"b\":\"y\\\"}\\\\\\\"\" ,\"c\":[1,\"]\",{\"d\":\"}[\"}],\"e\":-2.5e3,\"f\":null }";
            assertThat(keep(c, after, 10.0, true)).as(after).isFalse();
            assertThat(keep(c, after, 1.0, true)).as(after).isTrue();
            assertThat(keep(c, after.replace("\"n\"", "\"m\""), 10.0, true)).as("missing").isTrue();
        }
    }

    @Test
    void dropsAPlainNumberStrictlyWorse() throws SQLException {
        try (Connection c = connection()) {
            assertThat(keep(c, "{\"n\":5}", 10.0, true)).isFalse();
            assertThat(keep(c, "{\"n\":10}", 10.0, true)).as("a tie").isTrue();
            assertThat(keep(c, "{\"n\":11}", 10.0, true)).isTrue();
            assertThat(keep(c, "{\"n\":11}", 10.0, false)).isFalse();
            assertThat(keep(c, "{\"n\":10.0}", 10.0, false)).as("a tie").isTrue();
            assertThat(keep(c, " { \"a\" : [1,{\"n\":99}], \"b\":{\"n\":[\"]\"]} , \"n\" : -3.5e1 } ", -35.0, false)).isTrue();
            assertThat(keep(c, " { \"a\" : [1,{\"n\":99}], \"b\":{\"n\":[\"]\"]} , \"n\" : -3.5e1 } ", -36.0, false)).isFalse();
            assertThat(keep(c, "{\"n\":-0}", 0.0, true)).as("-0 ties 0").isTrue();
            try (PreparedStatement ps = c.prepareStatement("SELECT weft_sort_keep(?, 'n', 10, 1)")) {
                ps.setBytes(1, "{\"n\":9}".getBytes(StandardCharsets.UTF_8));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    assertThat(rs.getInt(1)).as("an INTEGER threshold").isZero();
                }
            }
            assertThatThrownBy(() -> c.createStatement().executeQuery("SELECT weft_sort_keep('{}', 'n', 1)").next())
                    .isInstanceOf(SQLException.class);
        }
    }

    /** Over random literals: dropped exactly when the literal's double is strictly worse; never when its exact value is not worse. */
    @Test
    void dropsExactlyTheRowsWhoseDoubleIsStrictlyWorse() throws SQLException {
        Random random = new Random(12);
        try (Connection c = connection()) {
            for (int i = 0; i < 20_000; i++) {
                String literal = literal(random);
                double threshold = random.nextBoolean() ? Double.parseDouble(literal(random)) : Double.parseDouble(literal);
                boolean descending = random.nextBoolean();
                double v = Double.parseDouble(literal);
                boolean worse = descending ? v < threshold : v > threshold;
                boolean kept = keep(c, "{\"a\":\"x\",\"n\":" + literal + ",\"z\":[1]}", threshold, descending);
                assertThat(kept).as(literal + " against " + threshold + (descending ? " desc" : " asc")).isEqualTo(!worse);
                if (!kept) {
                    int exact = new BigDecimal(literal).compareTo(new BigDecimal(threshold));
                    assertThat(descending ? exact < 0 : exact > 0).as(literal + " is really worse than " + threshold).isTrue();
                }
            }
        }
    }

    private static String literal(Random random) {
        return switch (random.nextInt(5)) {
            case 0 -> Long.toString(random.nextInt(2000) - 1000);
            case 1 -> Long.toString((1L << 53) + random.nextInt(8) - 4); // neighbours sharing doubles
            case 2 -> Long.toString(random.nextLong());
            case 3 -> (random.nextBoolean() ? "-" : "") + random.nextInt(100) + "." + random.nextInt(1000);
            default -> random.nextInt(10) + "." + random.nextInt(100) + "e" + (random.nextInt(40) - 20);
        };
    }

    private static boolean keep(Connection c, String body, Double threshold, boolean descending) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT weft_sort_keep(?, ?, ?, ?)")) {
            ps.setBytes(1, body.getBytes(StandardCharsets.UTF_8));
            ps.setString(2, "n");
            if (threshold == null) {
                ps.setNull(3, Types.DOUBLE);
            } else {
                ps.setDouble(3, threshold);
            }
            ps.setInt(4, descending ? 1 : 0);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                int answer = rs.getInt(1);
                assertThat(answer).isBetween(0, 1);
                return answer == 1;
            }
        }
    }

    /** An in-memory SQLite with the native library loaded (fails where it was not built). */
    static Connection connection() throws SQLException {
        NativeRanking ranking = NativeRanking.forStore(true);
        assertThat(ranking.enabled()).as("the native library is not built: run scripts/build-native (./weft test does)").isTrue();
        Connection c = DriverManager.getConnection("jdbc:sqlite::memory:");
        ranking.load(c);
        return c;
    }
}
