package dev.weft.store.sql;

import dev.weft.store.Catalog;
import java.util.Optional;

/**
 * The rows of small collections a store keeps in memory, for scans that would otherwise read
 * every body from the database only to test a literal in it (the seed-000 regex list). Kept
 * current by the store's commits, so it is the table, not a cache of answers: a scan reads it
 * instead of the table and evaluates the filter on each row as always.
 *
 * <p>Invariant a store must hold: {@link #rows} answers the collection exactly as some committed
 * state left it, at least as new as every write acknowledged before the call.
 */
public interface HeldRows {
    /** The collection's rows, or empty when they are not kept (the store may start keeping them). */
    Optional<Rows> rows(Catalog.Coll coll);

    /** Keeps nothing. */
    HeldRows NONE = coll -> Optional.empty();

    /**
     * A collection's rows in the table's order: {@code ids} the id column's bytes, ascending
     * (unsigned, as the database compares BLOBs), {@code bodies} each body's stored bytes as an
     * ISO-8859-1 string, {@code sketches} each body's {@link dev.weft.store.plan.HeldText#sketch}.
     * Never changed once made.
     */
    record Rows(String table, byte[][] ids, String[] bodies, long[][] sketches) {
        public int size() {
            return ids.length;
        }
    }
}
