package dev.weft.store.txn;

import dev.weft.core.Settings;
import dev.weft.core.WeftException;
import dev.weft.store.Store;
import dev.weft.store.Transaction;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RESTHeart's client sessions and their transactions, kept by this server: a session is created
 * by {@code POST /_sessions} and belongs to the principal that created it (to anyone else its id
 * names nothing: 404, as an unknown one); it runs one transaction at a time, numbered 1, 2, ...,
 * each {@link Status#IN} progress until committed or aborted.
 *
 * <p>Bounds, each a setting: sessions open at once ({@code max-sessions}), transactions open at
 * once ({@code max-open-txns}, 503 past it), a session unused for {@code session-idle-timeout-ms}
 * is ended, and a transaction with no request for {@code txn-idle-timeout-ms}, or open for
 * {@code txn-lifetime-ms}, is aborted by a background sweep, releasing what it holds. Requests of one session run one at a time (a second
 * waits up to {@code query-timeout-ms} for the first, then 409); the sweep never waits for a
 * session in use, which is not idle.
 */
public final class Sessions implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Sessions.class);

    /** RESTHeart's transaction states: NONE before the first transaction of a session. */
    public enum Status { NONE, IN, COMMITTED, ABORTED }

    /** The current (last started) transaction of a session. */
    public record TxnState(long id, Status status) {}

    private final Store store;
    private final int maxSessions;
    private final long sessionIdleMs;
    private final int maxOpenTxns;
    private final long txnIdleMs;
    private final long txnLifetimeMs;
    private final long busyWaitMs;
    private final LongSupplier clock;
    private final ConcurrentHashMap<UUID, Session> sessions = new ConcurrentHashMap<>();
    private final AtomicInteger openTxns = new AtomicInteger();
    private final Object reaperLock = new Object();
    private Thread reaper;
    private volatile boolean closed;

    public Sessions(Store store, Settings settings) {
        this(store, settings.maxSessions(), settings.sessionIdleTimeoutMs(), settings.maxOpenTxns(),
                settings.txnIdleTimeoutMs(), settings.txnLifetimeMs(), settings.queryTimeoutMs(), System::currentTimeMillis);
    }

    Sessions(Store store, int maxSessions, long sessionIdleMs, int maxOpenTxns, long txnIdleMs, long txnLifetimeMs,
             long busyWaitMs, LongSupplier clock) {
        this.store = store;
        this.maxSessions = maxSessions;
        this.sessionIdleMs = sessionIdleMs;
        this.maxOpenTxns = maxOpenTxns;
        this.txnIdleMs = txnIdleMs;
        this.txnLifetimeMs = txnLifetimeMs;
        this.busyWaitMs = busyWaitMs;
        this.clock = clock;
    }

    /** A new session of {@code owner}; 503 when {@code max-sessions} are open. */
    public Session create(String owner) {
        if (closed) {
            throw new WeftException(503, "the server is stopping");
        }
        if (sessions.size() >= maxSessions) {
            sweep();
            if (sessions.size() >= maxSessions) {
                throw new WeftException(503, "too many open sessions (max-sessions = " + maxSessions
                        + "); end one (DELETE /_sessions/{sid}) or retry later");
            }
        }
        startReaper();
        Session s = new Session(UUID.randomUUID(), owner);
        sessions.put(s.sid, s);
        return s;
    }

    /** The session {@code sid} names for {@code owner}: 400 when it is no session id, 404 when it is unknown or another's. */
    public Session session(String sid, String owner) {
        Session s = sessions.get(parseSid(sid));
        if (s == null || !s.owner.equals(owner)) {
            throw WeftException.notFound("session " + sid + " does not exist");
        }
        return s;
    }

    /** A session id in its canonical form (as this server hands them out), else 400. */
    static UUID parseSid(String sid) {
        try {
            UUID uuid = UUID.fromString(sid);
            if (uuid.toString().equals(sid.toLowerCase(Locale.ROOT))) {
                return uuid;
            }
        } catch (IllegalArgumentException e) {
            // answered below
        }
        throw WeftException.badRequest("Invalid session id");
    }

    /** A transaction number as RESTHeart takes it (a long), else 400. */
    public static long parseTxn(String txn) {
        try {
            return Long.parseLong(txn);
        } catch (NumberFormatException e) {
            throw WeftException.badRequest("Invalid txn");
        }
    }

    /** Transactions open now. */
    public int openTxns() {
        return openTxns.get();
    }

    /** One client session: its owner, its transaction number and state, and the open transaction. */
    public final class Session {
        private final UUID sid;
        private final String owner;
        private final ReentrantLock lock = new ReentrantLock();
        private long number;
        private Status status = Status.NONE;
        private Transaction txn;
        private volatile long lastUsed;
        /** When a request last ran in the open transaction (reading its state does not count), and when it started. */
        private long txnUsed;
        private long txnStarted;

        private Session(UUID sid, String owner) {
            this.sid = sid;
            this.owner = owner;
            this.lastUsed = clock.getAsLong();
        }

        public String sid() {
            return sid.toString();
        }

        /** Runs {@code body} holding this session (one request at a time), then marks it used. */
        private <R> R locked(Function<Session, R> body) {
            try {
                if (!lock.tryLock(busyWaitMs, TimeUnit.MILLISECONDS)) {
                    throw WeftException.conflict("session " + sid + " is busy with another request (waited query-timeout-ms)");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new WeftException(503, "interrupted while waiting for session " + sid);
            }
            try {
                if (!sessions.containsKey(sid)) {
                    throw WeftException.notFound("session " + sid + " does not exist");
                }
                return body.apply(this);
            } finally {
                lastUsed = clock.getAsLong();
                lock.unlock();
            }
        }

        /** Marks the session used (a request in it without a transaction). */
        public void touch() {
            locked(s -> null);
        }

        /** Starts the next transaction: its number, or empty when one is in progress (RESTHeart's 304). */
        public Optional<Long> start() {
            return locked(s -> {
                if (status == Status.IN) {
                    return Optional.empty();
                }
                if (openTxns.incrementAndGet() > maxOpenTxns) {
                    openTxns.decrementAndGet();
                    throw new WeftException(503, "too many open transactions (max-open-txns = " + maxOpenTxns
                            + "); commit or abort one, or retry later");
                }
                try {
                    txn = store.begin();
                } catch (RuntimeException e) {
                    openTxns.decrementAndGet();
                    throw e;
                }
                number++;
                status = Status.IN;
                txnUsed = clock.getAsLong();
                txnStarted = txnUsed;
                return Optional.of(number);
            });
        }

        public TxnState state() {
            return locked(s -> new TxnState(number, status));
        }

        /** Commits transaction {@code n}: 400 unless it is the one in progress; 409 (and aborted) on a write conflict. */
        public void commit(long n) {
            locked(s -> {
                Transaction t = inProgress(n);
                try {
                    t.commit();
                    finish(Status.COMMITTED);
                } catch (RuntimeException e) {
                    t.abort();
                    finish(Status.ABORTED);
                    throw e;
                }
                return null;
            });
        }

        /** Aborts transaction {@code n}: 400 unless it is the one in progress. */
        public void abort(long n) {
            locked(s -> {
                inProgress(n).abort();
                finish(Status.ABORTED);
                return null;
            });
        }

        /** Runs {@code body} in transaction {@code n} (400 unless it is in progress); a conflict it met leaves it aborted. */
        public <R> R inTransaction(long n, Function<Transaction, R> body) {
            return locked(s -> {
                Transaction t = inProgress(n);
                try {
                    return body.apply(t);
                } finally {
                    txnUsed = clock.getAsLong();
                    if (!t.open()) {
                        finish(Status.ABORTED);
                    }
                }
            });
        }

        /** Ends the session, aborting its open transaction. */
        public void end() {
            locked(s -> {
                endHeld();
                return null;
            });
        }

        private void endHeld() {
            if (status == Status.IN) {
                txn.abort();
                finish(Status.ABORTED);
            }
            sessions.remove(sid, this);
        }

        private Transaction inProgress(long n) {
            if (status != Status.IN || n != number) {
                throw TxnErrors.notInProgress();
            }
            return txn;
        }

        private void finish(Status end) {
            status = end;
            txn = null;
            openTxns.decrementAndGet();
        }

        /** For the sweep: aborts an idle transaction, ends an idle session; skips a session in use. */
        private void expire(long now) {
            if (!lock.tryLock()) {
                return;
            }
            try {
                boolean idle = now - txnUsed >= txnIdleMs;
                if (status == Status.IN && (idle || now - txnStarted >= txnLifetimeMs)) {
                    LOG.info("transaction {} of session {} aborted: {}", number, sid,
                            idle ? "idle past txn-idle-timeout-ms" : "open past txn-lifetime-ms");
                    txn.abort();
                    finish(Status.ABORTED);
                }
                if (now - lastUsed >= sessionIdleMs) {
                    endHeld();
                }
            } catch (RuntimeException e) {
                LOG.warn("expiring session {} failed", sid, e);
            } finally {
                lock.unlock();
            }
        }
    }

    /** Aborts idle transactions and ends idle sessions. */
    void sweep() {
        long now = clock.getAsLong();
        sessions.values().forEach(s -> s.expire(now));
    }

    private void startReaper() {
        synchronized (reaperLock) {
            if (reaper != null) {
                return;
            }
            long every = Math.clamp(Math.min(Math.min(txnIdleMs, txnLifetimeMs), sessionIdleMs) / 4, 5, 1000);
            reaper = Thread.ofVirtual().name("weft-txn-reaper").start(() -> {
                while (!closed) {
                    try {
                        Thread.sleep(every);
                    } catch (InterruptedException e) {
                        return;
                    }
                    sweep();
                }
            });
        }
    }

    /** Stops the sweep and aborts every open transaction (releasing connections before the store closes). */
    @Override
    public void close() {
        closed = true;
        synchronized (reaperLock) {
            if (reaper != null) {
                reaper.interrupt();
            }
        }
        sessions.values().forEach(s -> {
            try {
                s.end();
            } catch (RuntimeException e) {
                LOG.warn("ending session {} at stop failed", s.sid(), e);
            }
        });
    }
}
