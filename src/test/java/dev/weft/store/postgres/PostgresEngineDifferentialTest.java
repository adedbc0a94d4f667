package dev.weft.store.postgres;

import dev.weft.store.sqlite.EngineDifferentialTest;
import org.junit.jupiter.api.Test;

/** The engine's differential test on PostgreSQL (WEFT_TEST_PG_URL; fails without it). */
class PostgresEngineDifferentialTest {
    @Test
    void prefilterLeavesTheEvaluatorOnlyDocumentsHoldingTheLiteral() {
        String schema = PgTesting.freshSchema();
        try (PostgresStore store = PgStores.open(schema)) {
            new EngineDifferentialTest().checkPrefilter(store);
        } finally {
            PgTesting.dropSchema(schema);
        }
    }

    @Test
    void storeAnswersLikeTheReferenceEvaluator() {
        String schema = PgTesting.freshSchema();
        try (PostgresStore store = PgStores.open(schema)) {
            new EngineDifferentialTest().check(store);
        } finally {
            PgTesting.dropSchema(schema);
        }
    }
}
