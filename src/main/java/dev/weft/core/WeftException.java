package dev.weft.core;

/**
 * The one error type of the request path. Every failure a client can cause ends here, carrying
 * the HTTP status it maps to; the HTTP layer turns it into RESTHeart's error body. Anything else
 * thrown is a bug and is answered 500 without its stack trace.
 */
public final class WeftException extends RuntimeException {
    private final int status;

    public WeftException(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }

    public static WeftException badRequest(String message) {
        return new WeftException(400, message);
    }

    public static WeftException notFound(String message) {
        return new WeftException(404, message);
    }

    public static WeftException conflict(String message) {
        return new WeftException(409, message);
    }

    public static WeftException preconditionFailed(String message) {
        return new WeftException(412, message);
    }
}
