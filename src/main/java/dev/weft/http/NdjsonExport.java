package dev.weft.http;

import dev.weft.store.FindQuery;
import dev.weft.store.Namespace;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;

/**
 * {@code GET /{db}/{coll}} with {@code Accept: application/x-ndjson}: every matching document,
 * one per line, with no page limit. Documents go to the socket as the store hands them over;
 * a slow client blocks this virtual thread, so memory stays at one output buffer whatever the
 * result size.
 */
final class NdjsonExport {
    private static final int BUFFER = 32 * 1024;

    private final Api api;
    private final CollectionEndpoints.Renderer renderer;

    NdjsonExport(Api api, CollectionEndpoints.Renderer renderer) {
        this.api = api;
        this.renderer = renderer;
    }

    void stream(Exchange ex, Namespace ns) throws IOException {
        api.existingCollection(ns);
        ReadParams params = ReadParams.parse(ex, api, ns);
        FindQuery query = new FindQuery(params.filter(), params.sort(), params.skip(), Long.MAX_VALUE, params.hint());
        try (OutputStream out = new BufferedOutputStream(ex.stream(200, CollectionEndpoints.NDJSON), BUFFER)) {
            api.store().find(ns, query, params.readMode(), doc -> {
                try {
                    out.write(renderer.render(doc, params));
                    out.write('\n');
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
