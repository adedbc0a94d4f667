package dev.weft.store.postgres;

import dev.weft.store.Store;

/** For HTTP tests on PostgreSQL: makes group commit's next group wait for the writes a test sends at once. */
public final class PgGroupHooks {
    private PgGroupHooks() {}

    /** The next group starts once {@code writes} writes wait (or after {@code maxMs}). */
    public static void gatherNextGroup(Store store, int writes, long maxMs) {
        ((PostgresStore) store).gatherNextGroup(writes, maxMs);
    }
}
