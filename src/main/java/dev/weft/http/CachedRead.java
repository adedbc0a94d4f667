package dev.weft.http;

/**
 * A read a route can answer from the {@link ResultCache} alone. It runs on the thread that parsed
 * the request (a Jetty selector thread), so it must not block: it may only look at the exchange,
 * the store's in-memory version counters and the cache. It answers and returns true, or sends
 * nothing and returns false, and the request then takes the full stages on a virtual thread.
 */
@FunctionalInterface
interface CachedRead {
    boolean answerFromCache(Exchange exchange);
}
