package dev.weft.store;

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
    public enum Outcome { CREATED, UPDATED, DELETED, BULK_DONE, NOT_FOUND, CONFLICT, PRECONDITION_FAILED }

    public boolean ok() {
        return outcome == Outcome.CREATED || outcome == Outcome.UPDATED
                || outcome == Outcome.DELETED || outcome == Outcome.BULK_DONE;
    }
}
