package dev.weft.store.postgres;

import dev.weft.store.sqlite.TextDifferentialTest;
import org.junit.jupiter.api.Test;

/** The $text differential test on PostgreSQL: the same answers and order as on SQLite. */
class PostgresTextDifferentialTest {
    @Test
    void searchesAnswerLikeTheEvaluatorOverEveryDocument() {
        String schema = PgTesting.freshSchema();
        try (PostgresStore store = PgStores.open(schema)) {
            new TextDifferentialTest().check(store, () -> store.lastPlan().description());
        } finally {
            PgTesting.dropSchema(schema);
        }
    }
}
