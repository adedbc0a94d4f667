package dev.weft.store;

import java.util.List;

/**
 * Told about every commit that changed documents, on the store's writer thread, after the
 * commit is durable and before the writers are acknowledged. {@code commit} increases by one or
 * more from one call to the next. Implementations must be quick and must not write to the store
 * (hand the events to a queue).
 */
@FunctionalInterface
public interface CommitListener {
    void committed(long commit, List<ChangeEvent> events);
}
