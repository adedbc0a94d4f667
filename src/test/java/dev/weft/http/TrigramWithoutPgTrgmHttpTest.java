package dev.weft.http;

import static dev.weft.http.TestServer.q;
import static dev.weft.http.TrigramIndexHttpTest.ids;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.store.postgres.PgTesting;
import java.net.URI;
import java.net.http.HttpResponse;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * Issue 22: PostgreSQL where {@code pg_trgm} cannot be installed (a role that may not create in
 * its database; the same path as a PostgreSQL without contrib). A trigram index is still created
 * (201, never a 500) and kept as Weft's own rows, one per trigram and document, so regexes are
 * still answered from an index, exactly, and every write keeps it. Runs on PostgreSQL in both
 * passes of the build (it names its own store).
 */
class TrigramWithoutPgTrgmHttpTest {
    @Test
    void aTrigramIndexIsKeptAsRowsAndStillAnswersRegexes() throws Exception {
        String name = "nopgtrgm_" + ProcessHandle.current().pid() + "_" + System.nanoTime() % 1_000_000;
        String url = PgTesting.restrictedDatabase(name);
        try {
            URI base = URI.create(PgTesting.baseUrl());
            try (var c = DriverManager.getConnection("jdbc:postgresql://" + base.getHost() + ":" + base.getPort() + "/" + name, name, null);
                 var s = c.createStatement()) {
                assertThatThrownBy(() -> s.execute("CREATE EXTENSION pg_trgm")).isInstanceOf(SQLException.class)
                        .hasMessageContaining("permission denied");
            }
            try (TestServer weft = new TestServer("--store", url)) {
                weft.createCollection("db", "c");
                assertThat(weft.post("/db/c", """
                        [{"_id":1,"links":[{"url":"https://apache.org"},{"url":"https://example.com"}]},
                         {"_id":2,"links":{"url":["http://PACH.example","x"]}},
                         {"_id":3,"links":[{"url":"https://pac.h"}]}]""").statusCode()).isEqualTo(200);
                HttpResponse<String> created = weft.put("/db/c/_indexes/url", "{\"keys\":{\"links.url\":\"trigram\"}}");
                assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
                assertThat(PgTesting.number(name, "SELECT count(*) FROM pg_extension WHERE extname = 'pg_trgm'")).isZero();
                assertThat(PgTesting.number(name, "SELECT count(*) FROM information_schema.columns WHERE table_schema = 'weft'"
                        + " AND column_name = 'key' AND table_name = (SELECT 'i' || id FROM weft.weft_indexes WHERE name = 'url')"))
                        .isEqualTo(1);

                assertThat(ids(weft, "{\"links.url\":{\"$regex\":\".*pach.*\"}}", "&hint=url")).isEqualTo("[{\"_id\":1}]");
                assertThat(ids(weft, "{\"links.url\":{\"$regex\":\"pach\",\"$options\":\"i\"}}", "&hint=url"))
                        .isEqualTo("[{\"_id\":1},{\"_id\":2}]");
                assertThat(ids(weft, "{\"links.url\":{\"$regex\":\"apache|example\"}}", "")).isEqualTo("[{\"_id\":1},{\"_id\":2}]");
                HttpResponse<String> nothing = weft.get("/db/c?filter=" + q("{\"links.url\":{\"$regex\":\"a.\"}}") + "&hint=url");
                assertThat(nothing.statusCode()).isEqualTo(400);
                assertThat(nothing.body()).contains("the trigram index url has nothing to look up");

                assertThat(weft.post("/db/c", "{\"_id\":5,\"links\":[{\"url\":\"svn.apache.org\"}]}").statusCode()).isEqualTo(201);
                assertThat(weft.patch("/db/c/1?id_type=NUMBER", "{\"$set\":{\"links\":[{\"url\":\"nothing here\"}]}}").statusCode())
                        .isEqualTo(200);
                assertThat(weft.send("POST", "/db/c", "{\"_id\":6,\"links\":{\"url\":\"https://apache.org/x\"}}\n",
                        "Content-Type", "application/x-ndjson").statusCode()).isEqualTo(200);
                assertThat(ids(weft, "{\"links.url\":{\"$regex\":\"apache\\\\.\"}}", "&hint=url")).isEqualTo("[{\"_id\":5},{\"_id\":6}]");
                assertThat(weft.delete("/db/c/5?id_type=NUMBER").statusCode()).isEqualTo(204);
                assertThat(ids(weft, "{\"links.url\":{\"$regex\":\"apache\"}}", "&hint=url")).isEqualTo("[{\"_id\":6}]");
            }
        } finally {
            PgTesting.dropRestrictedDatabase(name);
        }
    }
}
