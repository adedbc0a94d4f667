package dev.weft.store;

import dev.weft.core.WeftException;
import java.util.Optional;

/**
 * The outcome of a {@link WriteOp}. Failures a client caused (409, 404, 412) are results, not
 * exceptions, so a batch can report them per document.
 *
 * @param outcome  what happened
 * @param count    documents inserted, modified, or deleted (matched for bulk ops)
 * @param etag     the new {@code _etag} of a single written document
 * @param message  for failures, what went wrong (e.g. which unique index was violated)
 */
public record WriteResult(Outcome outcome, long count, Optional<String> etag, Optional<String> message) {
    /**
     * {@code INVALID} is a client error found while applying the op (400), for example an update
     * operator applied to a field of the wrong type; {@code message} says what. {@code UNAVAILABLE}
     * is a 503 met while applying it: a bulk write's search past {@code query-timeout-ms}.
     */
    public enum Outcome { CREATED, UPDATED, DELETED, BULK_DONE, NOT_FOUND, CONFLICT, PRECONDITION_FAILED, INVALID, UNAVAILABLE }

    public static WriteResult done(Outcome outcome, long count, String etag) {
        return new WriteResult(outcome, count, Optional.ofNullable(etag), Optional.empty());
    }

    public static WriteResult failed(Outcome outcome, String message) {
        return new WriteResult(outcome, 0, Optional.empty(), Optional.of(message));
    }

    /** An error met while applying an op, as its result: 404, 409, 412 and 503 as such, any other status {@code INVALID}. */
    public static WriteResult failed(WeftException e) {
        Outcome outcome = switch (e.status()) {
            case 404 -> Outcome.NOT_FOUND;
            case 409 -> Outcome.CONFLICT;
            case 412 -> Outcome.PRECONDITION_FAILED;
            case 503 -> Outcome.UNAVAILABLE;
            default -> Outcome.INVALID;
        };
        return failed(outcome, e.getMessage());
    }

    public boolean ok() {
        return outcome == Outcome.CREATED || outcome == Outcome.UPDATED
                || outcome == Outcome.DELETED || outcome == Outcome.BULK_DONE;
    }
}
