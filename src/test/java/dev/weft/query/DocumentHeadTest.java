package dev.weft.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DocumentHeadTest {
    private static final Json JSON = Json.standard();
    private static final QueryLimits LIMITS = QueryLimits.defaults();

    private static DocumentHead.Parts head(String body, int budget) {
        return DocumentHead.of(body.getBytes(StandardCharsets.UTF_8), budget);
    }

    private static String text(DocumentHead.Parts parts) {
        return parts.head() == null ? null : new String(parts.head(), StandardCharsets.UTF_8);
    }

    @Test
    void holdsTheSmallestMembersInDocumentOrderAsTheirOwnBytes() {
        String field0 = "x".repeat(100);
        String body = "{\"_id\":\"user7\",\"field0\":\"" + field0 + "\",\"field1\":\"" + "y".repeat(100)
                + "\",\"g\":\"g07\",\"v\":1.50e1}";
        assertThat(text(head(body, 64))).isEqualTo("{\"_id\":\"user7\",\"g\":\"g07\",\"v\":1.50e1}");
        // field0 fits the next 111 bytes; field1, as large, no longer does
        assertThat(text(head(body, 160))).isEqualTo("{\"_id\":\"user7\",\"field0\":\"" + field0 + "\",\"g\":\"g07\",\"v\":1.50e1}");
        assertThat(head(body, 160).head().length).isLessThanOrEqualTo(160);
        assertThat(text(head(body, 4096))).isEqualTo(body);
    }

    @Test
    void theBudgetBoundsTheHeadExactly() {
        String body = "{\"a\":1,\"b\":22,\"c\":333}";
        for (int budget = 0; budget < 40; budget++) {
            DocumentHead.Parts parts = head(body, budget);
            if (parts.head() != null) {
                assertThat(parts.head().length).as("budget " + budget).isLessThanOrEqualTo(budget);
                JSON.parseObject(parts.head(), "head"); // always an object
            }
        }
        assertThat(text(head(body, 1))).isNull();
        assertThat(text(head(body, 2))).isEqualTo("{}");
        assertThat(text(head(body, 7))).isEqualTo("{\"a\":1}");
        assertThat(text(head(body, 14))).isEqualTo("{\"a\":1,\"b\":22}");
    }

    @Test
    void theNamesNotHeldHaveTheirBitsSetAndHeldOnesOnlyByCollision() {
        String body = "{\"small\":1,\"big\":\"" + "z".repeat(300) + "\",\"nested\":{\"deep\":[1,2,3,4,5,6,7,8,9,10,11,12]}}";
        DocumentHead.Parts parts = head(body, 32);
        assertThat(text(parts)).isEqualTo("{\"small\":1}");
        assertThat(parts.rest() & DocumentHead.bit("big")).isNotZero();
        assertThat(parts.rest() & DocumentHead.bit("nested")).isNotZero();
        assertThat(parts.rest()).isEqualTo(DocumentHead.bit("big") | DocumentHead.bit("nested"));
        assertThat(head("{\"a\":1}", 64).rest()).isZero();
    }

    @Test
    void escapedNamesAreDecodedForTheirBits() {
        String body = "{\"a\\\"b\":\"" + "q".repeat(200) + "\",\"caf\\u00e9\":\"" + "r".repeat(200) + "\",\"k\":1}";
        DocumentHead.Parts parts = head(body, 16);
        assertThat(text(parts)).isEqualTo("{\"k\":1}");
        assertThat(parts.rest()).isEqualTo(DocumentHead.bit("a\"b") | DocumentHead.bit("café"));
        // an escaped name held keeps its bytes as written
        assertThat(text(head("{\"t\\tab\":1}", 64))).isEqualTo("{\"t\\tab\":1}");
    }

    @Test
    void aBodyThatIsNotAnObjectHasNoHead() {
        assertThat(text(head("[1,2]", 256))).isNull();
        assertThat(text(head("42", 256))).isNull();
        assertThat(text(head("{\"a\":", 256))).isNull();
        assertThat(text(head("", 256))).isNull();
        assertThat(text(head("{}", 256))).isEqualTo("{}");
        assertThat(text(head(" { \"a\" : 1 , \"b\" : [ 2 ] } ", 256))).isEqualTo("{\"a\" : 1,\"b\" : [ 2 ]}");
    }

    @Test
    void aFiltersAndSortsTopLevelNamesAreWhatItReads() {
        Filter filter = Filter.parse(JSON.parse("{\"a.b\":1,\"$or\":[{\"c\":{\"$gt\":2}},{\"d\":{\"$elemMatch\":{\"e\":1}}}]}", "f"), LIMITS);
        assertThat(DocumentHead.namesRead(filter, Sort.parse("{\"s.t\":-1}", LIMITS))).contains(Set.of("a", "c", "d", "s"));
        assertThat(DocumentHead.namesRead(Filter.all(), null)).contains(Set.of());
        Filter negated = Filter.parse(JSON.parse("{\"x\":{\"$not\":{\"$gt\":1}}}", "f"), LIMITS);
        assertThat(DocumentHead.namesRead(negated, null)).contains(Set.of("x"));
    }

    @Test
    void aTextSearchOrATextScoreSortCannotBeAnsweredFromAHead() {
        Filter text = Filter.parse(JSON.parse("{\"$text\":{\"$search\":\"word\"}}", "f"), LIMITS);
        assertThat(DocumentHead.namesRead(text, null)).isEqualTo(Optional.empty());
        Filter plain = Filter.parse(JSON.parse("{\"a\":1}", "f"), LIMITS);
        Sort byScore = Sort.parse("{\"score\":{\"$meta\":\"textScore\"}}", LIMITS);
        assertThat(DocumentHead.namesRead(plain, byScore)).isEqualTo(Optional.empty());
    }

    @Test
    void everyRandomDocumentHasAHeadAndAWholeBudgetHoldsItAll() {
        RandomQueries rq = new RandomQueries(11);
        for (int i = 0; i < 2000; i++) {
            byte[] body = JSON.bytes(rq.document(i));
            DocumentHead.Parts parts = DocumentHead.of(body, body.length);
            assertThat(parts.head()).as(new String(body, StandardCharsets.UTF_8)).isEqualTo(body);
            assertThat(parts.rest()).isZero();
            DocumentHead.Parts small = DocumentHead.of(body, 24);
            assertThat(small.head()).isNotNull();
            JSON.parseObject(small.head(), "head");
        }
    }

    @Test
    void aStoredHeadIsAtMostAQuarterOfItsBody() {
        String field0 = "x".repeat(100);
        String ycsb = "{\"_id\":\"user7\",\"field0\":\"" + field0 + "\",\"field1\":\"" + "y".repeat(600)
                + "\",\"g\":\"g07\",\"v\":1.50e1}";
        assertThat(text(DocumentHead.stored(ycsb.getBytes(StandardCharsets.UTF_8), 256))).isEqualTo(text(head(ycsb, 256)));
        String small = "{\"a\":1,\"b\":22,\"c\":\"" + "z".repeat(40) + "\"}";
        assertThat(head(small, 256).head()).isNotNull();
        assertThat(text(DocumentHead.stored(small.getBytes(StandardCharsets.UTF_8), 256))).isNull();
        byte[] quarter = ("{\"a\":1,\"b\":\"" + "q".repeat(20) + "\"}").getBytes(StandardCharsets.UTF_8); // 34 B, head {"a":1} 7 B
        assertThat(text(DocumentHead.stored(quarter, 7))).isEqualTo("{\"a\":1}");
        assertThat(text(DocumentHead.stored(quarter, 256))).isNull(); // the whole body would be its head
    }
}
