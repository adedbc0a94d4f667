package dev.weft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.store.postgres.PgTesting;
import java.net.URI;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * A Weft started on a PostgreSQL schema that a newer Weft has upgraded refuses to start: one
 * clear line naming both versions and what to do, a non-zero exit, no stack trace.
 */
class NewerSchemaStartTest {
    @Test
    void aSchemaStampedByANewerWeftStopsTheStartWithOneClearLine() throws Exception {
        String schema = PgTesting.freshSchema();
        String database = URI.create(PgTesting.baseUrl()).getPath().substring(1);
        try {
            try (WeftProcess weft = new WeftProcess(Files.createTempDirectory("weft-schema"), "--store", PgTesting.url(schema))) {
                weft.terminate(); // the first start stamps the schema
            }
            long stamped = PgTesting.number(database, "SELECT version FROM " + schema + ".weft_schema");
            assertThat(stamped).isPositive();
            PgTesting.number(database, "UPDATE " + schema + ".weft_schema SET version = version + 1, weft = '9.9.9'");

            WeftProcess.Exited refused = WeftProcess.runToExit(Files.createTempDirectory("weft-schema"), "--store", PgTesting.url(schema));

            assertThat(refused.code()).as(refused.log()).isNotZero();
            assertThat(refused.log()).contains("weft: cannot open the store: the PostgreSQL schema at")
                    .contains("schema version " + (stamped + 1) + " (upgraded by Weft 9.9.9)")
                    .contains("schema version " + stamped + ")").contains("upgrade this node to Weft 9.9.9 or later")
                    .doesNotContain("Exception").doesNotContain("\tat ");
            assertThat(refused.log().lines().filter(line -> line.contains("schema version"))).hasSize(1);
        } finally {
            PgTesting.dropSchema(schema);
        }
    }
}
