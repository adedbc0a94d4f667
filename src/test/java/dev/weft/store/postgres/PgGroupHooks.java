package dev.weft.store.postgres;

import dev.weft.store.Store;

/** For HTTP tests on PostgreSQL: makes the next group of writes or reads wait for the requests a test sends at once. */
public final class PgGroupHooks {
    private PgGroupHooks() {}

    /** The next group starts once {@code writes} writes wait (or after {@code maxMs}). */
    public static void gatherNextGroup(Store store, int writes, long maxMs) {
        ((PostgresStore) store).gatherNextGroup(writes, maxMs);
    }

    /** The next group of single-document reads starts once {@code reads} reads wait (or after {@code maxMs}). */
    public static void gatherNextReads(Store store, int reads, long maxMs) {
        ((PostgresStore) store).gatherNextReads(reads, maxMs);
    }
}
