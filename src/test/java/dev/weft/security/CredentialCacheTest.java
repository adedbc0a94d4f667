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
        assertThat(cache.key("YWxpA")).isEqualTo(cache.key("YWxpA")); // and nothing was left half-hashed
    }

    /** Alice's credential, verified against users version 7. */
    SipHash.Digest rememberAlice(CredentialCache cache) {
        SipHash.Digest key = cache.key("YWxpY2U6cHc=");
        cache.get(key, 7);
        cache.put(key, alice, 7);
        return key;
    }

    @Test
    void entriesExpireAndDieWithTheUsersVersion() {
        CredentialCache cache = new CredentialCache(1_000, 10, now::get);
        SipHash.Digest key = rememberAlice(cache);
        assertThat(cache.get(key, 7)).contains(alice);
        assertThat(cache.get(key, 8)).isEmpty();
        assertThat(cache.get(key, 7)).isEmpty(); // dropped, not hidden
        cache.put(key, alice, 7);
        assertThat(cache.get(key, 7)).contains(alice);
        now.addAndGet(1_000_000_001L);
        assertThat(cache.get(key, 7)).isEmpty();
    }

    @Test
    void anEntryInUseIsRenewedByOneCallerBeforeItExpires() {
        CredentialCache cache = new CredentialCache(1_000, 10, now::get);
        SipHash.Digest key = rememberAlice(cache);
        now.addAndGet(700_000_000L);
        assertThat(cache.takeRenewal(cache.find(key, 7))).isFalse();
        assertThat(cache.get(key, 7)).contains(alice);
        now.addAndGet(100_000_000L); // the last quarter: a renewal is due, once
        CredentialCache.Verified due = cache.find(key, 7);
        assertThat(due.user()).isEqualTo(alice);
        assertThat(cache.takeRenewal(due)).isTrue();
        assertThat(cache.takeRenewal(due)).isFalse();
        assertThat(cache.get(key, 7)).contains(alice); // the others are served meanwhile
        cache.put(key, alice, 7);
        now.addAndGet(600_000_000L);
        assertThat(cache.get(key, 7)).contains(alice); // renewed at 0.8 s: lives until 1.8 s
        now.addAndGet(200_000_000L);
        assertThat(cache.get(key, 7)).isEmpty(); // due again: on the stages, get takes the renewal
        assertThat(cache.get(key, 7)).contains(alice);
        now.addAndGet(300_000_000L);
        assertThat(cache.find(key, 7)).isNull();
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
