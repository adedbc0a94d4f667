package dev.weft.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class CredentialCacheTest {
    final AtomicLong now = new AtomicLong();
    final UsersCollection.User alice = new UsersCollection.User("alice", Set.of("user"), Optional.of("$2b$04$x"));

    @Test
    void keysAreKeyedDigestsOfTheCredentialAsSent() {
        CredentialCache cache = new CredentialCache(1_000, 10, now::get);
        assertThat(cache.key("YWxpY2U6cHc=")).isEqualTo(cache.key("YWxpY2U6cHc="))
                .isNotEqualTo(cache.key("YWxpY2U6cFc=")).isNotEqualTo(cache.key("YWxpY2U6cHc"));
        assertThat(new CredentialCache(1_000, 10, now::get).key("YWxpY2U6cHc=")).isNotEqualTo(cache.key("YWxpY2U6cHc="));
    }

    @Test
    void aRangeIsKeyedAsItsText() {
        CredentialCache cache = new CredentialCache(1_000, 10, now::get);
        assertThat(cache.key("Basic YWxpY2U6cHc=  ", 6, 18)).isEqualTo(cache.key("YWxpY2U6cHc="));
        String longer = "x".repeat(300);
        assertThat(cache.key(longer)).isEqualTo(cache.key(longer))
                .isNotEqualTo(cache.key("x".repeat(299) + "y")).isNotEqualTo(cache.key("x".repeat(299)));
    }

    @Test
    void textOutsideAsciiHasNoKey() {
        CredentialCache cache = new CredentialCache(1_000, 10, now::get);
        assertThat(cache.key("YWxp\u0141")).isNull(); // would be "YWxpA" if chars were cut to bytes
        assertThat(cache.key("YWxpA")).isEqualTo(cache.key("YWxpA")); // and the Mac was left clean
    }

    @Test
    void virtualAndPlatformThreadsMakeTheSameKey() throws Exception {
        CredentialCache cache = new CredentialCache(1_000, 10, now::get);
        AtomicReference<CredentialCache.Key> onVirtual = new AtomicReference<>();
        Thread.ofVirtual().start(() -> onVirtual.set(cache.key("YWxpY2U6cHc="))).join();
        assertThat(onVirtual.get()).isEqualTo(cache.key("YWxpY2U6cHc="));
    }

    @Test
    void entriesExpireAndDieWithTheUsersVersion() {
        CredentialCache cache = new CredentialCache(1_000, 10, now::get);
        CredentialCache.Key key = cache.key("YWxpY2U6cHc=");
        cache.get(key, 7);
        cache.put(key, alice, 7);
        assertThat(cache.get(key, 7)).contains(alice);
        assertThat(cache.get(key, 8)).isEmpty();
        assertThat(cache.get(key, 7)).isEmpty(); // dropped, not hidden
        cache.put(key, alice, 7);
        assertThat(cache.get(key, 7)).contains(alice);
        now.addAndGet(1_000_000_001L);
        assertThat(cache.get(key, 7)).isEmpty();
    }

    @Test
    void staysWithinItsBound() {
        CredentialCache cache = new CredentialCache(1_000, 10, now::get);
        for (int i = 0; i < 100; i++) {
            cache.put(cache.key("u" + i), alice, 0);
        }
        assertThat(cache.size()).isLessThanOrEqualTo(10);
    }
}
