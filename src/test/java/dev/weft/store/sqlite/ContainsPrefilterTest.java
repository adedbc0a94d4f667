package dev.weft.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The native {@code weft_contains(body, literal)} (src/main/c/weft_contains.c), through SQL: it
 * answers exactly whether the literal's bytes occur in the body (Java's own search decides here,
 * over random bodies and literals, UTF-8 and NUL bytes included), and 0 for NULL arguments or an
 * empty literal (the prefilter never renders one); the SQLite dialect renders case-sensitive
 * literals with it once the library is loaded.
 */
class ContainsPrefilterTest {

    @Test
    void answersWhetherTheBytesOccur() throws SQLException {
        Random r = new Random(5);
        byte[] alphabet = "pachxé\u0000\"\\*?[".getBytes(StandardCharsets.UTF_8);
        try (Connection c = connection(); PreparedStatement ps = c.prepareStatement("SELECT weft_contains(?, ?)")) {
            for (int i = 0; i < 20_000; i++) {
                byte[] body = random(r, alphabet, r.nextInt(80));
                byte[] literal = r.nextInt(3) == 0 && body.length > 0 ? slice(r, body) : random(r, alphabet, 1 + r.nextInt(5));
                ps.setBytes(1, body);
                ps.setBytes(2, literal);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    assertThat(rs.getInt(1) == 1).as("%s in %s", new String(literal, StandardCharsets.UTF_8),
                            new String(body, StandardCharsets.UTF_8)).isEqualTo(occurs(body, literal));
                }
            }
            assertThat(one(c, "SELECT weft_contains(NULL, X'70')")).isZero();
            assertThat(one(c, "SELECT weft_contains(X'70', NULL)")).isZero();
            assertThat(one(c, "SELECT weft_contains(X'70', X'')")).isZero();
            assertThat(one(c, "SELECT weft_contains(CAST('{\"u\":\"apache\"}' AS BLOB), X'70616368')")).isOne();
        }
    }

    @Test
    void theDialectUsesItOnceTheLibraryIsLoaded() {
        assertThat(new SqliteDialect(100, 100, 0, true).textPrefilter()).isEqualTo(dev.weft.store.plan.TextPrefilter.Dialect.SQLITE_NATIVE);
        assertThat(new SqliteDialect(100, 100, 0, false).textPrefilter()).isEqualTo(dev.weft.store.plan.TextPrefilter.Dialect.SQLITE);
    }

    private static int one(Connection c, String sql) throws SQLException {
        try (ResultSet rs = c.createStatement().executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static byte[] random(Random r, byte[] alphabet, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = alphabet[r.nextInt(alphabet.length)];
        }
        return b;
    }

    private static byte[] slice(Random r, byte[] body) {
        int from = r.nextInt(body.length);
        int to = from + 1 + r.nextInt(Math.min(6, body.length - from));
        return java.util.Arrays.copyOfRange(body, from, to);
    }

    private static boolean occurs(byte[] body, byte[] literal) {
        outer:
        for (int i = 0; i + literal.length <= body.length; i++) {
            for (int j = 0; j < literal.length; j++) {
                if (body[i + j] != literal[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static Connection connection() throws SQLException {
        return SortKeepTest.connection();
    }
}
