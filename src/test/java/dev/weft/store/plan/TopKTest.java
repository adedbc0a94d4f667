package dev.weft.store.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.IndexField;
import dev.weft.query.Sort;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class TopKTest {
    private static final Json JSON = Json.standard();
    private static final Sort BY_N = new Sort(List.of(new IndexField("n", 1)));

    private static void offer(TopK top, int n) {
        byte[] body = ("{\"_id\":" + n + ",\"n\":" + n + ",\"pad\":\"" + "p".repeat(80) + "\"}").getBytes(StandardCharsets.UTF_8);
        top.offer(new byte[] {(byte) n}, body, JSON.parse(body, "test"));
    }

    @Test
    void keepsOnlySkipPlusLimitSoEvictedDocumentsFreeTheirBytes() {
        TopK top = new TopK(BY_N, 1, 2, 400); // three documents of about 110 bytes fit
        for (int n = 1000; n > 0; n--) {
            offer(top, n);
        }
        assertThat(top.result()).extracting(b -> JSON.parse(b, "test").get("n").asInt()).containsExactly(2, 3);
    }

    @Test
    void keepingMoreThanTheByteBoundIs400NamingTheSetting() {
        TopK top = new TopK(BY_N, 0, 10, 400);
        assertThatThrownBy(() -> {
            for (int n = 0; n < 10; n++) {
                offer(top, n);
            }
        }).isInstanceOfSatisfying(WeftException.class, e -> {
            assertThat(e.status()).isEqualTo(400);
            assertThat(e.getMessage()).contains("max-sort-bytes (400 bytes)");
        });
    }
}
