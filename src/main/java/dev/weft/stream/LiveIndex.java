package dev.weft.stream;

import dev.weft.store.Namespace;
import java.util.HashMap;
import java.util.Map;

/**
 * Who receives live events, and up to where the live feed has gone: the point where replay and
 * live dispatch meet. Invariant (exactly once, in order): the dispatcher holds {@link #lock}
 * while it dispatches an event and advances {@link #lastDispatched}; a resuming subscriber
 * replays up to {@code lastDispatched} under the same lock and joins with its replay position,
 * so every later event reaches it live, once.
 */
final class LiveIndex {
    final Object lock = new Object();
    private final Map<Namespace, Group> groups = new HashMap<>();
    private volatile long lastDispatched;

    LiveIndex(long lastDispatched) {
        this.lastDispatched = lastDispatched;
    }

    long lastDispatched() {
        return lastDispatched;
    }

    /** Under {@link #lock}: the event at {@code seq} was dispatched. */
    void dispatched(long seq) {
        lastDispatched = seq;
    }

    /** Under {@link #lock}: the live subscribers of {@code ns}, or null. */
    Group group(Namespace ns) {
        return groups.get(ns);
    }

    /** Under {@link #lock}: {@code s} receives live events after {@code from}. */
    void join(Subscriber s, long from) {
        s.joined(from);
        groups.computeIfAbsent(s.query().ns(), ns -> new Group()).add(s);
    }

    /** Takes {@code s} out of the live feed, if it was in it. */
    void leave(Subscriber s) {
        synchronized (lock) {
            if (!s.left()) {
                return;
            }
            Group g = groups.get(s.query().ns());
            if (g == null) {
                return;
            }
            g.remove(s);
            if (g.isEmpty()) {
                groups.remove(s.query().ns());
            }
        }
    }
}
