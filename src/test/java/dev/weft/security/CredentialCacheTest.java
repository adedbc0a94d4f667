package dev.weft.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CredentialCacheTest {
    final AtomicLong now = new AtomicLong();
    final UsersCollection.User alice = new UsersCollection.User("alice", Set.of("user"), Optional.of("$2b$04$x"));

    @Test
    void keysAreDigestsOfUserAndPassword() {
        CredentialCache cache = new CredentialCache(1_000, 10, now::get);
        assertThat(cache.key("alice", "pw")).isEqualTo(cache.key("alice", "pw"))
                .isNotEqualTo(cache.key("alice", "pW")).isNotEqualTo(cache.key("alic", "e:pw"));
        assertThat(new CredentialCache(1_000, 10, now::get).key("alice", "pw")).isNotEqualTo(cache.key("alice", "pw"));
    }

    @Test
    void entriesExpireAndDieWithTheUsersVersion() {
        CredentialCache cache = new CredentialCache(1_000, 10, now::get);
        CredentialCache.Key key = cache.key("alice", "pw");
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
            cache.put(cache.key("u" + i, "pw"), alice, 0);
        }
        assertThat(cache.size()).isLessThanOrEqualTo(10);
    }
}
