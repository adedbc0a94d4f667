package dev.weft.stream;

/**
 * The access a stream was opened with, held by its subscriber so that the hub can check it again
 * while the stream is open ({@link StreamHub#watchAccess}): after a change of the access rules or
 * the users, and at the credential's expiry.
 */
public interface Grant {
    /** Access that never changes (no security, tests). */
    Grant UNCHANGING = current -> current;

    /**
     * {@code current} with the access its user has now (read filter, projection); a
     * {@link dev.weft.core.WeftException} (401, 403) saying why when the user may no longer
     * open the stream. May block (reads the users collection).
     */
    StreamQuery renew(StreamQuery current);

    /** When the credential the stream was opened with expires (epoch ms); {@link Long#MAX_VALUE} for never. */
    default long expiresAtMs() {
        return Long.MAX_VALUE;
    }
}
