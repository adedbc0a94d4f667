package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code ?jsonMode=} renders answers as RESTHeart 8 does (its karate jsonMode.feature, and more types). */
class JsonModeTest {
    static TestServer weft;
    static final String DOC = "{\"_id\":\"doc\",\"int\":1,\"double\":1.0,\"long\":1000000000,\"big\":5000000000,\"neg\":-2147483649,"
            + "\"timestamp\":{\"$date\":1568295769260},\"iso\":{\"$date\":\"2026-01-02T03:04:05Z\"},"
            + "\"old\":{\"$date\":-1000},\"oid\":{\"$oid\":\"609a4a069dacff2e6014d89f\"},"
            + "\"ts\":{\"$timestamp\":{\"t\":1,\"i\":2}},\"nested\":{\"a\":[1,2.5,\"s\",null,true]}}";
    static final String KEYS = "keys=" + TestServer.q("{\"_etag\":0}");

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
        weft.createCollection("db", "modes");
        assertThat(weft.put("/db/modes/doc?wm=upsert", DOC).statusCode()).isEqualTo(201);
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    static String get(String pathAndQuery) throws Exception {
        HttpResponse<String> r = weft.get(pathAndQuery);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r.body();
    }

    @Test
    void withoutAParameterOrInStandardModeTheDocumentIsAsStored() throws Exception {
        String expected = DOC;
        assertThat(get("/db/modes/doc?" + KEYS)).isEqualTo(expected);
        assertThat(get("/db/modes/doc?jsonMode=standard&" + KEYS)).isEqualTo(expected);
    }

    @Test
    void extendedWrapsEveryNumberAndDateAsCanonicalExtendedJson() throws Exception {
        assertThat(get("/db/modes/doc?jsonMode=extended&" + KEYS)).isEqualTo("{\"_id\":\"doc\","
                + "\"int\":{\"$numberInt\":\"1\"},\"double\":{\"$numberDouble\":\"1.0\"},\"long\":{\"$numberInt\":\"1000000000\"},"
                + "\"big\":{\"$numberLong\":\"5000000000\"},\"neg\":{\"$numberLong\":\"-2147483649\"},"
                + "\"timestamp\":{\"$date\":{\"$numberLong\":\"1568295769260\"}},\"iso\":{\"$date\":{\"$numberLong\":\"1767323045000\"}},"
                + "\"old\":{\"$date\":{\"$numberLong\":\"-1000\"}},\"oid\":{\"$oid\":\"609a4a069dacff2e6014d89f\"},"
                + "\"ts\":{\"$timestamp\":{\"t\":1,\"i\":2}},"
                + "\"nested\":{\"a\":[{\"$numberInt\":\"1\"},{\"$numberDouble\":\"2.5\"},\"s\",null,true]}}");
    }

    @Test
    void relaxedKeepsNumbersPlainAndWritesDatesInIso8601() throws Exception {
        assertThat(get("/db/modes/doc?jsonMode=RELAXED&" + KEYS)).isEqualTo("{\"_id\":\"doc\","
                + "\"int\":1,\"double\":1.0,\"long\":1000000000,\"big\":5000000000,\"neg\":-2147483649,"
                + "\"timestamp\":{\"$date\":\"2019-09-12T13:42:49.26Z\"},\"iso\":{\"$date\":\"2026-01-02T03:04:05Z\"},"
                + "\"old\":{\"$date\":{\"$numberLong\":\"-1000\"}},\"oid\":{\"$oid\":\"609a4a069dacff2e6014d89f\"},"
                + "\"ts\":{\"$timestamp\":{\"t\":1,\"i\":2}},\"nested\":{\"a\":[1,2.5,\"s\",null,true]}}");
    }

    @Test
    void strictWrapsOnly64BitIntegersAndWritesDatesAsMillis() throws Exception {
        String body = get("/db/modes/doc?jsonMode=strict&" + KEYS);
        assertThat(body).contains("\"int\":1,\"double\":1.0,\"long\":1000000000,\"big\":{\"$numberLong\":\"5000000000\"}")
                .contains("\"iso\":{\"$date\":1767323045000}").contains("\"timestamp\":{\"$date\":1568295769260}");
    }

    @Test
    void listsCountsAndNdjsonExportsAreRenderedToo() throws Exception {
        assertThat(get("/db/modes?jsonMode=extended&keys=" + TestServer.q("{\"int\":1}")))
                .isEqualTo("[{\"_id\":\"doc\",\"int\":{\"$numberInt\":\"1\"}}]");
        assertThat(get("/db/modes/_size?jsonMode=extended")).isEqualTo("{\"_size\":{\"$numberInt\":\"1\"}}");
        HttpResponse<String> ndjson = weft.get("/db/modes?jsonMode=relaxed&keys=" + TestServer.q("{\"timestamp\":1}"),
                "Accept", "application/x-ndjson");
        assertThat(ndjson.statusCode()).isEqualTo(200);
        assertThat(ndjson.body()).isEqualTo("{\"_id\":\"doc\",\"timestamp\":{\"$date\":\"2019-09-12T13:42:49.26Z\"}}\n");
    }

    @Test
    void aCachedAnswerIsRenderedInTheModeOfEachRequest() throws Exception {
        String plain = get("/db/modes/doc?keys=" + TestServer.q("{\"int\":1}"));
        String extended = get("/db/modes/doc?jsonMode=extended&keys=" + TestServer.q("{\"int\":1}"));
        assertThat(plain).isEqualTo("{\"_id\":\"doc\",\"int\":1}");
        assertThat(extended).isEqualTo("{\"_id\":\"doc\",\"int\":{\"$numberInt\":\"1\"}}");
        assertThat(get("/db/modes/doc?keys=" + TestServer.q("{\"int\":1}"))).isEqualTo(plain);
    }

    @Test
    void anUnknownModeOrTheShellModeIs400AndErrorsStayPlain() throws Exception {
        for (String mode : new String[] {"shell", "bogus", ""}) {
            HttpResponse<String> r = weft.get("/db/modes/doc?jsonMode=" + mode);
            assertThat(r.statusCode()).as(mode).isEqualTo(400);
            assertThat(r.body()).contains("\"http status code\":400").contains("jsonMode=" + mode + ": expected extended");
        }
        HttpResponse<String> missing = weft.get("/db/modes/nope?jsonMode=extended");
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.body()).contains("\"http status code\":404");
        HttpResponse<String> stream = weft.get("/db/modes/_streams?jsonMode=extended", "Accept", "text/event-stream");
        assertThat(stream.statusCode()).isEqualTo(400);
        assertThat(stream.body()).contains("change streams answer the standard output only");
    }

    @Test
    void isoDatesDropTrailingZeroMillisAsMongoDbsDriverWritesThem() {
        assertThat(JsonMode.iso(1568295769260L)).isEqualTo("2019-09-12T13:42:49.26Z");
        assertThat(JsonMode.iso(0)).isEqualTo("1970-01-01T00:00:00Z");
        assertThat(JsonMode.iso(1001)).isEqualTo("1970-01-01T00:00:01.001Z");
    }
}
