package dev.weft.http;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.store.Store;
import dev.weft.store.txn.Sessions;
import dev.weft.store.txn.TransactionView;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * RESTHeart's sessions API: {@code POST /_sessions} (201, {@code Location} naming the session),
 * {@code DELETE /_sessions/{sid}} (ends it, aborting its transaction), {@code GET} and
 * {@code POST /_sessions/{sid}/_txns} (the current transaction's state; start the next one: 201
 * with its number in {@code Location}, 304 while one is in progress), and {@code PATCH} (commit)
 * and {@code DELETE} (abort) of {@code /_sessions/{sid}/_txns/{txn}}. The registry and its
 * bounds are {@link Sessions}'.
 *
 * <p>{@link #handle} runs any other request that names {@code sid} and {@code txn} inside that
 * transaction: its endpoint is the usual one, reading and writing through
 * {@link Api#store()}, which inside is the transaction's {@link TransactionView}, so the access
 * rules, JSON Schemas and write checks of the request path apply unchanged.
 */
final class SessionEndpoints {
    private final Api api;
    private final AbsoluteUrls urls;

    SessionEndpoints(Api api) {
        this.api = api;
        this.urls = AbsoluteUrls.of(api.settings());
    }

    void create(Exchange ex) {
        Sessions.Session session = api.sessions().create(ex.principal().name());
        ex.setHeader("Location", urls.of(ex, "/_sessions/" + session.sid()));
        ex.sendEmpty(201);
    }

    void end(Exchange ex) {
        session(ex).end();
        ex.sendEmpty(204);
    }

    void state(Exchange ex) {
        Sessions.TxnState state = session(ex).state();
        ObjectNode body = Json.NODES.objectNode();
        if (state.status() == Sessions.Status.NONE) {
            body.putNull("currentTxn");
        } else {
            body.putObject("currentTxn").put("id", state.id()).put("status", state.status().name());
        }
        ex.sendJson(200, api.json().bytes(body));
    }

    void start(Exchange ex) {
        Sessions.Session session = session(ex);
        Optional<Long> started = session.start();
        if (started.isEmpty()) {
            ex.sendEmpty(304); // RESTHeart: a transaction is already in progress
            return;
        }
        ex.setHeader("Location", urls.of(ex, "/_sessions/" + session.sid() + "/_txns/" + started.get()));
        ex.sendEmpty(201);
    }

    void commit(Exchange ex) {
        session(ex).commit(Sessions.parseTxn(ex.pathParam("txn")));
        ex.sendEmpty(200);
    }

    void abort(Exchange ex) {
        session(ex).abort(Sessions.parseTxn(ex.pathParam("txn")));
        ex.sendEmpty(204);
    }

    private Sessions.Session session(Exchange ex) {
        return api.sessions().session(ex.pathParam("sid"), ex.principal().name());
    }

    /**
     * Runs {@code endpoint} for a request: as is without {@code sid}; in the session (of the
     * caller only) with {@code sid}; inside transaction {@code txn} of it with both, its store the
     * transaction's. A change stream is never inside a transaction (it would hold it open).
     */
    static void handle(Exchange ex, Sessions sessions, Store store, Endpoint endpoint) throws Exception {
        Optional<String> sid = ex.param("sid");
        Optional<String> txn = ex.param("txn");
        String template = ex.context().match().route().template();
        if ((sid.isEmpty() && txn.isEmpty()) || template.startsWith("/_sessions")) {
            endpoint.handle(ex);
            return;
        }
        if (sid.isEmpty()) {
            throw WeftException.badRequest("the txn parameter needs the sid parameter of its session");
        }
        Sessions.Session session = sessions.session(sid.get(), ex.principal().name());
        if (txn.isEmpty()) {
            session.touch();
            endpoint.handle(ex);
            return;
        }
        if (template.contains("/_streams")) {
            throw WeftException.badRequest("a change stream cannot be opened inside a transaction: send it without txn");
        }
        long number = Sessions.parseTxn(txn.get());
        Exception[] failed = {null};
        session.inTransaction(number, t -> {
            try {
                ScopedValue.where(Api.IN_TRANSACTION, new TransactionView(store, t)).call(() -> {
                    endpoint.handle(ex);
                    return null;
                });
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                failed[0] = e;
            }
            return null;
        });
        if (failed[0] != null) {
            throw failed[0];
        }
    }
}
