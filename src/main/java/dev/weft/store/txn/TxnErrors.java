package dev.weft.store.txn;

import dev.weft.core.WeftException;

/** The errors of transactions, worded as RESTHeart words them (its karate suite matches the messages). */
public final class TxnErrors {
    public static final String NOT_IN_PROGRESS = "The given transaction is not in-progress";
    public static final String WRITE_CONFLICT = "Write conflict inside transaction";

    private TxnErrors() {}

    /** Another transaction wrote the document first, or it changed before this one committed: this one is aborted. */
    public static WeftException writeConflict() {
        return WeftException.conflict(WRITE_CONFLICT);
    }

    public static WeftException notInProgress() {
        return WeftException.badRequest(NOT_IN_PROGRESS);
    }

    /** What a transaction's writes may hold before commit: 413 naming the setting. */
    public static WeftException tooLarge(long maxBytes) {
        return new WeftException(413, "the transaction would hold more than txn-max-bytes (" + maxBytes
                + ") bytes of written documents; commit it and go on in another one");
    }
}
