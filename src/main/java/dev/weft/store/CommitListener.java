package dev.weft.store;

import java.util.List;

/**
 * Told about every commit that changed documents, after the commit is durable: on SQLite on the
 * writer thread before the writers are acknowledged, on PostgreSQL on the event log's reader
 * thread once it has read the commit back (from any node). {@code commit} increases by one or
 * more from one call to the next. Implementations must be quick and must not write to the store
 * (hand the events to a queue).
 */
@FunctionalInterface
public interface CommitListener {
    void committed(long commit, List<ChangeEvent> events);
}
