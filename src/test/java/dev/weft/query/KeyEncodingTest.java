package dev.weft.query;

import static dev.weft.query.J.j;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class KeyEncodingTest {

    @Test
    void byteOrderAgreesWithValuesCompareOnRandomValues() {
        RandomValues r = new RandomValues(42);
        for (int i = 0; i < 20_000; i++) {
            JsonNode a = r.value(3);
            JsonNode b = r.value(3);
            int expected = Integer.signum(Values.compare(a, b));
            int actual = Integer.signum(Arrays.compareUnsigned(KeyEncoding.encode(a), KeyEncoding.encode(b)));
            assertThat(actual).as("%s vs %s", a, b).isEqualTo(expected);
        }
    }

    @Test
    void invertedEncodingsReverseTheOrder() {
        RandomValues r = new RandomValues(43);
        for (int i = 0; i < 5_000; i++) {
            JsonNode a = r.value(2);
            JsonNode b = r.value(2);
            byte[] ea = KeyEncoding.encode(a);
            byte[] eb = KeyEncoding.encode(b);
            KeyEncoding.invert(ea);
            KeyEncoding.invert(eb);
            assertThat(Integer.signum(Arrays.compareUnsigned(ea, eb))).as("%s vs %s", a, b)
                    .isEqualTo(-Integer.signum(Values.compare(a, b)));
        }
    }

    @Test
    void equalNumbersEncodeEquallyWhateverTheirForm() {
        assertThat(KeyEncoding.encode(j("1"))).isEqualTo(KeyEncoding.encode(j("1.0")));
        assertThat(KeyEncoding.encode(j("0"))).isEqualTo(KeyEncoding.encode(j("-0.0")));
        assertThat(KeyEncoding.encode(j("null"))).isEqualTo(KeyEncoding.encode(null));
    }

    @Test
    void stringsWithZeroBytesKeepTheirOrder() {
        List<String> ordered = List.of("a", "a\u0000", "a\u0000\u0000", "a\u0000b", "a\u0001", "ab");
        for (int i = 0; i + 1 < ordered.size(); i++) {
            byte[] lo = KeyEncoding.encode(dev.weft.core.Json.NODES.stringNode(ordered.get(i)));
            byte[] hi = KeyEncoding.encode(dev.weft.core.Json.NODES.stringNode(ordered.get(i + 1)));
            assertThat(Arrays.compareUnsigned(lo, hi)).as(ordered.get(i) + " < " + ordered.get(i + 1)).isNegative();
        }
    }

    @Test
    void multikeyPathGivesOneKeyPerElement() {
        List<byte[]> keys = KeyEncoding.indexKeys(j("{a: [1, 2, 2]}"), List.of(new IndexField("a", 1)));
        assertThat(keys).containsExactlyInAnyOrder(KeyEncoding.encode(j("1")), KeyEncoding.encode(j("2")));
    }

    @Test
    void missingIsNullAndEmptyArrayIsItself() {
        List<IndexField> a = List.of(new IndexField("a", 1));
        assertThat(KeyEncoding.indexKeys(j("{}"), a)).containsExactly(KeyEncoding.encode(j("null")));
        assertThat(KeyEncoding.indexKeys(j("{a: []}"), a)).containsExactly(KeyEncoding.encode(j("[]")));
        assertThat(KeyEncoding.indexKeys(j("{a: [{b: 1}, {c: 1}]}"), List.of(new IndexField("a.b", 1))))
                .containsExactlyInAnyOrder(KeyEncoding.encode(j("1")), KeyEncoding.encode(j("null")));
    }

    @Test
    void compoundKeysAreTheCartesianProductOfConcatenations() {
        List<byte[]> keys = KeyEncoding.indexKeys(j("{a: [1, 2], b: 'x'}"),
                List.of(new IndexField("a", 1), new IndexField("b", 1)));
        byte[] x = KeyEncoding.encode(j("'x'"));
        assertThat(keys).containsExactlyInAnyOrder(
                KeyEncoding.concat(KeyEncoding.encode(j("1")), x), KeyEncoding.concat(KeyEncoding.encode(j("2")), x));
    }

    @Test
    void descendingFieldReversesOrderWithinCompoundKeys() {
        List<IndexField> fields = List.of(new IndexField("a", 1), new IndexField("b", -1));
        byte[] k1 = KeyEncoding.indexKeys(j("{a: 1, b: 'x'}"), fields).get(0);
        byte[] k2 = KeyEncoding.indexKeys(j("{a: 1, b: 'xy'}"), fields).get(0);
        byte[] k3 = KeyEncoding.indexKeys(j("{a: 2, b: 'xy'}"), fields).get(0);
        assertThat(Arrays.compareUnsigned(k2, k1)).isNegative();
        assertThat(Arrays.compareUnsigned(k1, k3)).isNegative();
    }

    @Test
    void compoundKeysOrderAsTheirFieldsOnRandomDocuments() {
        RandomValues r = new RandomValues(44);
        List<IndexField> fields = List.of(new IndexField("a", 1), new IndexField("b", -1));
        for (int i = 0; i < 5_000; i++) {
            JsonNode a1 = r.value(1), b1 = r.value(1), a2 = r.value(1), b2 = r.value(1);
            if (a1.isArray() || b1.isArray() || a2.isArray() || b2.isArray()) {
                continue;
            }
            int expected = Values.compare(a1, a2);
            if (expected == 0) {
                expected = -Values.compare(b1, b2);
            }
            byte[] k1 = KeyEncoding.indexKeys(doc(a1, b1), fields).get(0);
            byte[] k2 = KeyEncoding.indexKeys(doc(a2, b2), fields).get(0);
            assertThat(Integer.signum(Arrays.compareUnsigned(k1, k2))).isEqualTo(Integer.signum(expected));
        }
    }

    private static JsonNode doc(JsonNode a, JsonNode b) {
        return dev.weft.core.Json.NODES.objectNode().set("a", a).set("b", b);
    }

    @Test
    void prefixUpperBoundIsAboveEveryExtension() {
        HexFormat hex = HexFormat.of();
        assertThat(hex.formatHex(KeyEncoding.prefixUpperBound(hex.parseHex("30ab")))).isEqualTo("30ac");
        assertThat(hex.formatHex(KeyEncoding.prefixUpperBound(hex.parseHex("30ffff")))).isEqualTo("31");
        assertThatThrownBy(() -> KeyEncoding.prefixUpperBound(hex.parseHex("ffff")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void multikeyDetection() {
        List<IndexField> ab = List.of(new IndexField("a.b", 1));
        assertThat(KeyEncoding.isMultikey(j("{a: {b: 1}}"), ab)).isFalse();
        assertThat(KeyEncoding.isMultikey(j("{a: {b: [1]}}"), ab)).isTrue();
        assertThat(KeyEncoding.isMultikey(j("{a: [{b: 1}]}"), ab)).isTrue();
        assertThat(KeyEncoding.isMultikey(j("{c: 1}"), ab)).isFalse();
    }
}
