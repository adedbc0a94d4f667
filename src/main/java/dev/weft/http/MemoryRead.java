package dev.weft.http;

/**
 * A read a route can answer from memory alone: the {@link ResultCache}, or (a list) the store's
 * held rows under {@link dev.weft.store.MemoryOnly}. It runs on the thread that parsed the
 * request (a Jetty selector thread), so it must not block: it may only look at the exchange, the
 * store's in-memory state and the cache, and runs any store read under {@code MemoryOnly}. It
 * answers and returns true, or sends nothing and returns false, and the request then takes the
 * full stages on a virtual thread.
 */
@FunctionalInterface
interface MemoryRead {
    boolean answerFromMemory(Exchange exchange);
}
