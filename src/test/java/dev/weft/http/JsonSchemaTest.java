package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * JSON Schema validation as RESTHeart's: schemas in {@code /db/_schemas}, a collection's
 * {@code jsonSchema} property checked on every write path, 400 with the validator's messages and
 * nothing written; a schema that is not a valid JSON Schema is 400 and not stored.
 */
class JsonSchemaTest {
    /** RESTHeart's karate schemas: ObjectId and date definitions written with its _$ escapes, referenced by URL. */
    static final String MONGO = """
            {"_id":"mongo","$schema":"http://json-schema.org/draft-07/schema#","definitions":{
              "BsonDate":{"type":"object","properties":{"_$date":{"type":"number"}},"additionalProperties":false},
              "ObjectId":{"type":"object","properties":{"_$oid":{"type":"string"}},"additionalProperties":false}}}""";
    static final String COLL = """
            {"_id":"coll","$schema":"https://json-schema.org/draft-07/schema#","type":"object","properties":{
              "_id":{"$ref":"http://schema-store/db/mongo#/definitions/ObjectId"},
              "n":{"type":"number","minimum":0,"maximum":10},"s":{"type":"string"},
              "timestamp":{"$ref":"http://schema-store/db/mongo#/definitions/BsonDate"}},
             "required":["n","s","timestamp"]}""";
    static final String OID = "609a4a069dacff2e6014d89f";

    TestServer weft;

    @BeforeEach
    void start() throws Exception {
        weft = new TestServer();
        assertThat(weft.put("/db", "{}").statusCode()).isEqualTo(201);
        HttpResponse<String> created = weft.put("/db/_schemas", "{}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        for (String schema : new String[] {MONGO, COLL}) {
            HttpResponse<String> r = weft.post("/db/_schemas", schema);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        }
        assertThat(weft.put("/db/coll", "{\"jsonSchema\":{\"schemaId\":\"coll\"}}").statusCode()).isEqualTo(201);
    }

    @AfterEach
    void stop() throws Exception {
        weft.close();
    }

    static String doc(String id, String n) {
        return "{\"_id\":{\"$oid\":\"" + id + "\"},\"n\":" + n + ",\"s\":\"foo\",\"timestamp\":{\"$date\":1568295769260}}";
    }

    static String oid(int i) {
        return String.format("%024x", i);
    }

