package dev.weft.store.postgres;

import dev.weft.core.Json;
import dev.weft.core.Settings;
import java.util.Map;

/** Opens PostgreSQL stores on a test schema (several on one schema are several Weft nodes). */
final class PgStores {
    private PgStores() {}

    static PostgresStore open(String schema) {
        Settings settings = Settings.parse(new String[] {"--store", PgTesting.url(schema), "--pg-pool-size", "8"}, Map.of());
        return new PostgresStore(settings, Json.standard());
    }
}
