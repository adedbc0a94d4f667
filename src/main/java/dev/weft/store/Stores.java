package dev.weft.store;

import dev.weft.core.Json;
import dev.weft.core.Settings;
import dev.weft.store.postgres.PostgresStore;
import dev.weft.store.sqlite.SqliteStore;

/** Opens the store the settings name: the embedded SQLite store in the data directory, or PostgreSQL. */
public final class Stores {
    private Stores() {}

    public static Store open(Settings settings) {
        Json json = new Json(settings.maxNestingDepth());
        return settings.postgres() ? new PostgresStore(settings, json) : new SqliteStore(settings, json);
    }
}
