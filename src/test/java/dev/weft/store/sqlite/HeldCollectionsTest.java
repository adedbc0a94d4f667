package dev.weft.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.store.Catalog;
import dev.weft.store.Namespace;
import dev.weft.store.sql.SqlConnection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * What a find's ask for a collection's rows costs the writer: a collection found too large is read
 * again at most once per {@link HeldCollections#RETRY_NANOS} over all such collections, so many
 * large collections queried with literals cannot keep the writer reading them.
 */
class HeldCollectionsTest {
    private static final long RETRY = HeldCollections.RETRY_NANOS;

    private final AtomicLong clock = new AtomicLong(1_000);
    private final List<String> reads = new ArrayList<>();
    private final HeldCollections held = new HeldCollections(1_000, c -> reads.add(c.ns().coll()), clock::get);

    private static Catalog.Coll coll(String name, long id) {
        return new Catalog.Coll(new Namespace("db", name), id, new byte[0], "e", List.of());
    }

    @Test
    void aCollectionIsAskedForOnceUntilItsReadIsDone() {
        Catalog.Coll a = coll("a", 1);
        held.rows(a);
        held.rows(a);
        clock.addAndGet(RETRY / 2);
        held.rows(a);
        assertThat(reads).containsExactly("a");
    }

    @Test
    void collectionsFoundTooLargeAreReadAgainOneAtATimeOverAll() {
        Catalog.Coll a = coll("a", 1);
        Catalog.Coll b = coll("b", 2);
        held.rows(a);
        held.rows(b);
        held.refuse(a.ns(), a.table());
        held.refuse(b.ns(), b.table());
        assertThat(reads).containsExactly("a", "b");

        clock.addAndGet(RETRY + 1);
        held.rows(a);
        held.rows(b);
        assertThat(reads).containsExactly("a", "b", "a"); // b waits for the next interval
        held.refuse(a.ns(), a.table());

        clock.addAndGet(RETRY + 1);
        held.rows(b);
        held.rows(a);
        assertThat(reads).containsExactly("a", "b", "a", "b");
    }

    @Test
    void aNewTableOfARefusedNamespaceIsReadAfresh() {
        Catalog.Coll old = coll("a", 1);
        held.rows(old);
        held.refuse(old.ns(), old.table());
        held.forgetAll(); // the catalog changed: the collection was dropped and made again
        held.rows(coll("a", 7));
        assertThat(reads).containsExactly("a", "a");
    }

    /**
     * A table found too large is sized from its rows' lengths before it is read again: while it
     * is still too large it stays refused, and once it fits (here: rows deleted) it is held whole.
     */
    @Test
    void aTableFoundTooLargeIsHeldOnceItFits() throws SQLException {
        Catalog.Coll a = coll("a", 1);
        try (SqlConnection sql = new SqlConnection(DriverManager.getConnection("jdbc:sqlite::memory:"))) {
            sql.connection().createStatement().execute("CREATE TABLE " + a.table() + "(id BLOB PRIMARY KEY, body BLOB NOT NULL) WITHOUT ROWID");
            // each row counts 1 + 250 + ROW_OVERHEAD (208) bytes of the bound of 1,000: two fit, three do not
            insert(sql, a.table(), 1, 2, 3);
            held.read(sql, a);
            assertThat(held.held()).isEmpty();

            held.read(sql, a); // asked again: sized, still too large
            assertThat(held.held()).isEmpty();

            sql.connection().createStatement().execute("DELETE FROM " + a.table() + " WHERE id = x'02'");
            held.read(sql, a);
            assertThat(held.held()).containsExactly(a.ns());
            assertThat(held.rows(a).orElseThrow().size()).isEqualTo(2);
            assertThat(held.rows(a).orElseThrow().bodies()[1]).hasSize(250).startsWith("{\"_id\":3");
        }
    }

    private static void insert(SqlConnection sql, String table, int... ids) throws SQLException {
        PreparedStatement ps = sql.connection().prepareStatement("INSERT INTO " + table + " VALUES (?, ?)");
        for (int id : ids) {
            String body = "{\"_id\":" + id + ",\"s\":\"";
            body += "x".repeat(250 - body.length() - 2) + "\"}";
            ps.setBytes(1, new byte[] {(byte) id});
            ps.setBytes(2, body.getBytes());
            ps.executeUpdate();
        }
    }
}
