package dev.weft.store.postgres;

import dev.weft.core.Json;
import dev.weft.core.Settings;
import dev.weft.store.Namespace;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/** Opens PostgreSQL stores on a test schema (several on one schema are several Weft nodes). */
final class PgStores {
    private PgStores() {}

    static PostgresStore open(String schema, String... extraArgs) {
        String[] args = Stream.concat(Stream.of("--store", PgTesting.url(schema), "--pg-pool-size", "8"), Stream.of(extraArgs))
                .toArray(String[]::new);
        return new PostgresStore(Settings.parse(args, Map.of()), Json.standard());
    }

    /** Two nodes on a fresh schema holding the collection {@code ns}; closing drops the schema. */
    record Pair(String schema, PostgresStore a, PostgresStore b) implements AutoCloseable {
        @Override
        public void close() {
            a.close();
            b.close();
            PgTesting.dropSchema(schema);
        }
    }

    static Pair pair(Namespace ns) {
        String schema = PgTesting.freshSchema();
        Pair p = new Pair(schema, open(schema), open(schema));
        p.a().putDatabase(ns.db(), Json.NODES.objectNode(), Optional.empty());
        p.a().putCollection(ns, Json.NODES.objectNode(), Optional.empty());
        return p;
    }
}
