package dev.weft.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Sort keys against the reference comparator: for random documents (nested objects, arrays,
 * empty arrays, mixed types, missing fields, equal numbers of different types) and sorts, a
 * difference of keys is the comparator's order, equal documents have equal keys, and a key read
 * from stored bytes is the key of the parsed document.
 */
class SortKeysTest {
    private static final Json JSON = Json.standard();

    @Test
    void keysOrderLikeTheComparatorAndStoredBytesGiveTheTreesKey() {
        long seed = Long.getLong("weft.seed", System.nanoTime());
        RandomValues r = new RandomValues(seed);
        int fromBytes = 0;
        for (String spec : List.of("a", "-a", "a,-b", "-c,b", "a.b", "-a.b,c", "b.0")) {
            Sort sort = Sort.parse(spec, QueryLimits.defaults());
            SortKeys keys = SortKeys.of(sort);
            for (int i = 0; i < 3000; i++) {
                JsonNode x;
                JsonNode y;
                try {
                    x = JSON.parse(JSON.bytes(r.document(2)), "x");
                    y = JSON.parse(JSON.bytes(r.document(2)), "y");
                } catch (dev.weft.core.WeftException e) {
                    continue; // U+0000, which is never stored
                }
                byte[] kx = keys.of(x);
                byte[] ky = keys.of(y);
                int byKeys = Integer.signum(Arrays.compareUnsigned(kx, ky));
                int bySort = Integer.signum(sort.comparator().compare(x, y));
                String context = "seed=" + seed + " sort=" + spec + " " + x + " vs " + y;
                assertThat(byKeys == 0 || byKeys == bySort).as(context).isTrue();
                assertThat(bySort != 0 || byKeys == 0).as(context).isTrue();
                byte[] stored = JSON.bytes(x);
                byte[] read = keys.ofStored(stored);
                if (read != null) {
                    fromBytes++;
                    assertThat(read).as(context + " from " + new String(stored, StandardCharsets.UTF_8)).isEqualTo(kx);
                }
            }
        }
        assertThat(fromBytes).isGreaterThan(3000);
    }

    @Test
    void plainTopLevelValuesAreReadFromBytesAndStopAtTheLastSortField() {
        SortKeys keys = SortKeys.of(Sort.parse("{\"stars\":-1,\"name\":1}", QueryLimits.defaults()));
        String doc = "{\"name\":\"caf\u00e9 1\",\"links\":[{\"url\":\"https://x/\\\"q\\\"\"}],\"stars\":-12.5e1,\"rest\":{\"x\":[1,2]}}";
        byte[] body = doc.getBytes(StandardCharsets.UTF_8);
        assertThat(keys.ofStored(body)).isEqualTo(keys.of(JSON.parse(body, "doc")));
        // a field that is not plain (an array, an escaped string) is read from the tree instead
        assertThat(keys.ofStored("{\"stars\":[1,2],\"name\":\"a\"}".getBytes(StandardCharsets.UTF_8))).isNull();
        assertThat(keys.ofStored("{\"stars\":1,\"name\":\"a\\nb\"}".getBytes(StandardCharsets.UTF_8))).isNull();
        // missing fields sort as null
        assertThat(keys.ofStored("{}".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(keys.of(JSON.parse("{\"stars\":null}".getBytes(StandardCharsets.UTF_8), "doc")));
    }

    @Test
    void aSortByTextScoreHasNoKeys() {
        assertThat(SortKeys.of(Sort.parse("{\"s\":{\"$meta\":\"textScore\"}}", QueryLimits.defaults()))).isNull();
    }
}
