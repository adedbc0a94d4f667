package dev.weft.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Settings;
import dev.weft.query.IndexField;
import dev.weft.store.IndexSpec;
import dev.weft.store.Store;
import dev.weft.store.StoreContract;
import dev.weft.store.WriteResult.Outcome;
import dev.weft.store.plan.QueryPlanner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store contract on the embedded SQLite store (a temporary data directory per store), and what only it has. */
class SqliteStoreContractTest extends StoreContract {
    @TempDir
    Path dir;

    private Path data;

    @Override
    protected Store open(String... args) {
        try {
            data = Files.createTempDirectory(dir, "data");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new SqliteStore(settings(data, args), JSON);
    }

    private static Settings settings(Path data, String... more) {
        List<String> args = new ArrayList<>(List.of("--data", data.toString(), "--sqlite-readers", "3"));
        args.addAll(List.of(more));
        return Settings.parse(args.toArray(String[]::new), Map.of());
    }

    @Override
    protected long splitScans() {
        return ((SqliteStore) store).splitScans();
    }

    @Override
    protected QueryPlanner.Plan<?> lastPlan() {
        return ((SqliteStore) store).lastPlan();
    }

    @Test
    void dataAndIndexesSurviveReopening() {
        store.createIndex(ns, new IndexSpec("u", List.of(new IndexField("u", 1)), true));
        insert("{\"_id\":1, \"u\":[1,2]}");
        insert("{\"_id\":2, \"u\":3}");
        store.close();
        store = new SqliteStore(settings(data), JSON);
        assertThat(store.databases()).containsExactly(db);
        assertThat(store.indexes(ns)).extracting(IndexSpec::name).containsExactly("_id_", "u");
        assertThat(get("1").get("u").size()).isEqualTo(2);
        assertThat(insert("{\"_id\":3, \"u\":2}").outcome()).isEqualTo(Outcome.CONFLICT);
        assertThat(ids(query("{\"u\":2}", null, 0, 10))).containsExactly("1");
        // the multikey flag was stored: the index's order is not trusted for a sort
        assertThat(ids(query(null, "{\"u\":-1}", 0, 10))).containsExactly("2", "1");
    }

    /** Here versions move only with commits (one writer bumps them), so a refused write leaves them. */
    @Test
    void aRefusedWriteLeavesTheVersion() {
        insert("{\"_id\":1}");
        long v1 = store.version(ns);
        assertThat(insert("{\"_id\":1}").outcome()).isEqualTo(Outcome.CONFLICT);
        assertThat(store.version(ns)).isEqualTo(v1);
    }
}
