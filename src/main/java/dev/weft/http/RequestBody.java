package dev.weft.http;

import dev.weft.core.WeftException;
import java.io.IOException;
import java.io.InputStream;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;

/**
 * A request's body, read at most once and never past {@code max-body-bytes} in memory. Remembers
 * whether anyone read it, so that an error answer can leave the keep-alive connection usable
 * ({@link #discardUnread}).
 */
final class RequestBody {
    private static final long DRAINED_MAX = 64 * 1024;

    private final Request request;
    private final long maxBodyBytes;
    private boolean touched;
    /** The body once read whole: the authorize stage may read it first (RESTHeart's body predicates). */
    private byte[] read;

    RequestBody(Request request, long maxBodyBytes) {
        this.request = request;
        this.maxBodyBytes = maxBodyBytes;
    }

    /** The whole body, refused with 413 past {@code max-body-bytes}. */
    byte[] bytes() {
        if (read != null) {
            return read;
        }
        touched = true;
        long declared = request.getLength();
        if (declared > maxBodyBytes) {
            throw tooLarge();
        }
        try (InputStream in = stream()) {
            // With a Content-Length (Jetty holds the body to it) one array of that size is read;
            // asking for max-body-bytes would make readNBytes fill 16 KiB buffers for a 400-byte
            // document. A chunked body is read up to the limit.
            int wanted = declared >= 0 ? (int) declared : (int) Math.min(maxBodyBytes + 1, Integer.MAX_VALUE - 8);
            byte[] bytes = in.readNBytes(wanted);
            if (bytes.length > maxBodyBytes) {
                throw tooLarge();
            }
            read = bytes;
            return bytes;
        } catch (IOException e) {
            throw WeftException.badRequest("could not read the request body: " + e.getMessage());
        }
    }

    private WeftException tooLarge() {
        return new WeftException(413, "request body is larger than max-body-bytes (" + maxBodyBytes + ")");
    }

    /** The body as a stream, for ndjson ingest (limited per line by the reader, not in total). */
    InputStream stream() {
        if (read != null) {
            return new java.io.ByteArrayInputStream(read);
        }
        touched = true;
        return Content.Source.asInputStream(request);
    }

    /**
     * Before an error answer to a request whose body nobody read: a small body is read and
     * dropped, so the keep-alive connection stays usable, and true; past {@value #DRAINED_MAX}
     * bytes (or of unknown length) false: the answer is to say {@code Connection: close} instead
     * of reading it. Without this, Jetty closes the connection after the answer and the client's
     * next request on it fails with no response.
     */
    boolean discardUnread() {
        if (touched || (request.getLength() <= 0 && !request.getHeaders().contains("Transfer-Encoding"))) {
            return true;
        }
        long length = request.getLength();
        if (length > 0 && length <= DRAINED_MAX) {
            try (InputStream in = stream()) {
                in.skip(length);
                return true;
            } catch (IOException e) {
                // fall through: the connection is not worth keeping
            }
        }
        return false;
    }
}
