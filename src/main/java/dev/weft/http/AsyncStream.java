package dev.weft.http;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.function.Consumer;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The open response of {@link Exchange#openAsync}: one write at a time (the caller's duty), completed
 * once. It is its own write callback (no allocation per write but the buffer's wrapper), and a
 * non-blocking one: Jetty completes a write on the selector thread instead of handing the
 * completion to a new thread.
 */
final class AsyncStream implements Callback {
    private static final VarHandle COMPLETED;
    private static final VarHandle DONE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            COMPLETED = lookup.findVarHandle(AsyncStream.class, "completed", boolean.class);
            DONE = lookup.findVarHandle(AsyncStream.class, "done", Consumer.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Response response;
    private final Callback callback;
    @SuppressWarnings("unused") // through COMPLETED
    private volatile boolean completed;
    @SuppressWarnings("unused") // through DONE
    private volatile Consumer<Throwable> done;

    AsyncStream(Response response, Callback callback) {
        this.response = response;
        this.callback = callback;
    }

    /** Writes {@code bytes}; {@code done} gets null once they are written, or the failure. */
    void write(byte[] bytes, Consumer<Throwable> done) {
        if (!DONE.compareAndSet(this, null, done)) {
            throw new IllegalStateException("a write is already in flight");
        }
        response.write(false, ByteBuffer.wrap(bytes), this);
    }

    @Override
    public void succeeded() {
        complete(null);
    }

    @Override
    public void failed(Throwable failure) {
        complete(failure);
    }

    @SuppressWarnings("unchecked")
    private void complete(Throwable failure) {
        Consumer<Throwable> d = (Consumer<Throwable>) DONE.getAndSet(this, null);
        if (d != null) {
            d.accept(failure);
        }
    }

    @Override
    public InvocationType getInvocationType() {
        return InvocationType.NON_BLOCKING;
    }

    void end() {
        if (COMPLETED.compareAndSet(this, false, true)) {
            response.write(true, null, callback);
        }
    }

    void abort(Throwable why) {
        if (COMPLETED.compareAndSet(this, false, true)) {
            callback.failed(why);
        }
    }
}
