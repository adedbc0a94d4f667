package dev.weft.store;

import dev.weft.core.WeftException;
import java.util.List;
import java.util.OptionalLong;

/**
 * A store's record of committed changes, kept for a retention window (by age and by count) so
 * that a change stream can resume after a disconnect or a restart with no gap. Events are
 * appended in the same transaction as the writes they describe, so the log holds an event if and
 * only if its write committed. The change-stream engine depends on this interface only: each
 * store numbers its events its own way (SQLite: its writer, in commit order; PostgreSQL: a
 * sequencer that numbers the events every node's transactions committed, see
 * {@code postgres.PgEventLog}), and both decode the same rows ({@code sql.EventRows}).
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

    /**
     * The seq of the first {@link ChangeEvent.Operation#DROP drop} of {@code ns} logged after
     * {@code after}, if any: a stream of {@code ns} resuming from {@code after} would cross it.
     */
    OptionalLong droppedAfter(Namespace ns, long after);

    /** Events with {@code seq <= floor()} are gone. */
    long floor();

    /** The seq of the newest committed event (0 when none ever was). */
    long last();

    /** The 410 for a position whose following events were pruned. */
    static WeftException tooOld() {
        return new WeftException(410, "the resume token is older than the retention window"
                + " (stream-retention-events, stream-retention-ms): events after it were discarded");
    }

    /**
     * The 410 for a position before the drop of the stream's collection: the stream was
     * invalidated there, and what follows belongs to another collection of the same name.
     */
    static WeftException invalidated(Namespace ns, long dropSeq) {
        return new WeftException(410, "the resume token is from before collection " + ns + " was dropped (event "
                + String.format("%016x", dropSeq) + "): that stream was invalidated; open a new stream without a resume token");
    }

    /** The 400 for a position beyond the newest committed event. */
    static WeftException unknownPosition() {
        return WeftException.badRequest("the resume token is not one this server gave");
    }
}
