package dev.weft.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.query.Filter;
import dev.weft.query.QueryLimits;
import dev.weft.store.FindQuery;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * On PostgreSQL a trigram index is a pg_trgm GIN index over each document's folded strings; one
 * kept in the former layout (a row per trigram and document) is rebuilt so when the store opens.
 */
class PostgresTrigramUpgradeTest {
    private static final Json JSON = Json.standard();
    private static final QueryLimits LIMITS = QueryLimits.defaults();

    @Test
    void aTrigramIndexOfTheFormerLayoutIsRebuiltAsPgTrgmOnOpen() {
        String schema = PgTesting.freshSchema();
        Namespace ns = new Namespace("tri", "c");
        try {
            try (PostgresStore store = PgStores.open(schema)) {
                store.putDatabase("tri", obj("{}"), Optional.empty());
                store.putCollection(ns, obj("{}"), Optional.empty());
                store.write(new WriteOp.InsertMany(ns, List.of(obj("{\"_id\":1,\"u\":\"https://apache.org\"}"),
                        obj("{\"_id\":2,\"u\":[\"x\",\"https://example.com\"]}"))));
                store.createIndex(ns, IndexSpec.trigram("u_tri", "u"));
            }
            String table = schema + ".i" + PgTesting.number("SELECT id FROM " + schema + ".weft_indexes WHERE name = 'u_tri'");
            assertThat(PgTesting.number("SELECT count(*) FROM pg_indexes WHERE schemaname = '" + schema
                    + "' AND indexdef LIKE '%gin_trgm_ops%'")).isEqualTo(1);
            PgTesting.admin("DROP TABLE " + table);
            PgTesting.admin("CREATE TABLE " + table + "(key bytea NOT NULL, id bytea NOT NULL, PRIMARY KEY(key, id))");
            try (PostgresStore store = PgStores.open(schema)) {
                assertThat(ids(store, ns, "apache")).containsExactly("1");
                assertThat(ids(store, ns, "example")).containsExactly("2");
                assertThat(store.lastPlan().description()).startsWith("TRIGRAMS");
                store.write(new WriteOp.InsertMany(ns, List.of(obj("{\"_id\":3,\"u\":\"svn.APACHE.org\"}"))));
                assertThat(ids(store, ns, "apache")).containsExactlyInAnyOrder("1", "3");
            }
            assertThat(PgTesting.number("SELECT count(*) FROM " + table + " WHERE s IS NOT NULL")).isEqualTo(3);
        } finally {
            PgTesting.dropSchema(schema);
        }
    }

    private static ObjectNode obj(String json) {
        return JSON.parseObject(json.getBytes(java.nio.charset.StandardCharsets.UTF_8), "test");
    }

    /** Hinted, so the trigram index answers whatever the planner's estimate. */
    private static List<String> ids(PostgresStore store, Namespace ns, String regex) {
        List<String> out = new ArrayList<>();
        Filter f = Filter.parse(obj("{\"u\":{\"$regex\":\"" + regex + "\",\"$options\":\"i\"}}"), LIMITS);
        store.find(ns, new FindQuery(f, null, 0, 100, Optional.of("u_tri")),
                d -> out.add(JSON.text(JSON.parse(d.json(), "doc").get("_id"))));
        return out;
    }
}
