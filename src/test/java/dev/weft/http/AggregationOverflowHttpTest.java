package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * {@code $sum} and {@code $avg} of integers that overflow, through a real server (both stores)
 * whose scans are shuffled and dealt to parts read at once ({@link SplitScans}): MongoDB sums
 * exactly and returns a long when every input was whole and the total fits one
 * (https://www.mongodb.com/docs/manual/reference/operator/aggregation/sum/, "Result Data
 * Type"), so neither the order of the documents nor where the scan is cut may change the answer.
 * Each pipeline runs ten times (each a different shuffle), on stored bytes ({@code $group} on
 * fields) and on documents ({@code $group} after an {@code $addFields}).
 */
class AggregationOverflowHttpTest {
    private static final String MAX = "9223372036854775807";
    private static final String MIN = "-9223372036854775808";

    @Test
    void sumsOfIntegersThatOverflowDependOnlyOnTheirTotal() throws Exception {
        try (TestServer weft = new TestServer(SplitScans::wrap)) {
            weft.createCollection("db", "nums");
            HttpResponse<String> inserted = weft.post("/db/nums", """
                    [{"_id":1,"g":"a","v":%1$s},{"_id":2,"g":"a","v":1},{"_id":3,"g":"a","v":-1},
                     {"_id":4,"g":"b","v":%1$s},{"_id":5,"g":"b","v":1},
                     {"_id":6,"g":"c","v":2147483647},{"_id":7,"g":"c","v":1},{"_id":8,"g":"c","v":-1},
                     {"_id":9,"g":"d","v":%2$s},{"_id":10,"g":"d","v":-1},{"_id":11,"g":"d","v":1},
                     {"_id":12,"g":"e","v":2147483647},{"_id":13,"g":"e","v":1},
                     {"_id":14,"g":"f","v":%1$s},{"_id":15,"g":"f","v":0.5},{"_id":16,"g":"f","v":-%1$s}]""".formatted(MAX, MIN));
            assertThat(inserted.statusCode()).as(inserted.body()).isEqualTo(200);
            String expected = "[{\"_id\":\"a\",\"s\":" + MAX + ",\"m\":3.0744573456182584E18},"
                    + "{\"_id\":\"b\",\"s\":9.223372036854776E18,\"m\":4.611686018427388E18},"
                    + "{\"_id\":\"c\",\"s\":2147483647,\"m\":7.158278823333334E8},"
                    + "{\"_id\":\"d\",\"s\":" + MIN + ",\"m\":-3.0744573456182584E18},"
                    + "{\"_id\":\"e\",\"s\":2147483648,\"m\":1.073741824E9},"
                    + "{\"_id\":\"f\",\"s\":0.5,\"m\":0.16666666666666666}]";
            String accumulators = "\"s\":{\"$sum\":\"$v\"},\"m\":{\"$avg\":\"$v\"}}},{\"$sort\":{\"_id\":1}}]";
            String onFields = "[{\"$group\":{\"_id\":\"$g\"," + accumulators;
            String onDocuments = "[{\"$addFields\":{\"w\":\"$v\"}},{\"$group\":{\"_id\":\"$g\","
                    + accumulators.replace("$v", "$w");
            for (int run = 0; run < 10; run++) {
                for (String pipeline : new String[] {onFields, onDocuments}) {
                    HttpResponse<String> r = weft.post("/db/nums/_aggrs", pipeline);
                    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                    assertThat(r.body()).as("run " + run + ": " + pipeline).isEqualTo(expected);
                }
            }
        }
    }

    /** The same accumulators as expressions over an array field, through the server. */
    @Test
    void sumOfAnArrayFieldIsExactToo() throws Exception {
        try (TestServer weft = new TestServer()) {
            weft.createCollection("db", "arrays");
            HttpResponse<String> inserted = weft.post("/db/arrays", """
                    [{"_id":1,"a":[%1$s,1,-1]},{"_id":2,"a":[1,%1$s]},{"_id":3,"a":["x",null,2.5]},{"_id":4}]""".formatted(MAX));
            assertThat(inserted.statusCode()).as(inserted.body()).isEqualTo(200);
            HttpResponse<String> r = weft.post("/db/arrays/_aggrs",
                    "[{\"$project\":{\"s\":{\"$sum\":\"$a\"},\"m\":{\"$avg\":\"$a\"},\"lo\":{\"$min\":\"$a\"},\"hi\":{\"$max\":\"$a\"}}}]");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("[{\"_id\":1,\"s\":" + MAX + ",\"m\":3.0744573456182584E18,\"lo\":-1,\"hi\":" + MAX + "},"
                    + "{\"_id\":2,\"s\":9.223372036854776E18,\"m\":4.611686018427388E18,\"lo\":1,\"hi\":" + MAX + "},"
                    + "{\"_id\":3,\"s\":2.5,\"m\":2.5,\"lo\":2.5,\"hi\":\"x\"},"
                    + "{\"_id\":4,\"s\":0,\"m\":null,\"lo\":null,\"hi\":null}]");
        }
    }
}
