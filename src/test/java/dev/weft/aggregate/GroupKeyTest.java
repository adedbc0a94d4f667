package dev.weft.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class GroupKeyTest {
    private static final Json JSON = Json.standard();

    private static JsonNode json(String text) {
        return JSON.mapper().readTree(text);
    }

    @Test
    void valuesMongoDbCallsEqualAreEqualKeysWithEqualHashes() {
        List<List<String>> same = List.of(
                List.of("1", "1.0"),
                List.of("3000000000", "3000000000.0"),
                List.of("0", "-0.0", "0.0"),
                List.of("null"),
                List.of("{\"$oid\":\"5f0000000000000000000abc\"}", "{\"$oid\":\"5F0000000000000000000ABC\"}"),
                List.of("{\"x\":[1,2.0]}", "{\"x\":[1.0,2]}"),
                List.of("\"a\""));
        for (List<String> group : same) {
            GroupKey first = new GroupKey(json(group.getFirst()));
            for (String other : group) {
                GroupKey k = new GroupKey(json(other));
                assertThat(k).as(other + " equals " + group.getFirst()).isEqualTo(first);
                assertThat(k.hashCode()).as(other).isEqualTo(first.hashCode());
            }
        }
    }

    @Test
    void missingIsTheNullKey() {
        assertThat(new GroupKey(AggValues.orNull(null))).isEqualTo(new GroupKey(json("null")));
    }

    @Test
    void differentValuesAreDifferentKeys() {
        List<String> distinct = List.of("1", "2", "\"1\"", "true", "{\"x\":[2,1]}", "{\"x\":[1,2]}", "[1,2]",
                "{\"a\":1,\"b\":2}", "{\"b\":2,\"a\":1}", "{\"$date\":0}", "null");
        for (int i = 0; i < distinct.size(); i++) {
            for (int j = 0; j < distinct.size(); j++) {
                assertThat(new GroupKey(json(distinct.get(i))).equals(new GroupKey(json(distinct.get(j)))))
                        .as(distinct.get(i) + " vs " + distinct.get(j)).isEqualTo(i == j);
            }
        }
    }

    @Test
    void keysWhoseHashesCollideAreStillFoundApart() {
        // "Aa" and "BB" have one String hash: 2^12 keys of six such pairs all share one hash
        java.util.Map<GroupKey, Integer> groups = new java.util.HashMap<>();
        for (int i = 0; i < 4096; i++) {
            StringBuilder s = new StringBuilder();
            for (int bit = 0; bit < 12; bit++) {
                s.append((i >> bit & 1) == 0 ? "Aa" : "BB");
            }
            groups.put(new GroupKey(json("\"" + s + "\"")), i);
        }
        assertThat(groups).hasSize(4096);
        assertThat(groups.keySet().stream().mapToInt(GroupKey::hashCode).distinct().count()).isEqualTo(1);
        assertThat(groups.get(new GroupKey(json("\"" + "Aa".repeat(12) + "\"")))).isEqualTo(0);
        assertThat(groups.get(new GroupKey(json("\"" + "BB".repeat(12) + "\"")))).isEqualTo(4095);
    }

    @Test
    void onlyKeysWrittenOneWaySkipTheFirstSpellingCheck() {
        for (String one : List.of("\"a\"", "\"\u00e9\"", "true", "false", "null")) {
            assertThat(GroupKey.spelledOneWay(json(one))).as(one).isTrue();
        }
        assertThat(GroupKey.spelledOneWay(null)).isTrue();
        for (String many : List.of("1", "1.0", "{\"$oid\":\"5f0000000000000000000abc\"}", "{\"$date\":0}", "[\"a\"]",
                "{\"x\":\"a\"}")) {
            assertThat(GroupKey.spelledOneWay(json(many))).as(many).isFalse();
        }
    }
}
