package dev.weft.http;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Response bytes of recent reads: list pages (with the cursor token of their end) and
 * single-document GETs (with the document's etag, so {@code If-None-Match} is answered from here
 * too), keyed by the collection, the request's parameters that shape the answer and the caller's
 * permission (two callers whose rules differ never share an entry). An entry remembers the
 * collection's {@link dev.weft.store.Store#version} read <em>before</em> the read ran, and is
 * served only while the version is unchanged: any committed write to the collection changes the
 * version, so no write is ever hidden by the cache. (A write racing the read makes the entry's
 * version stale at once; it is then simply a miss.)
 *
 * <p>Bounded by entry count ({@code result-cache-entries}) and entry size
 * ({@code result-cache-max-bytes}); least recently used entries go first.
 */
final class ResultCache {
    private record Cached(long version, Answer answer) {}

    /**
     * A cached response body, the document's etag when the response is one document, and the
     * cursor token of a page's end when it has one.
     */
    record Answer(byte[] body, Optional<String> etag, Optional<String> next) {
        Answer(byte[] body, Optional<String> etag) {
            this(body, etag, Optional.empty());
        }
    }

    private final int maxEntries;
    private final int maxBytes;
    private final Map<String, Cached> entries;

    ResultCache(int maxEntries, int maxBytes) {
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Cached> eldest) {
                return size() > ResultCache.this.maxEntries;
            }
        };
    }

    /** False when {@code result-cache-entries} is 0: nothing is ever cached, so no key need be made. */
    boolean enabled() {
        return maxEntries > 0;
    }

    Optional<Answer> get(String key, long version) {
        if (maxEntries == 0) {
            return Optional.empty();
        }
        Cached entry;
        synchronized (entries) {
            entry = entries.get(key);
        }
        return entry != null && entry.version == version ? Optional.of(entry.answer) : Optional.empty();
    }

    void put(String key, long version, Answer answer) {
        if (maxEntries == 0 || answer.body().length > maxBytes) {
            return;
        }
        synchronized (entries) {
            entries.put(key, new Cached(version, answer));
        }
    }
}
