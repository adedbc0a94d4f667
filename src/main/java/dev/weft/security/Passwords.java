package dev.weft.security;

import com.password4j.Argon2Function;
import com.password4j.BcryptFunction;
import dev.weft.core.WeftException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Password hashing (bcrypt, pure Java through password4j) and the strength rule.
 *
 * <p>Hashing is deliberately slow, so it runs on its own small pool of platform threads
 * ({@code hash-concurrency}) rather than on the request's virtual thread: a login storm then
 * competes with request carriers through the OS scheduler instead of occupying every carrier,
 * and requests waiting for a slot park without holding one. A request that cannot get a slot
 * within {@code hash-wait-ms} gets 503. Idle pool threads exit after {@value #IDLE_SECONDS} s.
 *
 * <p>New hashes are bcrypt at {@code bcrypt-cost}; stored argon2id hashes (imported users) verify
 * too. Bcrypt reads at most {@value #MAX_BYTES} bytes of input, hence the rule's upper bound.
 */
final class Passwords {
    static final int MAX_BYTES = 72;
    private static final int IDLE_SECONDS = 30;
    private static final String ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final BcryptFunction bcrypt;
    private final int minLength;
    private final Semaphore slots;
    private final long waitMs;
    private final ThreadPoolExecutor pool;
    private final LongAdder computed = new LongAdder();
    /** A hash of nothing anyone knows, checked for unknown users so they take as long as known ones. */
    private final String decoy;

    Passwords(int bcryptCost, int minLength, int concurrency, long waitMs) {
        this.bcrypt = BcryptFunction.getInstance(bcryptCost);
        this.minLength = minLength;
        this.slots = new Semaphore(concurrency, true);
        this.waitMs = waitMs;
        this.pool = new ThreadPoolExecutor(concurrency, concurrency, IDLE_SECONDS, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), Thread.ofPlatform().name("weft-hash-", 0).daemon().factory());
        pool.allowCoreThreadTimeOut(true);
        this.decoy = bcrypt.hash(random()).getResult();
    }

    /**
     * The rule: at least {@code password-min-length} characters, at most {@value #MAX_BYTES}
     * bytes in UTF-8, and characters of at least two kinds among lower-case letters, upper-case
     * letters, digits and others. 400 naming what is missing.
     */
    void checkStrength(String password) {
        int length = password.codePointCount(0, password.length());
        if (length < minLength) {
            throw WeftException.badRequest("password is too weak: it needs at least " + minLength + " characters");
        }
        if (password.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
            throw WeftException.badRequest("password is too long: at most " + MAX_BYTES + " bytes in UTF-8");
        }
        boolean lower = false;
        boolean upper = false;
        boolean digit = false;
        boolean other = false;
        for (int i = 0; i < password.length(); i++) {
            char c = password.charAt(i);
            if (Character.isLowerCase(c)) {
                lower = true;
            } else if (Character.isUpperCase(c)) {
                upper = true;
            } else if (Character.isDigit(c)) {
                digit = true;
            } else {
                other = true;
            }
        }
        int kinds = (lower ? 1 : 0) + (upper ? 1 : 0) + (digit ? 1 : 0) + (other ? 1 : 0);
        if (kinds < 2) {
            throw WeftException.badRequest("password is too weak: mix at least two of lower-case, upper-case, digits, symbols");
        }
    }

    /** Hashes computed or verified so far (observable as weft_password_hashes_total). */
    long computed() {
        return computed.sum();
    }

    /** Checks the rule, then hashes on the pool. */
    String hash(String password) {
        checkStrength(password);
        return onPool(() -> bcrypt.hash(password).getResult());
    }

    /** True when {@code password} matches {@code hash}; an unreadable hash never matches. */
    boolean verify(String password, String hash) {
        return onPool(() -> {
            try {
                if (hash.startsWith("$argon2")) {
                    return Argon2Function.getInstanceFromHash(hash).check(password, hash);
                }
                return BcryptFunction.getInstanceFromHash(hash).check(password, hash);
            } catch (RuntimeException e) {
                return false;
            }
        });
    }

    /** Spends the time of a verification, for a user that does not exist. */
    void verifyDecoy(String password) {
        verify(password, decoy);
    }

    private <T> T onPool(Callable<T> work) {
        boolean acquired = false;
        try {
            acquired = slots.tryAcquire(waitMs, TimeUnit.MILLISECONDS);
            if (!acquired) {
                throw new WeftException(503, "too many logins at once; retry shortly (hash-wait-ms)");
            }
            Future<T> result = pool.submit(work);
            computed.increment();
            return result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WeftException(503, "interrupted while hashing a password");
        } catch (ExecutionException e) {
            throw new IllegalStateException("password hashing failed", e.getCause());
        } finally {
            if (acquired) {
                slots.release();
            }
        }
    }

    /** A random password of 4 groups of 6 characters: about 139 bits, and it passes the rule. */
    static String random() {
        StringBuilder out = new StringBuilder(27);
        for (int i = 0; i < 24; i++) {
            if (i > 0 && i % 6 == 0) {
                out.append('-');
            }
            out.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
        }
        return out.toString();
    }
}