    void assertRefused(HttpResponse<String> r, String... messages) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(r.body()).contains("\"http status code\":400", "Request content violates schema 'coll'").contains(messages);
    }

    long count() throws Exception {
        String body = weft.get("/db/coll/_size").body();
        return Long.parseLong(body.replaceAll("\\D", ""));
    }

    @Test
    void theKarateScenarioOfRestheart() throws Exception {
        assertThat(weft.post("/db/coll", "{\"n\":1,\"s\":\"foo\",\"timestamp\":{\"$date\":1568295769260}}").statusCode()).isEqualTo(201);
        assertThat(weft.post("/db/coll", doc(OID, "1")).statusCode()).isEqualTo(201);
        assertRefused(weft.post("/db/coll", "{\"_id\":\"wrong\",\"n\":1,\"s\":\"foo\",\"timestamp\":{\"$date\":1568295769260}}"),
                "/_id: string found, object expected");
        assertRefused(weft.post("/db/coll", "{\"n\":\"wrong\",\"s\":\"foo\",\"timestamp\":{\"$date\":1568295769260}}"),
                "/n: string found, number expected");
        assertRefused(weft.post("/db/coll", "{\"n\":1,\"s\":1000,\"timestamp\":{\"$date\":1568295769260}}"), "/s: integer found, string expected");
        assertRefused(weft.post("/db/coll", "{\"n\":1,\"s\":\"foo\",\"timestamp\":1568295769260}"), "/timestamp: integer found, object expected");
        assertRefused(weft.patch("/db/coll/" + OID, "{\"n\":\"s\"}"), "/n: string found, number expected");
        assertThat(weft.patch("/db/coll/" + OID, "{\"n\":2}").statusCode()).isEqualTo(200);
        assertRefused(weft.patch("/db/coll/" + OID, "{\"timestamp\":\"1568295769260\"}"), "/timestamp: string found, object expected");
        assertThat(weft.patch("/db/coll/" + OID, "{\"timestamp\":{\"$date\":1568295769260}}").statusCode()).isEqualTo(200);
        assertThat(weft.get("/db/coll/" + OID).body()).contains("\"n\":2");
        assertThat(count()).isEqualTo(2);
    }

    @Test
    void anIsoDateMeetsTheSchemaAsADateAndMessagesAreCapped() throws Exception {
        assertThat(weft.post("/db/coll", "{\"n\":1,\"s\":\"x\",\"timestamp\":{\"$date\":\"2026-01-02T03:04:05Z\"}}").statusCode()).isEqualTo(201);
        HttpResponse<String> many = weft.post("/db/coll", "{\"_id\":1,\"n\":\"a\",\"s\":2}");
        assertRefused(many, "required property 'timestamp' not found");
        weft = weft.restartWith("--json-schema-max-errors", "1");
        HttpResponse<String> r = weft.post("/db/coll", "{\"_id\":1,\"n\":\"a\",\"s\":2}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("(and 3 more)");
    }

    @Test
    void everyWritePathIsCheckedAndARefusalWritesNothing() throws Exception {
        assertThat(weft.post("/db/coll", doc(oid(1), "1")).statusCode()).isEqualTo(201);
        assertThat(weft.post("/db/coll", doc(oid(2), "2")).statusCode()).isEqualTo(201);
        // an array: one bad document refuses the whole array
        assertRefused(weft.post("/db/coll", "[" + doc(oid(3), "3") + "," + doc(oid(4), "11") + "]"), "/n: must have a maximum value of 10");
        assertThat(count()).isEqualTo(2);
        // ndjson: per line
        HttpResponse<String> ndjson = weft.client.send(weft.request("/db/coll").header("Content-Type", "application/x-ndjson")
                .POST(HttpRequest.BodyPublishers.ofString(doc(oid(5), "5") + "\n" + doc(oid(6), "-1") + "\n")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(ndjson.body()).contains("\"inserted\":1", "\"failed\":1", "\"line\":2", "/n: must have a minimum value of 0");
        assertThat(count()).isEqualTo(3);
        // PUT, wm=upsert PATCH creating a document, PATCH removing a required field
        assertRefused(weft.put("/db/coll/" + oid(1), "{\"n\":1,\"s\":\"foo\"}"), "required property 'timestamp' not found");
        assertRefused(weft.patch("/db/coll/" + oid(7) + "?wm=upsert", "{\"n\":1}"), "required property 's' not found");
        assertRefused(weft.patch("/db/coll/" + oid(1), "{\"$unset\":{\"s\":1}}"), "required property 's' not found");
        assertThat(weft.put("/db/coll/" + oid(1), doc(oid(1), "9")).statusCode()).isEqualTo(200);
        // bulk PATCH: one document the update would break refuses the whole update
        HttpResponse<String> bulk = weft.patch("/db/coll/*?filter=" + TestServer.q("{}"), "{\"$inc\":{\"n\":2}}");
        assertRefused(bulk, "/n: must have a maximum value of 10");
        assertThat(weft.get("/db/coll/" + oid(2)).body()).contains("\"n\":2");
        assertThat(weft.patch("/db/coll/*?filter=" + TestServer.q("{\"n\":{\"$lt\":9}}"), "{\"$inc\":{\"n\":1}}").statusCode()).isEqualTo(200);
        assertThat(weft.get("/db/coll/" + oid(2)).body()).contains("\"n\":3");
        assertThat(count()).isEqualTo(3);
    }

    @Test
    void aSchemaThatIsNotValidJsonSchemaIs400AndNotStored() throws Exception {
        HttpResponse<String> r = weft.post("/db/_schemas", "{\"_id\":\"bad\",\"type\":\"objekt\",\"properties\":3}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(r.body()).contains("schema 'bad' is not a valid JSON Schema (DRAFT_4)", "/type", "/properties");
        assertThat(weft.get("/db/_schemas/bad").statusCode()).isEqualTo(404);
        // 2020-12 refuses draft 4's boolean exclusiveMaximum, draft 4 takes it
        String exclusive = "\"type\":\"object\",\"properties\":{\"n\":{\"maximum\":5,\"exclusiveMaximum\":true}}}";
        assertThat(weft.put("/db/_schemas/d4?wm=upsert", "{" + exclusive).statusCode()).isEqualTo(201);
        HttpResponse<String> d2020 = weft.put("/db/_schemas/d2020?wm=upsert",
                "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\"," + exclusive);
        assertThat(d2020.statusCode()).as(d2020.body()).isEqualTo(400);
        assertThat(d2020.body()).contains("(DRAFT_2020_12)", "/properties/n/exclusiveMaximum");
        assertThat(weft.get("/db/_schemas/d2020").statusCode()).isEqualTo(404);
        HttpResponse<String> dialect = weft.post("/db/_schemas", "{\"_id\":\"x\",\"$schema\":\"http://example.com/mine\"}");
        assertThat(dialect.statusCode()).isEqualTo(400);
        assertThat(dialect.body()).contains("is not a supported dialect");
        HttpResponse<String> missingRef = weft.post("/db/_schemas", "{\"_id\":\"r\",\"$ref\":\"http://schema-store/db/nope#\"}");
        assertThat(missingRef.statusCode()).isEqualTo(400);
        assertThat(missingRef.body()).contains("schema 'r' cannot be used");
        HttpResponse<String> backreference = weft.post("/db/_schemas", "{\"_id\":\"p\",\"properties\":{\"s\":{\"pattern\":\"(a)\\\\1\"}}}");
        assertThat(backreference.statusCode()).as(backreference.body()).isEqualTo(400);
        assertThat(backreference.body()).contains("/properties/s/pattern", "must be a valid ECMA-262 regular expression");
        HttpResponse<String> patched = weft.patch("/db/_schemas/d4", "{\"type\":\"objekt\"}");
        assertThat(patched.statusCode()).isEqualTo(400);
        assertThat(weft.get("/db/_schemas/d4").body()).contains("\"type\":\"object\"");
        assertThat(weft.get("/db/_schemas?keys=" + TestServer.q("{\"_id\":1}")).body())
                .isEqualTo("[{\"_id\":\"mongo\"},{\"_id\":\"d4\"},{\"_id\":\"coll\"}]");
    }

    @Test
    void aChangedSchemaAppliesToTheNextWriteAndADeletedOneRefusesWrites() throws Exception {
        assertRefused(weft.post("/db/coll", doc(oid(1), "20")), "maximum value of 10");
        assertThat(weft.put("/db/_schemas/coll", COLL.replace("\"maximum\":10", "\"maximum\":100")).statusCode()).isEqualTo(200);
        assertThat(weft.post("/db/coll", doc(oid(1), "20")).statusCode()).isEqualTo(201);
        assertThat(weft.delete("/db/_schemas/coll").statusCode()).isEqualTo(204);
        HttpResponse<String> r = weft.post("/db/coll", doc(oid(2), "1"));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("schema 'coll' does not exist in db/_schemas");
        assertThat(weft.delete("/db/coll/" + oid(1)).statusCode()).isEqualTo(204);
    }

    @Test
    void aCollectionPropertyThatCannotNameASchemaIs400() throws Exception {
        for (String bad : new String[] {"\"coll\"", "{}", "{\"schemaId\":1}", "{\"schemaId\":\"a/b\"}",
                "{\"schemaId\":\"coll\",\"schemaStoreDb\":5}", "{\"schemaId\":\"coll\",\"other\":1}"}) {
            HttpResponse<String> r = weft.put("/db/other", "{\"jsonSchema\":" + bad + "}");
            assertThat(r.statusCode()).as(bad).isEqualTo(400);
            assertThat(r.body()).as(bad).contains("jsonSchema");
        }
        assertThat(weft.get("/db/other").statusCode()).isEqualTo(404);
        assertThat(weft.put("/db/other", "{\"jsonSchema\":{\"schemaId\":\"coll\",\"schemaStoreDb\":\"db\"}}").statusCode()).isEqualTo(201);
        assertRefused(weft.post("/db/other", "{\"n\":1}"), "required property");
    }

    @Test
    void patternsRunInLinearTime() throws Exception {
        assertThat(weft.put("/db/_schemas/p?wm=upsert", "{\"properties\":{\"s\":{\"pattern\":\"^(a+)+$\"}}}").statusCode()).isEqualTo(201);
        assertThat(weft.put("/db/p", "{\"jsonSchema\":{\"schemaId\":\"p\"}}").statusCode()).isEqualTo(201);
        long start = System.nanoTime();
        HttpResponse<String> r = weft.post("/db/p", "{\"s\":\"" + "a".repeat(100_000) + "b\"}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("Request content violates schema 'p': /s: does not match the regex pattern ^(a+)+$");
        assertThat(System.nanoTime() - start).isLessThan(10_000_000_000L); // backtracking would take longer than the universe
        assertThat(weft.post("/db/p", "{\"s\":\"aaa\"}").statusCode()).isEqualTo(201);
    }

    @Test
    void aReferenceOutsideTheSchemaStoreIsNeverFetched() throws Exception {
        AtomicInteger hits = new AtomicInteger();
        HttpServer outside = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        outside.createContext("/", exchange -> {
            hits.incrementAndGet();
            byte[] body = "{\"type\":\"string\"}".getBytes();
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        outside.start();
        try {
            String url = "http://127.0.0.1:" + outside.getAddress().getPort() + "/schema.json";
            HttpResponse<String> r = weft.post("/db/_schemas", "{\"_id\":\"remote\",\"properties\":{\"a\":{\"$ref\":\"" + url + "\"}}}");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
            HttpResponse<String> other = weft.post("/db/_schemas",
                    "{\"_id\":\"otherdb\",\"properties\":{\"a\":{\"$ref\":\"http://schema-store/weft/users#\"}}}");
            assertThat(other.statusCode()).isEqualTo(400);
            assertThat(hits.get()).isZero();
        } finally {
            outside.stop(0);
        }
    }

    @Test
    void theSchemaStoreObeysTheAccessRules() throws Exception {
        AuthorizationMatrixTest.users(weft);
        send(weft, "admin", "POST", "/weft/acl", """
                {"_id":"coll-writers","roles":["user"],"priority":10,"predicate":"path-prefix('/db/coll')"}""");
        assertThat(send(weft, "alice", "GET", "/db/_schemas", null).statusCode()).isEqualTo(403);
        assertThat(send(weft, "alice", "GET", "/db/_schemas/coll", null).statusCode()).isEqualTo(403);
        assertThat(send(weft, "alice", "PUT", "/db/_schemas/coll", "{\"type\":\"object\"}").statusCode()).isEqualTo(403);
        assertThat(send(weft, "alice", "DELETE", "/db/_schemas/coll", null).statusCode()).isEqualTo(403);
        assertThat(send(weft, "anon", "GET", "/db/_schemas/coll", null).statusCode()).isEqualTo(401);
        // the user's own writes are still checked against the schema it may not read
        HttpResponse<String> refused = send(weft, "alice", "POST", "/db/coll", "{\"n\":50,\"s\":\"x\",\"timestamp\":{\"$date\":1}}");
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(send(weft, "alice", "POST", "/db/coll", doc(oid(9), "5")).statusCode()).isEqualTo(201);
        assertThat(weft.get("/db/_schemas/coll").body()).contains("\"maximum\":10");
        // a rule may open the store read-only
        send(weft, "admin", "POST", "/weft/acl", """
                {"_id":"schemas-read","roles":["user"],"priority":10,"predicate":"path-prefix('/db/_schemas') and method(GET)"}""");
        assertThat(send(weft, "alice", "GET", "/db/_schemas/coll", null).statusCode()).isEqualTo(200);
        assertThat(send(weft, "alice", "PUT", "/db/_schemas/coll", "{\"type\":\"object\"}").statusCode()).isEqualTo(403);
    }

    @Test
    void aRefusalNeverNamesAFieldTheWritersRuleHides() throws Exception {
        AuthorizationMatrixTest.users(weft);
        HttpResponse<String> schema = weft.put("/db/_schemas/staff?wm=upsert", "{\"properties\":{\"salary\":{\"type\":\"number\",\"maximum\":100}}}");
        assertThat(schema.statusCode()).as(schema.body()).isEqualTo(201);
        assertThat(weft.put("/db/staff", "{\"jsonSchema\":{\"schemaId\":\"staff\"}}").statusCode()).isEqualTo(201);
        assertThat(weft.post("/db/staff", "{\"_id\":\"d1\",\"name\":\"a\",\"salary\":50}").statusCode()).isEqualTo(201);
        send(weft, "admin", "POST", "/weft/acl", """
                {"_id":"staff-writers","roles":["user"],"priority":10,"predicate":"path-prefix('/db/staff')","projectResponse":{"salary":0}}""");
        HttpResponse<String> seen = send(weft, "alice", "GET", "/db/staff/d1", null);
        assertThat(seen.statusCode()).isEqualTo(200);
        assertThat(seen.body()).contains("\"name\":\"a\"").doesNotContain("salary");
        // the schema tightens under a stored value: the next write of the document fails on it
        assertThat(weft.put("/db/_schemas/staff", "{\"properties\":{\"salary\":{\"type\":\"number\",\"maximum\":10}}}").statusCode()).isEqualTo(200);
        HttpResponse<String> alice = send(weft, "alice", "PATCH", "/db/staff/d1", "{\"name\":\"b\"}");
        assertThat(alice.statusCode()).as(alice.body()).isEqualTo(400);
        assertThat(alice.body()).contains("Request content violates schema 'staff'", "a field hidden from you does not meet the schema")
                .doesNotContain("salary").doesNotContain("maximum");
        HttpResponse<String> admin = weft.patch("/db/staff/d1", "{\"name\":\"b\"}");
        assertThat(admin.statusCode()).isEqualTo(400);
        assertThat(admin.body()).contains("/salary: must have a maximum value of 10");
        assertThat(weft.get("/db/staff/d1").body()).contains("\"name\":\"a\"");
    }
}
