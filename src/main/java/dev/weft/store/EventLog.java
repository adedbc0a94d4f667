package dev.weft.store;

import java.util.List;

/**
 * A store's record of committed changes, kept for a retention window (by age and by count) so
 * that a change stream can resume after a disconnect or a restart with no gap. Events are
 * appended in the same transaction as the writes they describe, so the log holds an event if and
 * only if its write committed. The change-stream engine depends on this interface only, so that
 * a store whose events come from elsewhere (PostgreSQL logical decoding) can provide its own.
 *
 * <p>Invariant: the retained events are exactly those with {@code floor() < seq <= last()} that
 * committed; pruning only ever removes a prefix, so a position at or after {@link #floor()} can
 * always be resumed without a gap.
 */
public interface EventLog {
    /** Tells {@code listener} of every commit's events, seq-stamped, in commit order. */
    void addCommitListener(CommitListener listener);

    /**
     * Up to {@code limit} events with {@code seq > after}, in order. Throws a 410
     * {@link dev.weft.core.WeftException} when events after {@code after} have been pruned, and a
     * 400 when {@code after} is beyond {@link #last()} (a position this log never gave).
     */
    List<ChangeEvent> after(long after, int limit);

    /** Events with {@code seq <= floor()} are gone. */
    long floor();

    /** The seq of the newest committed event (0 when none ever was). */
    long last();
}
