package dev.weft.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * HTTP/1.1 connections whose request headers must be complete within {@code header-timeout-ms}
 * of the request's first byte ({@code header-timeout-ms}); past it the client gets 408 and the
 * connection closes. Jetty's idle timeout alone restarts with every byte, so a client sending a
 * header a byte a second held its connection slot for as long as it liked, and
 * {@code max-connections} such clients locked everyone else out.
 *
 * <p>Most requests arrive whole in one read and never touch a timer: one is armed only when a
 * read leaves the parser inside a request's first line or headers, for that request (named by
 * the parser's begin time), and cancelled when its headers complete. The timer and the parsing
 * thread race for the request through one atomic word, so a request is either handled or
 * answered 408, never both.
 */
final class HeaderDeadline extends HttpConnectionFactory {
    private final long timeoutMs;
    private final LongAdder expired = new LongAdder();

    HeaderDeadline(HttpConfiguration config, long timeoutMs) {
        super(config);
        this.timeoutMs = timeoutMs;
    }

    /** Requests answered 408 because their headers were late. */
    long expired() {
        return expired.sum();
    }

    @Override
    public Connection newConnection(Connector connector, EndPoint endPoint) {
        TimedConnection connection = new TimedConnection(getHttpConfiguration(), connector, endPoint);
        connection.setTransferEncodingChunkMaxLength(getTransferEncodingChunkMaxLength());
        return configure(connection, connector, endPoint);
    }

    private final class TimedConnection extends HttpConnection {
        /** No request's headers are being timed. */
        private static final long UNTIMED = Long.MIN_VALUE;
        /** The timer won: 408 is being sent and the connection closes; nothing more is parsed. */
        private static final long EXPIRED = Long.MIN_VALUE + 1;

        /** The begin time of the request whose headers are timed, or one of the two states above. */
        private final AtomicLong timed = new AtomicLong(UNTIMED);
        private final Scheduler scheduler;
        private volatile Scheduler.Task timer;

        TimedConnection(HttpConfiguration config, Connector connector, EndPoint endPoint) {
            super(config, connector, endPoint);
            this.scheduler = connector.getScheduler();
        }

        @Override
        protected RequestHandler newRequestHandler() {
            return new TimedRequestHandler();
        }

        @Override
        public void onFillable() {
            if (timed.get() == EXPIRED) {
                return;
            }
            super.onFillable();
            HttpParser parser = getParser();
            if (!parser.isStart() && parser.inHeaderState()) {
                arm(parser.getBeginNanoTime());
            }
        }

        /**
         * Times the headers of the request that began at {@code begin}, once. When a request is
         * handled on another thread, this may run while that thread already parses the next
         * request: the begin time read then may be stale, which {@link #expire} checks.
         */
        private void arm(long begin) {
            long current = timed.get();
            if (current == begin || current == EXPIRED || !timed.compareAndSet(current, begin)) {
                return;
            }
            long left = Math.max(0, timeoutMs - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin));
            Scheduler.Task previous = timer;
            timer = scheduler.schedule(() -> expire(begin), left, TimeUnit.MILLISECONDS);
            if (previous != null) {
                previous.cancel();
            }
        }

        private void expire(long begin) {
            HttpParser parser = getParser();
            if (parser.getBeginNanoTime() != begin || parser.isStart() || !parser.inHeaderState()
                    || !timed.compareAndSet(begin, EXPIRED)) {
                return;
            }
            expired.increment();
            EndPoint endPoint = getEndPoint();
            endPoint.write(Callback.from(endPoint::close, endPoint::close), timeoutResponse());
        }

        /** Takes the request from the timer; false when the timer already answered it. */
        private boolean untime() {
            while (true) {
                long current = timed.get();
                if (current == EXPIRED) {
                    return false;
                }
                if (current == UNTIMED || timed.compareAndSet(current, UNTIMED)) {
                    break;
                }
            }
            Scheduler.Task t = timer;
            if (t != null) {
                timer = null;
                t.cancel();
            }
            return true;
        }

        @Override
        public void onClose(Throwable cause) {
            Scheduler.Task t = timer;
            if (t != null) {
                t.cancel();
            }
            super.onClose(cause);
        }

        private final class TimedRequestHandler extends RequestHandler {
            @Override
            public boolean headerComplete() {
                return untime() && super.headerComplete();
            }

            @Override
            public void badMessage(HttpException failure) {
                if (untime()) {
                    super.badMessage(failure);
                }
            }

            @Override
            public void earlyEOF() {
                if (untime()) {
                    super.earlyEOF();
                }
            }
        }
    }

    private ByteBuffer timeoutResponse() {
        byte[] body = Errors.body(408, "the request headers took longer than header-timeout-ms (" + timeoutMs + ")");
        String head = "HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length + "\r\nConnection: close\r\n\r\n";
        ByteBuffer out = ByteBuffer.allocate(head.length() + body.length);
        out.put(head.getBytes(StandardCharsets.US_ASCII)).put(body).flip();
        return out;
    }
}
