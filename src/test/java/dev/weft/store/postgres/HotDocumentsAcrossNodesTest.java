package dev.weft.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.core.ReadMode;
import dev.weft.query.QueryLimits;
import dev.weft.query.Update;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * Three nodes on one database reading and incrementing the same few hot documents, as YCSB's
 * workload A does over several nodes: every acknowledged increment is stored (no lost update
 * across nodes), and a node whose remembered copy of a hot document another node keeps changing
 * stops assuming it, so its groups' one-burst attempts do not keep failing on stale copies (each
 * failure marks the copies it found stale; before, nearly every group of the node that loaded
 * the documents failed its burst and ran again with a savepoint and a round trip per write,
 * holding its row locks while the other nodes' groups waited).
 */
class HotDocumentsAcrossNodesTest {
    private static final Json JSON = Json.standard();
    private static final Namespace NS = new Namespace("hot", "docs");
    private static final int DOCS = 100;
    private static final int NODES = 3;
    private static final int CLIENTS_PER_NODE = 24;
    private static final int OPS_PER_CLIENT = 80;

    @Test
    void incrementsOfHotDocumentsFromThreeNodesAreAllKeptAndStaleCopiesStopFailingBursts() throws Exception {
        String schema = PgTesting.freshSchema();
        List<PostgresStore> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < NODES; i++) {
                nodes.add(PgStores.open(schema));
            }
            PostgresStore loader = nodes.getFirst();
            loader.putDatabase(NS.db(), Json.NODES.objectNode(), Optional.empty());
            loader.putCollection(NS, Json.NODES.objectNode(), Optional.empty());
            List<ObjectNode> docs = new ArrayList<>();
            for (int i = 0; i < DOCS; i++) {
                docs.add((ObjectNode) JSON.parse("{\"_id\":" + i + ",\"n\":0,\"pad\":\"" + "x".repeat(200) + "\"}", "doc"));
            }
            loader.write(new WriteOp.InsertMany(NS, docs)); // the loader now remembers every document
            Update inc = Update.parse(JSON.parse("{\"$inc\":{\"n\":1}}", "update"), QueryLimits.defaults());
            AtomicLongArray acknowledged = new AtomicLongArray(DOCS);
            List<Future<?>> clients = new ArrayList<>();
            try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
                for (PostgresStore node : nodes) {
                    for (int c = 0; c < CLIENTS_PER_NODE; c++) {
                        clients.add(pool.submit(() -> {
                            ThreadLocalRandom r = ThreadLocalRandom.current();
                            for (int n = 0; n < OPS_PER_CLIENT; n++) {
                                int k = (int) Math.floor(Math.pow(r.nextDouble(), 4) * DOCS); // skewed: a few hot documents
                                var id = JSON.parse(Integer.toString(k), "id");
                                if (r.nextBoolean()) {
                                    assertThat(node.get(NS, id, ReadMode.SINGLE)).isPresent();
                                } else {
                                    assertThat(node.write(new WriteOp.UpdateOne(NS, id, inc, WriteOp.WriteMode.UPDATE,
                                            Optional.empty())).outcome()).isEqualTo(Outcome.UPDATED);
                                    acknowledged.incrementAndGet(k);
                                }
                            }
                            return null;
                        }));
                    }
                }
                for (Future<?> c : clients) {
                    c.get();
                }
            }
            long total = 0;
            for (int k = 0; k < DOCS; k++) {
                var stored = JSON.parse(nodes.get(1).get(NS, JSON.parse(Integer.toString(k), "id"), ReadMode.SINGLE)
                        .orElseThrow().json(), "doc");
                assertThat(stored.get("n").asLong()).as("increments of document " + k).isEqualTo(acknowledged.get(k));
                total += acknowledged.get(k);
            }
            assertThat(total).isGreaterThan(NODES * CLIENTS_PER_NODE * OPS_PER_CLIENT / 3);
            for (int i = 0; i < NODES; i++) {
                PostgresStore node = nodes.get(i);
                assertThat(node.failedGroupBursts())
                        .as("node %d: failed bursts of %d groups; last: %s", i, node.groupCommits(), node.lastGroupBurstFailure())
                        .isLessThanOrEqualTo(node.groupCommits() / 10 + 5);
            }
        } finally {
            nodes.forEach(PostgresStore::close);
            PgTesting.dropSchema(schema);
        }
    }
}
