package dev.weft.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Settings made from their declarations: defaults, sources, checks, and each record component filled. */
class SettingsTest {

    @Test
    void withNothingGivenEachSettingHasItsDeclaredDefault() {
        Settings defaults = Settings.defaults();

        assertThat(defaults.port()).isEqualTo(8080);
        assertThat(defaults.data()).isEqualTo(Path.of("./data"));
        assertThat(defaults.maxBodyBytes()).isEqualTo(16L << 20);
        assertThat(defaults.readMode()).isEqualTo(ReadMode.parse("single", "test"));
        assertThat(defaults.readReplicas()).isEmpty();
        assertThat(defaults.auth().jwtSecret()).isEmpty();
        assertThat(defaults.auth().bcryptCost()).isEqualTo(10);
    }

    @Test
    void aFlagWinsOverTheEnvironmentWhichWinsOverTheDefault() {
        Settings s = Settings.parse(new String[] {"--port", "9001"},
                Map.of("WEFT_PORT", "9000", "WEFT_BCRYPT_COST", "12", "WEFT_JWT_ALGORITHM", "hs256"));

        assertThat(s.port()).isEqualTo(9001);
        assertThat(s.auth().bcryptCost()).isEqualTo(12);
        assertThat(s.auth().jwtAlgorithm()).isEqualTo(Optional.of("HS256"));
    }

    @Test
    void aValueOutOfItsRangeOrNotANumberIsRefusedByName() {
        assertThatThrownBy(() -> Settings.parse(new String[] {"--port", "70000"}, Map.of()))
                .isInstanceOf(WeftException.class).hasMessage("setting port must be between 0 and 65535");
        assertThatThrownBy(() -> Settings.parse(new String[] {"--bcrypt-cost=x"}, Map.of()))
                .isInstanceOf(WeftException.class).hasMessage("setting bcrypt-cost is not a number: x");
        assertThatThrownBy(() -> Settings.parse(new String[] {"--no-such", "1"}, Map.of()))
                .isInstanceOf(WeftException.class).hasMessage("unknown setting --no-such");
    }

    @Test
    void aRepeatableSettingAddsUpItsFlagsAndOthersTakeTheLast() {
        Settings s = Settings.parse(new String[] {"--read-replica", "postgresql://a@h:1/d",
                "--read-replica", "postgresql://b@h:1/d", "--port", "1", "--port", "2"}, Map.of());

        assertThat(s.readReplicas()).containsExactly("postgresql://a@h:1/d", "postgresql://b@h:1/d");
        assertThat(s.port()).isEqualTo(2);
    }

    @Test
    void checksAcrossSettingsStillHold() {
        assertThatThrownBy(() -> Settings.parse(new String[] {"--tls-cert-file", "c.pem"}, Map.of()))
                .isInstanceOf(WeftException.class).hasMessage("settings tls-cert-file and tls-key-file go together");
        assertThatThrownBy(() -> Settings.parse(new String[] {"--store", "mysql://x"}, Map.of()))
                .isInstanceOf(WeftException.class).hasMessageStartingWith("setting store must be sqlite");
    }

    @Test
    void everySettingButTheStartScriptsFillsAComponentAndHelpShowsItsDefault() {
        long filled = Settings.ALL.stream().filter(s -> s.component().isPresent()).count();
        int components = Settings.class.getRecordComponents().length - 1 + AuthSettings.class.getRecordComponents().length;

        assertThat(filled).isEqualTo(components);
        assertThat(Settings.DESCRIPTIONS.get("max-body-bytes")).isEqualTo("largest request body, 413 past it (16 MiB)");
        assertThat(Settings.DESCRIPTIONS.get("heap-max")).endsWith("(2g)");
    }
}
