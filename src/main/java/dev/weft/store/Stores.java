package dev.weft.store;

import dev.weft.core.Json;
import dev.weft.core.Settings;
import dev.weft.store.sqlite.SqliteStore;

/** Opens the store the settings name: the embedded SQLite store in the data directory. */
public final class Stores {
    private Stores() {}

    public static Store open(Settings settings) {
        return new SqliteStore(settings, new Json(settings.maxNestingDepth()));
    }
}
