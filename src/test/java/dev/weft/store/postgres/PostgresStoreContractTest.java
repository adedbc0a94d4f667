package dev.weft.store.postgres;

import dev.weft.core.Settings;
import dev.weft.store.Store;
import dev.weft.store.StoreContract;
import dev.weft.store.plan.QueryPlanner;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The store contract on PostgreSQL: {@code WEFT_TEST_PG_URL} (scripts/test-env exports it); each
 * store on a fresh schema of its own, dropped after the test. Without the URL every test fails,
 * saying so ({@link PgTesting#baseUrl}): it never skips.
 */
class PostgresStoreContractTest extends StoreContract {
    private String schema;

    @Override
    protected Store open(String... args) {
        if (schema == null) {
            schema = PgTesting.freshSchema();
        } else {
            // a second open in one test (new settings): a fresh schema too
            PgTesting.dropSchema(schema);
            schema = PgTesting.freshSchema();
        }
        String[] all = Stream.concat(Stream.of("--store", PgTesting.url(schema), "--pg-pool-size", "8"), Stream.of(args))
                .toArray(String[]::new);
        return new PostgresStore(Settings.parse(all, Map.of()), JSON);
    }

    @Override
    protected long splitScans() {
        return ((PostgresStore) store).splitScans();
    }

    @Override
    protected QueryPlanner.Plan<?> lastPlan() {
        return ((PostgresStore) store).lastPlan();
    }

    @Override
    protected void cleanUp() {
        if (schema != null) {
            PgTesting.dropSchema(schema);
        }
    }
}
