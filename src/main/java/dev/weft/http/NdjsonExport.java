package dev.weft.http;

import dev.weft.store.Namespace;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * {@code GET /{db}/{coll}} with {@code Accept: application/x-ndjson}: every matching document,
 * one per line, with no page limit. Documents go to the socket as the store hands them over;
 * a slow client blocks this virtual thread, so memory stays at one output buffer whatever the
 * result size.
 *
 * <p>The 200 is committed with the first buffer that leaves, not before: a failure until then
 * answers the same status and JSON error as the JSON list. A failure after it is not closed
 * cleanly (which would end the chunked body as if complete) but left to the request pipeline,
 * which aborts the response: the client sees a truncated transfer, never a short export that
 * looks whole.
 */
final class NdjsonExport {
    private static final int BUFFER = 32 * 1024;

    private final Api api;

    NdjsonExport(Api api) {
        this.api = api;
    }

    void stream(Exchange ex, Namespace ns) throws IOException {
        api.existingCollection(ns);
        FindPlan plan = FindPlan.of(ex, api, ns);
        Optional<JsonMode> mode = ex.jsonMode();
        OutputStream out = new BufferedOutputStream(new OpenedOnFirstWrite(ex), BUFFER);
        plan.all(doc -> {
            try {
                out.write(mode.isPresent() ? mode.get().render(doc) : doc);
                out.write('\n');
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        out.close(); // only on success: completes the response
    }

    /** The response body, started (status and headers committed) by the first bytes written to it. */
    static final class OpenedOnFirstWrite extends OutputStream {
        private final Exchange ex;
        private OutputStream response;

        OpenedOnFirstWrite(Exchange ex) {
            this.ex = ex;
        }

        private OutputStream response() {
            if (response == null) {
                response = ex.stream(200, CollectionEndpoints.NDJSON);
            }
            return response;
        }

        @Override
        public void write(int b) throws IOException {
            response().write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            response().write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            response().close();
        }
    }
}
