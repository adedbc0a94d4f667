package dev.weft.security;

import java.util.Iterator;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * The brute-force guard: once an address has failed {@code login-guard-failures} logins within
 * {@code login-guard-window-ms} (counted from its first failure), its requests carrying
 * credentials are refused with 429 until that window ends, without being checked, so guessing
 * costs the attacker time and costs the server nothing. A success does not reset the count.
 *
 * <p>Memory is bounded: at most {@code login-guard-addresses} windows are tracked; past that,
 * ended windows are dropped, and if none ended, arbitrary ones (an attacker spreading over more
 * addresses than that gets fewer refusals, never more memory). The address is the peer's: behind
 * a proxy every client shares the proxy's window.
 */
final class LoginGuard {
    private record Window(long start, AtomicInteger failures) {}

    private final int maxFailures;
    private final long windowNanos;
    private final int maxAddresses;
    private final LongSupplier clock;
    private final ConcurrentHashMap<String, Window> windows = new ConcurrentHashMap<>();

    LoginGuard(int maxFailures, long windowMs, int maxAddresses, LongSupplier nanoClock) {
        this.maxFailures = maxFailures;
        this.windowNanos = windowMs * 1_000_000;
        this.maxAddresses = maxAddresses;
        this.clock = nanoClock;
    }

    /**
     * Seconds until the request's source may try again, when it is refused now. While no address
     * has a failure on record (the usual case) the request's address is not even looked at.
     */
    OptionalLong refusedFor(AuthRequest request) {
        return maxFailures == 0 || windows.isEmpty() ? OptionalLong.empty() : refusedFor(request.remoteAddress());
    }

    /** Seconds until {@code address} may try again, when it is refused now. */
    OptionalLong refusedFor(String address) {
        if (maxFailures == 0) {
            return OptionalLong.empty();
        }
        Window w = windows.get(address);
        if (w == null) {
            return OptionalLong.empty();
        }
        long left = w.start + windowNanos - clock.getAsLong();
        if (left <= 0) {
            windows.remove(address, w);
            return OptionalLong.empty();
        }
        if (w.failures.get() < maxFailures) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(Math.max(1, (left + 999_999_999) / 1_000_000_000));
    }

    void failed(String address) {
        if (maxFailures == 0) {
            return;
        }
        long now = clock.getAsLong();
        if (!windows.containsKey(address) && windows.size() >= maxAddresses) {
            makeRoom(now);
        }
        Window w = windows.compute(address, (a, cur) ->
                cur == null || cur.start + windowNanos - now <= 0 ? new Window(now, new AtomicInteger()) : cur);
        w.failures.incrementAndGet();
    }

    private void makeRoom(long now) {
        windows.values().removeIf(w -> w.start + windowNanos - now <= 0);
        Iterator<String> it = windows.keySet().iterator();
        while (windows.size() >= maxAddresses && it.hasNext()) {
            it.next();
            it.remove();
        }
    }
}
