package dev.weft.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.core.Settings;
import dev.weft.query.Filter;
import dev.weft.query.QueryLimits;
import dev.weft.query.Sort;
import dev.weft.query.TextIndex;
import dev.weft.query.TextLanguage;
import dev.weft.store.FindQuery;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * Issue 22, PostgreSQL's ranked {@code $text} page: each term's document count (its inverse
 * document frequency) is taken in the ranking statement, among the matches that statement reads,
 * not by a statement of its own per term, which read every document holding the term from the
 * heap a second time (~16,000 more heap fetches for two words in ~9,300 of 1M documents). Counted
 * on the wire ({@link RoundTripProxy}); the order is the documented one (rarer words and more
 * occurrences first, ties by ascending {@code _id}).
 */
class PgRankedTextTest {
    private static final Json JSON = Json.standard();
    private static final QueryLimits LIMITS = QueryLimits.defaults();
    private static final Namespace NS = new Namespace("rank", "c");

    @Test
    void theTermsAreCountedInTheRankingStatement() throws Exception {
        String schema = PgTesting.freshSchema();
        try (RoundTripProxy proxy = new RoundTripProxy(PgTesting.baseUrl());
             PostgresStore store = new PostgresStore(Settings.parse(new String[] {"--store", proxy.url(schema)}, Map.of()), JSON)) {
            store.putDatabase("rank", obj("{}"), Optional.empty());
            store.putCollection(NS, obj("{}"), Optional.empty());
            List<ObjectNode> docs = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                docs.add(obj("{\"_id\":\"d" + (10 + i) + "\",\"body\":\"stone wood " + (i % 4 == 0 ? "river" : "grass") + "\"}"));
            }
            docs.add(obj("{\"_id\":\"rare\",\"body\":\"quartz stone wood\"}"));
            docs.add(obj("{\"_id\":\"twice\",\"body\":\"river river wood\"}"));
            store.write(new WriteOp.InsertMany(NS, docs));
            store.createIndex(NS, IndexSpec.text("t", new TextIndex(Map.of("body", 1), TextLanguage.ENGLISH, "lang")));
            Filter filter = Filter.parse(obj("{\"$text\":{\"$search\":\"river quartz\"}}"), LIMITS);
            filter.textSearch().orElseThrow().readerSeesEverything(true);
            proxy.reset();
            List<String> ids = new ArrayList<>();
            store.find(NS, new FindQuery(filter, Sort.parse("{\"score\":{\"$meta\":\"textScore\"}}", LIMITS), 0, 10, Optional.empty()),
                    doc -> ids.add(JSON.parseObject(doc.json(), "doc").get("_id").asString()));
            assertThat(ids).containsExactly("rare", "twice", "d10", "d14", "d18", "d22", "d26");
            List<RoundTripProxy.Transaction> ranking = proxy.transactions("ts_rank");
            assertThat(ranking).hasSize(1);
            assertThat(ranking.getFirst().sent()).contains("count(*) FILTER (WHERE h0)");
            assertThat(proxy.transactions("SELECT 1 FROM \\S+ WHERE words @@")).isEmpty();
        } finally {
            PgTesting.dropSchema(schema);
        }
    }

    private static ObjectNode obj(String json) {
        return JSON.parseObject(json.getBytes(StandardCharsets.UTF_8), "test");
    }
}
