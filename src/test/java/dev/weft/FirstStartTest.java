package dev.weft;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The first start creates admin: with a random password printed once, or WEFT_ADMIN_PASSWORD. */
class FirstStartTest {
    private static final Pattern PRINTED = Pattern.compile("shown only this once:\\s+(\\S+)");
    private final HttpClient client = HttpClient.newHttpClient();

    private int status(WeftProcess weft, String password) throws Exception {
        String basic = "Basic " + Base64.getEncoder().encodeToString(("admin:" + password).getBytes(StandardCharsets.UTF_8));
        return client.send(HttpRequest.newBuilder(java.net.URI.create(weft.base() + "/weft/users"))
                .header("Authorization", basic).build(), HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    @Test
    void aRandomPasswordIsPrintedOnceAndWorks() throws Exception {
        Path data = Files.createTempDirectory("weft-first");
        String password;
        try (WeftProcess weft = new WeftProcess(data, Map.of())) {
            Matcher m = PRINTED.matcher(weft.log());
            assertThat(m.find()).as(weft.log()).isTrue();
            password = m.group(1);
            assertThat(password).hasSizeGreaterThanOrEqualTo(20);
            assertThat(status(weft, password)).isEqualTo(200);
            assertThat(status(weft, "wrong-Password-1")).isEqualTo(401);
            weft.terminate();
        }
        try (WeftProcess again = new WeftProcess(data, Map.of("WEFT_ADMIN_PASSWORD", "ignored-Password-1"))) {
            assertThat(again.log()).doesNotContain("shown only this once").doesNotContain(password);
            assertThat(status(again, password)).isEqualTo(200);
            assertThat(status(again, "ignored-Password-1")).as("only the first start uses it").isEqualTo(401);
        }
    }

    @Test
    void weftAdminPasswordIsTheAdminsPassword() throws Exception {
        try (WeftProcess weft = new WeftProcess(Files.createTempDirectory("weft-first"))) {
            assertThat(weft.log()).doesNotContain("shown only this once").doesNotContain(WeftProcess.ADMIN_PASSWORD);
            assertThat(status(weft, WeftProcess.ADMIN_PASSWORD)).isEqualTo(200);
        }
    }

    @Test
    void aWeakAdminPasswordStopsTheStart() throws Exception {
        Path data = Files.createTempDirectory("weft-first");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new WeftProcess(data, Map.of("WEFT_ADMIN_PASSWORD", "admin")))
                .hasMessageContaining("too weak");
    }
}
