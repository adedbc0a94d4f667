package dev.weft.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.WeftException;
import org.junit.jupiter.api.Test;

class PasswordsTest {
    final Passwords passwords = new Passwords(4, 12, 2, 5_000);

    @Test
    void strengthRuleNeedsLengthAndTwoKindsOfCharacters() {
        assertThatThrownBy(() -> passwords.checkStrength("Short-1")).isInstanceOf(WeftException.class)
                .hasMessageContaining("at least 12 characters");
        assertThatThrownBy(() -> passwords.checkStrength("onlylowercaseletters")).hasMessageContaining("mix");
        assertThatThrownBy(() -> passwords.checkStrength("x".repeat(40) + "Y".repeat(40))).hasMessageContaining("72 bytes");
        passwords.checkStrength("correct horse battery");
        passwords.checkStrength("123456789012a");
    }

    @Test
    void hashesVerifyAndAreSalted() {
        String a = passwords.hash("correct horse battery");
        String b = passwords.hash("correct horse battery");
        assertThat(a).startsWith("$2").isNotEqualTo(b).doesNotContain("correct");
        assertThat(passwords.verify("correct horse battery", a)).isTrue();
        assertThat(passwords.verify("correct horse batterY", a)).isFalse();
        assertThat(passwords.verify("anything", "not a hash")).isFalse();
    }

    @Test
    void aFullHashingPoolAnswers503() throws Exception {
        Passwords one = new Passwords(12, 12, 1, 1);
        Thread busy = Thread.ofVirtual().start(() -> one.hash("correct horse battery"));
        Thread.sleep(100);
        assertThatThrownBy(() -> one.verify("correct horse battery", "$2b$04$x")).isInstanceOf(WeftException.class)
                .satisfies(e -> assertThat(((WeftException) e).status()).isEqualTo(503));
        busy.join();
    }

    @Test
    void randomPasswordsPassTheRuleAndDiffer() {
        String one = Passwords.random();
        passwords.checkStrength(one);
        assertThat(one).hasSize(27).isNotEqualTo(Passwords.random());
    }
}
