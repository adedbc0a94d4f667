package dev.weft.store.postgres;

import dev.weft.store.sqlite.PlannerDifferentialTest;
import org.junit.jupiter.api.Test;

/** The planner's differential test on PostgreSQL: planned SQL reads equal the in-memory evaluator's answers. */
class PostgresDifferentialTest {
    @Test
    void plannedQueriesAnswerLikeAFullScan() {
        String schema = PgTesting.freshSchema();
        try (PostgresStore store = PgStores.open(schema)) {
            new PlannerDifferentialTest().check(store, store::plans, store::indexedPlans,
                    () -> store.lastPlan().description());
        } finally {
            PgTesting.dropSchema(schema);
        }
    }
}
