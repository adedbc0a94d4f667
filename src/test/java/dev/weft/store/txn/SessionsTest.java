package dev.weft.store.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.store.FindQuery;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import dev.weft.store.StoredDocument;
import dev.weft.store.Transaction;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The session registry: numbering, states, ownership, bounds and the idle sweep, on a clock the test moves. */
class SessionsTest {
    /** A transaction that only records how it ended. */
    static final class Recorded implements Transaction {
        String ended;

        @Override public Optional<StoredDocument> get(Namespace ns, JsonNode id) { return Optional.empty(); }
        @Override public void find(Namespace ns, FindQuery query, Consumer<StoredDocument> sink) {}
        @Override public long count(Namespace ns, Filter filter) { return 0; }
        @Override public List<WriteResult> writeAll(List<WriteOp> ops) { return List.of(); }
        @Override public void commit() { ended = "committed"; }
        @Override public void abort() { if (ended == null) { ended = "aborted"; } }
        @Override public boolean open() { return ended == null; }
    }

    private final List<Recorded> begun = new ArrayList<>();
    private final AtomicLong now = new AtomicLong(1_000);
    private final Store store = (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class},
            (proxy, method, args) -> {
                if (method.getName().equals("begin")) {
                    Recorded t = new Recorded();
                    begun.add(t);
                    return t;
                }
                throw new UnsupportedOperationException(method.getName());
            });

    private Sessions sessions(int maxSessions, int maxOpenTxns) {
        return new Sessions(store, maxSessions, 10_000, maxOpenTxns, 500, 5_000, 1_000, now::get);
    }

    @Test
    void transactionsAreNumberedAndGoThroughRestheartsStates() {
        Sessions sessions = sessions(10, 10);
        Sessions.Session s = sessions.create("alice");
        assertThat(s.state()).isEqualTo(new Sessions.TxnState(0, Sessions.Status.NONE));
        assertThat(s.start()).contains(1L);
        assertThat(s.start()).isEmpty(); // one in progress: RESTHeart's 304
        assertThat(s.state()).isEqualTo(new Sessions.TxnState(1, Sessions.Status.IN));
        assertThatThrownBy(() -> s.commit(2)).hasMessage(TxnErrors.NOT_IN_PROGRESS);
        s.commit(1);
        assertThat(begun.getFirst().ended).isEqualTo("committed");
        assertThat(s.state()).isEqualTo(new Sessions.TxnState(1, Sessions.Status.COMMITTED));
        assertThatThrownBy(() -> s.commit(1)).hasMessage(TxnErrors.NOT_IN_PROGRESS);
        assertThatThrownBy(() -> s.inTransaction(1, t -> null)).hasMessage(TxnErrors.NOT_IN_PROGRESS);
        assertThat(s.start()).contains(2L);
        s.abort(2);
        assertThat(s.state()).isEqualTo(new Sessions.TxnState(2, Sessions.Status.ABORTED));
        assertThat(sessions.openTxns()).isZero();
    }

    @Test
    void aSessionIsItsOwnersAndMalformedIdsAre400() {
        Sessions sessions = sessions(10, 10);
        Sessions.Session s = sessions.create("alice");
        assertThat(sessions.session(s.sid(), "alice")).isSameAs(s);
        assertThatThrownBy(() -> sessions.session(s.sid(), "bob"))
                .isInstanceOfSatisfying(WeftException.class, e -> {
                    assertThat(e.status()).isEqualTo(404);
                    assertThat(e.getMessage()).isEqualTo("session " + s.sid() + " does not exist");
                });
        for (String bad : List.of("invalid", "1-1-1-1-1", "", s.sid() + "0", "{" + s.sid() + "}")) {
            assertThatThrownBy(() -> sessions.session(bad, "alice")).as(bad).hasMessage("Invalid session id");
        }
        assertThatThrownBy(() -> Sessions.parseTxn("1.5")).hasMessage("Invalid txn");
        s.end();
        assertThatThrownBy(() -> sessions.session(s.sid(), "alice")).hasMessageContaining("does not exist");
    }

    @Test
    void boundsAreRefusedWithTheSettingsName() {
        Sessions sessions = sessions(2, 1);
        Sessions.Session a = sessions.create("alice");
        Sessions.Session b = sessions.create("alice");
        assertThatThrownBy(() -> sessions.create("alice"))
                .isInstanceOfSatisfying(WeftException.class, e -> assertThat(e.status()).isEqualTo(503))
                .hasMessageContaining("max-sessions");
        a.start();
        assertThatThrownBy(b::start).isInstanceOfSatisfying(WeftException.class, e -> assertThat(e.status()).isEqualTo(503))
                .hasMessageContaining("max-open-txns");
        assertThat(b.state().status()).isEqualTo(Sessions.Status.NONE);
        a.end();
        assertThat(begun.getFirst().ended).isEqualTo("aborted");
        assertThat(b.start()).contains(1L);
    }

    @Test
    void aTransactionIdlePastTheTimeoutIsAbortedButReadingItsStateKeepsNothingAlive() {
        Sessions sessions = sessions(10, 1);
        Sessions.Session s = sessions.create("alice");
        s.start();
        now.addAndGet(400);
        s.inTransaction(1, t -> null); // a request in it: idle again from here
        now.addAndGet(400);
        sessions.sweep();
        assertThat(s.state().status()).isEqualTo(Sessions.Status.IN);
        now.addAndGet(100);
        s.state();
        sessions.sweep();
        assertThat(s.state().status()).isEqualTo(Sessions.Status.ABORTED);
        assertThat(begun.getFirst().ended).isEqualTo("aborted");
        assertThat(sessions.openTxns()).isZero();
        // the session itself lasts until its own timeout
        now.addAndGet(10_000);
        sessions.sweep();
        assertThatThrownBy(() -> sessions.session(s.sid(), "alice")).hasMessageContaining("does not exist");
    }

    @Test
    void aTransactionOpenPastItsLifetimeIsAbortedHoweverBusy() {
        Sessions sessions = sessions(10, 1);
        Sessions.Session s = sessions.create("alice");
        long started = now.get();
        s.start();
        while (s.state().status() == Sessions.Status.IN && now.get() - started < 60_000) {
            s.inTransaction(1, t -> null); // never idle
            now.addAndGet(400);
            sessions.sweep();
        }
        assertThat(now.get() - started).isBetween(5_000L, 5_400L);
        assertThat(s.state()).isEqualTo(new Sessions.TxnState(1, Sessions.Status.ABORTED));
        assertThat(begun.getFirst().ended).isEqualTo("aborted");
    }

    @Test
    void aConflictMetInsideLeavesTheTransactionAborted() {
        Sessions sessions = sessions(10, 1);
        Sessions.Session s = sessions.create("alice");
        s.start();
        assertThatThrownBy(() -> s.inTransaction(1, t -> {
            t.abort(); // what a store's transaction does on a write conflict
            throw TxnErrors.writeConflict();
        })).hasMessage(TxnErrors.WRITE_CONFLICT);
        assertThat(s.state()).isEqualTo(new Sessions.TxnState(1, Sessions.Status.ABORTED));
        assertThat(sessions.openTxns()).isZero();
        sessions.close();
        assertThatThrownBy(() -> sessions.create("alice")).hasMessageContaining("stopping");
    }
}
