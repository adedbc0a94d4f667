package dev.weft.http;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's own error answers (a bad request line, an ambiguous or illegal URI such as {@code //db},
 * {@code %2f} or {@code %00}, a header too large) in Weft's JSON error body instead of Jetty's
 * HTML page: they are raised before {@link RequestPipeline} sees the request, so a client would
 * otherwise get two shapes of error. The message is Jetty's reason (it names the rule, never
 * server state), and no cause or stack is shown.
 */
final class JsonErrorPages extends ErrorHandler {
    JsonErrorPages() {
        setShowStacks(false);
        setShowCauses(false);
    }

    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
                                    Callback callback) {
        byte[] body = Errors.body(code, reason(code, message));
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    /** A message the parser rejected before any request existed (its status line and headers are Jetty's). */
    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        fields.put(HttpHeader.CONTENT_TYPE, "application/json");
        return ByteBuffer.wrap(Errors.body(status, reason(status, reason)));
    }

    private static String reason(int code, String message) {
        return message == null || message.isBlank() ? HttpStatus.getMessage(code) : message;
    }
}
