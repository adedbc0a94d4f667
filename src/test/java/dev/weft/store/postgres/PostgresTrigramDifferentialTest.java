package dev.weft.store.postgres;

import dev.weft.store.sqlite.TrigramDifferentialTest;
import org.junit.jupiter.api.Test;

/** The trigram differential test on PostgreSQL. */
class PostgresTrigramDifferentialTest {
    @Test
    void regexesAnswerLikeAFullScanWithAndWithoutATrigramIndex() {
        String schema = PgTesting.freshSchema();
        try (PostgresStore store = PgStores.open(schema)) {
            new TrigramDifferentialTest().check(store, () -> store.lastPlan().description());
        } finally {
            PgTesting.dropSchema(schema);
        }
    }
}
