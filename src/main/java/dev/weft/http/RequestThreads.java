package dev.weft.http;

import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The threads requests run on: a virtual thread per request (where endpoints block freely), and
 * Jetty's pool of platform threads for its own work, with one hand-off between them removed.
 *
 * <p>When a request's virtual thread completes its response, Jetty resumes the connection (reads
 * and parses its next request) by handing the connection to its pool: a parked pool thread is
 * woken (a futex wake and a context switch) only to read a few bytes and hand the next request to
 * a new virtual thread. Here that resumption is kept by the virtual thread that completed the
 * response and run by it once its task has returned, outside every Jetty frame (so nothing is
 * nested: the resumed connection hands its next request to a new virtual thread as before). Only
 * a connection's resumption is kept, at most one per task; any other job, and a resumption asked
 * for by another thread (a response completed by the selector after a blocked write), goes to the
 * pool as before.
 *
 * <p>Invariant: a kept resumption always runs, on the thread that kept it, right after the task
 * that kept it returns or throws.
 */
final class RequestThreads {
    /** The resumption kept by the current request thread's task, if any. */
    private static final ScopedValue<Kept> KEPT = ScopedValue.newInstance();

    private RequestThreads() {}

    /** Runs each task on a new virtual thread named weft-req-N, then the resumption it kept. */
    static Executor virtual() {
        // A thread per task without ThreadPerTaskExecutor's registry of live threads (a concurrent
        // set added to and removed from on every request): nothing here ever closes or awaits it.
        ThreadFactory factory = Thread.ofVirtual().name("weft-req-", 0).factory();
        return task -> factory.newThread(() -> runKeeping(task)).start();
    }

    /** Jetty's pool ({@code weft-io}), which lets a request thread keep its connection's resumption. */
    static QueuedThreadPool pool(int maxThreads, int minThreads) {
        return new QueuedThreadPool(maxThreads, minThreads) {
            @Override
            public void execute(Runnable job) {
                if (!(job instanceof HttpConnection) || !KEPT.isBound() || !KEPT.get().keep(job)) {
                    super.execute(job);
                }
            }
        };
    }

    private static void runKeeping(Runnable task) {
        Kept kept = new Kept();
        ScopedValue.where(KEPT, kept).run(() -> {
            try {
                task.run();
            } finally {
                kept.runAll();
            }
        });
    }

    /** At most one job kept at a time; a second one while it waits goes to the pool. */
    private static final class Kept {
        private Runnable job;

        boolean keep(Runnable next) {
            if (job != null) {
                return false;
            }
            job = next;
            return true;
        }

        void runAll() {
            for (Runnable next = job; next != null; next = job) {
                job = null;
                next.run();
            }
        }
    }
}
