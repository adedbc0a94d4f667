package dev.weft.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class AuthTokensTest {
    private static final long TTL_MS = 60_000;
    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);
    private final byte[] key = filled(32, 7);
    private final AuthTokens nodeA = new AuthTokens(key, TTL_MS, 100, now::get);
    private final AuthTokens nodeB = new AuthTokens(key.clone(), TTL_MS, 100, now::get);
    private UsersCollection.User alice = user("alice", "$2a$10$hash-one");
    private final Function<String, Optional<UsersCollection.User>> users =
            name -> name.equals("alice") ? Optional.of(alice) : Optional.empty();

    private static byte[] filled(int n, int value) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) value);
        return b;
    }

    private static UsersCollection.User user(String name, String hash) {
        return new UsersCollection.User(name, Set.of("user"), Optional.of(hash));
    }

    private String issue() {
        return nodeA.issue(alice, 1).orElseThrow().token();
    }

    @Test
    void aTokenIsAcceptedByTheNodeThatIssuedItAndByAnyOtherWithTheKey() {
        String token = issue();
        assertThat(nodeA.check("alice", token, 1, users)).contains(alice);
        assertThat(nodeB.check("alice", token, 1, users)).contains(alice);
        assertThat(nodeB.checkToken(token, 1, users)).contains(alice);
        assertThat(nodeA.issue(alice, 1).orElseThrow().token()).isEqualTo(token); // one token per user
        assertThat(nodeB.issue(alice, 1).orElseThrow().token()).as("B announces the token it was shown").isEqualTo(token);
    }

    @Test
    void anotherKeyAnotherUserOrATamperedTokenIsRefused() {
        String token = issue();
        assertThat(new AuthTokens(filled(32, 8), TTL_MS, 100, now::get).check("alice", token, 1, users)).isEmpty();
        assertThat(nodeB.check("bob", token, 1, users)).isEmpty();
        String[] parts = token.split("\\.");
        String longer = parts[0] + "." + (Long.parseLong(parts[1]) + 3_600_000) + "." + parts[2] + "." + parts[3];
        assertThat(nodeB.check("alice", longer, 1, users)).isEmpty();
        for (String junk : new String[] {"", "x", "a.b.c.d", "....", token + "x", "%%%.1.%%%.%%%"}) {
            assertThat(nodeB.check("alice", junk, 1, users)).as(junk).isEmpty();
            assertThat(nodeB.checkToken(junk, 1, users)).as(junk).isEmpty();
        }
    }

    @Test
    void aTokenDiesAtItsExpiryOnEveryNode() {
        String token = issue();
        now.addAndGet(TTL_MS - 1);
        assertThat(nodeB.check("alice", token, 1, users)).contains(alice);
        now.addAndGet(1);
        assertThat(nodeA.check("alice", token, 1, users)).isEmpty();
        assertThat(nodeB.check("alice", token, 1, users)).isEmpty();
        assertThat(nodeA.issue(alice, 1).orElseThrow().token()).isNotEqualTo(token);
    }

    @Test
    void aTokenDiesWithThePasswordItWasIssuedUnder() {
        String token = issue();
        assertThat(nodeB.check("alice", token, 1, users)).contains(alice);
        alice = user("alice", "$2a$10$hash-two");
        assertThat(nodeA.check("alice", token, 2, users)).isEmpty();
        assertThat(nodeB.check("alice", token, 2, users)).isEmpty();
        assertThat(new AuthTokens(key, TTL_MS, 100, now::get).check("alice", token, 2, users)).isEmpty();
    }
}
