package dev.weft.schema;

import dev.weft.security.DocumentPolicy;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A collection's policy with a schema check added: every whole document stored and every
 * document an update leaves behind must pass it (400 otherwise, nothing written); everything
 * else is the collection's own policy.
 */
final class Validating implements DocumentPolicy {
    /** The check of one request: {@link #prepare} runs on the request's thread, {@link #accept} may run in the write. */
    interface Check {
        /** Loads what the check needs (the compiled schema), before a write runs it. */
        default void prepare() {}

        /** Refuses {@code document} when it fails; {@code readable} is the writer's view, for the messages. */
        void accept(ObjectNode document, UnaryOperator<ObjectNode> readable);
    }

    private final DocumentPolicy inner;
    private final Check check;
    /** How the writer sees a document, for the refusal's messages. */
    private final UnaryOperator<ObjectNode> view;

    Validating(DocumentPolicy inner, Check check) {
        this(inner, check, inner::readable);
    }

    private Validating(DocumentPolicy inner, Check check, UnaryOperator<ObjectNode> view) {
        this.inner = inner;
        this.check = check;
        this.view = view;
    }

    @Override
    public DocumentPolicy seenThrough(UnaryOperator<ObjectNode> view) {
        return new Validating(inner.seenThrough(view), check, view);
    }

    @Override
    public ObjectNode entering(ObjectNode client) {
        return inner.entering(client);
    }

    @Override
    public ObjectNode stored(ObjectNode document) {
        check.accept(document, view);
        return inner.stored(document);
    }

    @Override
    public boolean checksUpdates() {
        check.prepare(); // asked on the request's thread, before the update's op is built
        return true;
    }

    @Override
    public void updated(ObjectNode document) {
        inner.updated(document);
        check.accept(document, view);
    }

    @Override
    public void checkId(JsonNode id) {
        inner.checkId(id);
    }

    @Override
    public ObjectNode update(ObjectNode body) {
        return inner.update(body);
    }

    @Override
    public byte[] readable(byte[] stored) {
        return inner.readable(stored);
    }

    @Override
    public ObjectNode readable(ObjectNode document) {
        return inner.readable(document);
    }

    @Override
    public void checkQuery(String param, JsonNode spec) {
        inner.checkQuery(param, spec);
    }

    @Override
    public void checkPath(String param, String path) {
        inner.checkPath(param, path);
    }
}
