package dev.weft.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.Json;
import dev.weft.core.Settings;
import dev.weft.core.WeftException;
import dev.weft.store.ChangeEvent;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The schema version stamp ({@link PgSchema}): a new schema is stamped, a schema stamped newer
 * than this node is refused before anything in it changes, an unstamped schema of an earlier
 * layout is converted and stamped, and a writer of an earlier version cannot log an event once
 * the schema is converted (nor slip one past the conversion).
 */
class PgSchemaTest {
    private static final Namespace NS = new Namespace("sv", "docs");
    private static final Json JSON = Json.standard();
    private static final String NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";
    /** The event insert of the Weft before the stamp (schema version 2): no version column. */
    private static final String VERSION_2_APPEND = "WITH e AS (INSERT INTO weft_events(at, db, coll, op, key, doc)"
            + " VALUES (" + NOW_MS + ", 'sv', 'docs', 0, '\\x226122'::bytea, '\\x7b7d'::bytea) RETURNING id)"
            + " INSERT INTO weft_event_pending(id) SELECT id FROM e";
    /** The event insert of the Weft before 2026-11-27 (schema version 1): the sequencer numbered the row later. */
    private static final String VERSION_1_APPEND = "INSERT INTO weft_events(at, db, coll, op, key, doc)"
            + " VALUES (" + NOW_MS + ", 'sv', 'docs', 0, '\\x226f6c6422'::bytea, '\\x7b7d'::bytea)";

    private String schema;

    @BeforeEach
    void fresh() {
        schema = PgTesting.freshSchema();
    }

    @AfterEach
    void drop() {
        PgTesting.dropSchema(schema);
    }

    @Test
    void aNewSchemaIsStampedWithThisVersionAndOpensAgainAsItIs() throws Exception {
        PgStores.open(schema).close();
        assertThat(PgTesting.number("SELECT version FROM " + schema + ".weft_schema")).isEqualTo(PgSchema.VERSION);
        assertThat(PgTesting.number("SELECT count(*) FROM " + schema + ".weft_schema WHERE weft = '" + PgSchema.weftVersion() + "'"))
                .isEqualTo(1);
        long stampedAt = PgTesting.number("SELECT (extract(epoch from upgraded_at) * 1e6)::bigint FROM " + schema + ".weft_schema");
        PostgresStore again = PgStores.open(schema);
        try {
            again.putDatabase(NS.db(), Json.NODES.objectNode(), Optional.empty());
            again.putCollection(NS, Json.NODES.objectNode(), Optional.empty());
            assertThat(again.write(new WriteOp.InsertMany(NS, List.of((tools.jackson.databind.node.ObjectNode) JSON.parse("{\"_id\":1}", "d"))))
                    .ok()).isTrue();
            waitFor(() -> again.eventLog().last() == 1);
            assertThat(again.eventLog().after(0, 10)).extracting(ChangeEvent::operation).containsExactly(ChangeEvent.Operation.INSERT);
        } finally {
            again.close();
        }
        assertThat(PgTesting.number("SELECT (extract(epoch from upgraded_at) * 1e6)::bigint FROM " + schema + ".weft_schema"))
                .as("the same version is not stamped again").isEqualTo(stampedAt);
    }

    @Test
    void aSchemaStampedNewerThanThisNodeIsRefusedNamingBothVersionsAndLeftAsItIs() {
        PgTesting.admin("CREATE TABLE " + schema + ".weft_schema(one boolean PRIMARY KEY DEFAULT true CHECK (one),"
                + " version integer NOT NULL, weft text NOT NULL, upgraded_at timestamptz NOT NULL DEFAULT now())");
        PgTesting.admin("INSERT INTO " + schema + ".weft_schema(version, weft) VALUES (" + (PgSchema.VERSION + 1) + ", '9.9.9')");
        assertThatThrownBy(() -> PgStores.open(schema)).isInstanceOfSatisfying(WeftException.class, e -> {
            assertThat(e.getMessage()).contains("schema version " + (PgSchema.VERSION + 1)).contains("Weft 9.9.9")
                    .contains("schema version " + PgSchema.VERSION).contains(PgSchema.weftVersion())
                    .contains("upgrade this node").contains(schema).doesNotContain("\n");
        });
        assertThat(PgTesting.number("SELECT count(*) FROM information_schema.tables WHERE table_schema = '" + schema
                + "' AND table_name LIKE 'weft_%'")).as("nothing created beside the stamp").isEqualTo(1);
        assertThat(PgTesting.number("SELECT version FROM " + schema + ".weft_schema")).isEqualTo(PgSchema.VERSION + 1);
    }

    @Test
    void anUnstampedSchemaOfTheLayoutBeforeTheStampIsStampedAndItsOldWritersFailLoudly() throws Exception {
        PgStores.open(schema).close();
        unstamp(schema); // what a node of version 2 left: the same tables, no stamp, no version column
        PgTesting.admin("SET search_path = " + schema + "; " + VERSION_2_APPEND); // such a node could log events
        PostgresStore upgraded = PgStores.open(schema);
        try {
            waitFor(() -> upgraded.eventLog().last() == 1);
            assertThat(PgTesting.number("SELECT version FROM " + schema + ".weft_schema")).isEqualTo(PgSchema.VERSION);
            assertThatThrownBy(() -> PgTesting.admin("SET search_path = " + schema + "; " + VERSION_2_APPEND))
                    .hasMessageContaining(PgSchema.EVENT_ROW_COLUMN).hasMessageContaining("not-null");
            assertThatThrownBy(() -> PgTesting.admin("SET search_path = " + schema + "; " + VERSION_2_APPEND.replace("at, db",
                    "at, " + PgSchema.EVENT_ROW_COLUMN + ", db").replace("VALUES (" + NOW_MS, "VALUES (" + NOW_MS + ", " + (PgSchema.VERSION - 1))))
                    .as("a writer that knows the column but writes another version").hasMessageContaining(PgSchema.EVENT_ROW_CHECK);
            assertThat(upgraded.eventLog().after(0, 10)).hasSize(1);
        } finally {
            upgraded.close();
        }
    }

    /**
     * Rows carrying whole documents stay in their table's pages ({@link PgSchema#WIDE_ROWS}): a
     * document of 3 KB of text that does not compress, replaced by another, and the events of both
     * writes (the second with the document before and after, over 6 KB) leave nothing in the
     * TOAST tables, where PostgreSQL's default puts any row over about 2 KB.
     */
    @Test
    void documentsAndTheirEventsOfANewSchemaStayInTheirRows() throws Exception {
        PostgresStore store = PgStores.open(schema);
        try {
            store.putDatabase(NS.db(), Json.NODES.objectNode(), Optional.empty());
            store.putCollection(NS, Json.NODES.objectNode(), Optional.empty());
            assertThat(store.write(new WriteOp.InsertMany(NS, List.of(bigDocument(1)))).ok()).isTrue();
            assertThat(store.write(new WriteOp.Replace(NS, bigDocument(1), WriteOp.WriteMode.UPDATE, Optional.empty())).ok()).isTrue();
            waitFor(() -> store.eventLog().last() == 2);
            assertThat(store.eventLog().after(1, 10).getFirst().previousDocument()).hasSizeGreaterThan(3000);
        } finally {
            store.close();
        }
        assertThat(toastRows(documentTable())).isZero();
        assertThat(toastRows("weft_events")).isZero();
    }

    /**
     * A schema of version 3 (documents of over 2 KB moved out of their rows) is converted: its
     * document tables and event rows take {@link PgSchema#WIDE_ROWS}, a document written before
     * reads back as it was, its next write leaves its row in the table's pages, and a writer of
     * version 3 can no longer log an event.
     */
    @Test
    void aSchemaOfVersion3IsConvertedSoItsDocumentsNextWritesStayInTheirRows() throws Exception {
        tools.jackson.databind.node.ObjectNode before = bigDocument(1);
        PostgresStore store = PgStores.open(schema);
        try {
            store.putDatabase(NS.db(), Json.NODES.objectNode(), Optional.empty());
            store.putCollection(NS, Json.NODES.objectNode(), Optional.empty());
            assertThat(store.write(new WriteOp.InsertMany(NS, List.of(before))).ok()).isTrue();
        } finally {
            store.close();
        }
        String table = documentTable();
        // what a node of version 3 left: default storage, its stamp and its event rows' check
        PgTesting.admin("ALTER TABLE " + schema + "." + table + " RESET (toast_tuple_target, fillfactor)");
        PgTesting.admin("ALTER TABLE " + schema + ".weft_events RESET (toast_tuple_target)");
        PgTesting.admin("UPDATE " + schema + ".weft_schema SET version = 3");
        PgTesting.admin("ALTER TABLE " + schema + ".weft_events DROP CONSTRAINT " + PgSchema.EVENT_ROW_CHECK + ", ADD CONSTRAINT "
                + PgSchema.EVENT_ROW_CHECK + " CHECK (" + PgSchema.EVENT_ROW_COLUMN + " = 3) NOT VALID");
        // the document's row as a node of version 3 writes it (the same bytes)
        PgTesting.admin("UPDATE " + schema + "." + table + " SET body = substring(body from 1)");
        assertThat(toastRows(table)).as("version 3 moved the document out of its row").isPositive();

        PostgresStore upgraded = PgStores.open(schema);
        try {
            assertThat(PgTesting.number("SELECT version FROM " + schema + ".weft_schema")).isEqualTo(PgSchema.VERSION);
            assertThat(JSON.parse(upgraded.get(NS, JSON.parse("1", "id"), dev.weft.core.ReadMode.SINGLE).orElseThrow().json(), "doc"))
                    .isEqualTo(before);
            assertThat(upgraded.write(new WriteOp.Replace(NS, bigDocument(1), WriteOp.WriteMode.UPDATE, Optional.empty())).ok()).isTrue();
            waitFor(() -> upgraded.eventLog().last() == 2);
            assertThat(upgraded.eventLog().after(1, 10).getFirst().previousDocument()).hasSizeGreaterThan(3000);
        } finally {
            upgraded.close();
        }
        assertThat(PgTesting.number("SELECT count(*) FROM pg_class WHERE oid = '" + schema + "." + table + "'::regclass"
                + " AND reloptions @> '{toast_tuple_target=8160,fillfactor=90}'")).as(table).isEqualTo(1);
        assertThat(PgTesting.number("SELECT count(*) FROM pg_class WHERE oid = '" + schema + ".weft_events'::regclass"
                + " AND reloptions = '{toast_tuple_target=8160}'")).as("weft_events").isEqualTo(1);
        assertThat(toastRows(table)).as("the document's new row is in the table's pages").isZero();
        assertThat(toastRows("weft_events")).isZero();
        assertThatThrownBy(() -> PgTesting.admin("SET search_path = " + schema + "; " + VERSION_2_APPEND.replace("at, db",
                "at, " + PgSchema.EVENT_ROW_COLUMN + ", db").replace("VALUES (" + NOW_MS, "VALUES (" + NOW_MS + ", 3")))
                .as("a writer of version 3").hasMessageContaining(PgSchema.EVENT_ROW_CHECK);
    }

    /**
     * A schema of version 4 (each document also held as {@code jsonb} in column {@code doc}) is
     * converted: the column is dropped from every document table, the documents written before
     * read back as they were and can be replaced, new documents and new collections have one
     * copy only, and a node of version 4 can neither write a document nor log an event.
     */
    @Test
    void aSchemaOfVersion4LosesItsJsonbCopiesAndKeepsEveryDocument() throws Exception {
        tools.jackson.databind.node.ObjectNode first = (tools.jackson.databind.node.ObjectNode) JSON.parse(
                "{\"_id\":1,\"b\":2,\"a\":[1,\"x\",{\"c\":null}]}", "d");
        tools.jackson.databind.node.ObjectNode second = bigDocument(2);
        PostgresStore store = PgStores.open(schema);
        try {
            store.putDatabase(NS.db(), Json.NODES.objectNode(), Optional.empty());
            store.putCollection(NS, Json.NODES.objectNode(), Optional.empty());
            assertThat(store.write(new WriteOp.InsertMany(NS, List.of(first, second))).ok()).isTrue();
        } finally {
            store.close();
        }
        String table = documentTable();
        // what a node of version 4 left: the jsonb copy of each document, its stamp and its event rows' check
        PgTesting.admin("ALTER TABLE " + schema + "." + table + " ADD COLUMN doc jsonb");
        PgTesting.admin("UPDATE " + schema + "." + table + " SET doc = convert_from(body, 'UTF8')::jsonb");
        PgTesting.admin("ALTER TABLE " + schema + "." + table + " ALTER COLUMN doc SET NOT NULL");
        PgTesting.admin("UPDATE " + schema + ".weft_schema SET version = 4");
        PgTesting.admin("ALTER TABLE " + schema + ".weft_events DROP CONSTRAINT " + PgSchema.EVENT_ROW_CHECK + ", ADD CONSTRAINT "
                + PgSchema.EVENT_ROW_CHECK + " CHECK (" + PgSchema.EVENT_ROW_COLUMN + " = 4) NOT VALID");
        String version4Update = "UPDATE " + schema + "." + table + " SET body = body, doc = convert_from(body, 'UTF8')::jsonb";
        PgTesting.admin(version4Update); // such a node could write its documents

        NamespaceAndStore upgraded = new NamespaceAndStore(PgStores.open(schema));
        try {
            assertThat(PgTesting.number("SELECT version FROM " + schema + ".weft_schema")).isEqualTo(PgSchema.VERSION);
            assertThat(columns(table)).isEqualTo("id,body");
            assertThat(upgraded.read(1)).isEqualTo(first);
            assertThat(upgraded.read(2)).isEqualTo(second);
            tools.jackson.databind.node.ObjectNode replaced = bigDocument(2);
            assertThat(upgraded.store().write(new WriteOp.Replace(NS, replaced, WriteOp.WriteMode.UPDATE, Optional.empty())).ok())
                    .isTrue();
            tools.jackson.databind.node.ObjectNode third = (tools.jackson.databind.node.ObjectNode) JSON.parse("{\"_id\":3}", "d");
            assertThat(upgraded.store().write(new WriteOp.InsertMany(NS, List.of(third))).ok()).isTrue();
            assertThat(upgraded.read(2)).isEqualTo(replaced);
            assertThat(upgraded.read(3)).isEqualTo(third);
            waitFor(() -> upgraded.store().eventLog().last() == 4);
            assertThat(upgraded.store().eventLog().after(0, 10)).extracting(ChangeEvent::operation).containsExactly(
                    ChangeEvent.Operation.INSERT, ChangeEvent.Operation.INSERT, ChangeEvent.Operation.REPLACE, ChangeEvent.Operation.INSERT);
            Namespace other = new Namespace(NS.db(), "other");
            upgraded.store().putCollection(other, Json.NODES.objectNode(), Optional.empty());
            assertThat(columns("d" + PgTesting.number("SELECT id FROM " + schema + ".weft_colls WHERE name = 'other'")))
                    .as("a new collection's table").isEqualTo("id,body");
        } finally {
            upgraded.store().close();
        }
        assertThat(PgTesting.number("SELECT count(*) FROM pg_class WHERE oid = '" + schema + "." + table + "'::regclass"
                + " AND reloptions @> '{autovacuum_analyze_scale_factor=1}'")).as("analysed after a table's worth of changes").isEqualTo(1);
        assertThatThrownBy(() -> PgTesting.admin(version4Update)).as("a document write of version 4").hasMessageContaining("doc");
        assertThatThrownBy(() -> PgTesting.admin("SET search_path = " + schema + "; " + VERSION_2_APPEND.replace("at, db",
                "at, " + PgSchema.EVENT_ROW_COLUMN + ", db").replace("VALUES (" + NOW_MS, "VALUES (" + NOW_MS + ", 4")))
                .as("an event of version 4").hasMessageContaining(PgSchema.EVENT_ROW_CHECK);
    }

    /** A store and reads of the test collection's documents by {@code _id}. */
    private record NamespaceAndStore(PostgresStore store) {
        tools.jackson.databind.node.ObjectNode read(int id) {
            return (tools.jackson.databind.node.ObjectNode) JSON.parse(
                    store.get(NS, JSON.parse(Integer.toString(id), "id"), dev.weft.core.ReadMode.SINGLE).orElseThrow().json(), "doc");
        }
    }

    /** The live columns of {@code table}, in order, comma-separated. */
    private String columns(String table) {
        long count = PgTesting.number("SELECT count(*) FROM pg_attribute WHERE attrelid = '" + schema + "." + table
                + "'::regclass AND attnum > 0 AND NOT attisdropped");
        StringBuilder out = new StringBuilder();
        for (long n = 1; n <= count; n++) {
            boolean id = PgTesting.number(liveColumn(table, n) + " AND attname = 'id'") == 1;
            boolean body = PgTesting.number(liveColumn(table, n) + " AND attname = 'body'") == 1;
            out.append(n > 1 ? "," : "").append(id ? "id" : body ? "body" : "other");
        }
        return out.toString();
    }

    /** Whether the {@code n}th live column of {@code table} passes the conditions appended (1 or 0). */
    private String liveColumn(String table, long n) {
        return "SELECT count(*) FROM (SELECT attname, row_number() OVER (ORDER BY attnum) AS n FROM pg_attribute WHERE attrelid = '"
                + schema + "." + table + "'::regclass AND attnum > 0 AND NOT attisdropped) c WHERE n = " + n;
    }

    /** A document of about 3 KB of random letters and digits (text pglz cannot shrink by a quarter). */
    private static tools.jackson.databind.node.ObjectNode bigDocument(int id) {
        java.util.Random random = new java.util.Random();
        StringBuilder text = new StringBuilder();
        String chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        for (int i = 0; i < 3000; i++) {
            text.append(chars.charAt(random.nextInt(chars.length())));
        }
        return (tools.jackson.databind.node.ObjectNode) JSON.parse("{\"_id\":" + id + ",\"text\":\"" + text + "\"}", "d");
    }

    /** The document table of the one collection of the schema. */
    private String documentTable() {
        return "d" + PgTesting.number("SELECT id FROM " + schema + ".weft_colls");
    }

    /** The live rows of {@code table}'s TOAST table (PostgreSQL names it after the table's oid). */
    private long toastRows(String table) {
        long oid = PgTesting.number("SELECT '" + schema + "." + table + "'::regclass::oid");
        return PgTesting.number("SELECT count(*) FROM pg_toast.pg_toast_" + oid);
    }

    /** A running node whose schema a newer Weft converts since: its writes are refused, saying why. */
    @Test
    void aNodeRunningWhenANewerWeftConvertsTheSchemaHasItsWritesRefusedSayingWhy() {
        PostgresStore node = PgStores.open(schema);
        try {
            node.putDatabase(NS.db(), Json.NODES.objectNode(), Optional.empty());
            node.putCollection(NS, Json.NODES.objectNode(), Optional.empty());
            // what a newer Weft's conversion does when its writers write differently
            PgTesting.admin("ALTER TABLE " + schema + ".weft_events DROP CONSTRAINT " + PgSchema.EVENT_ROW_CHECK + ", ADD CONSTRAINT "
                    + PgSchema.EVENT_ROW_CHECK + " CHECK (" + PgSchema.EVENT_ROW_COLUMN + " = " + (PgSchema.VERSION + 1) + ") NOT VALID");
            WriteOp insert = new WriteOp.InsertMany(NS, List.of((tools.jackson.databind.node.ObjectNode) JSON.parse("{\"_id\":1}", "d")));
            assertThatThrownBy(() -> node.write(insert)).isInstanceOfSatisfying(WeftException.class, e -> {
                assertThat(e.status()).isEqualTo(503);
                assertThat(e.getMessage()).isEqualTo(PgSchema.OLDER_NODE);
            });
            assertThat(node.get(NS, JSON.parse("1", "id"), dev.weft.core.ReadMode.SINGLE)).isEmpty();
        } finally {
            node.close();
        }
    }

    /**
     * A node of version 1 still writing while a new node converts: its write in flight holds the
     * conversion back until it commits, and its event is converted and numbered with the rest;
     * its next write fails.
     */
    @Test
    void aWriteInFlightOnAnOldNodeIsWaitedForAndConvertedTheNextOneFails() throws Exception {
        createVersion1Log(schema);
        Settings settings = Settings.parse(new String[] {"--store", PgTesting.url(schema)}, Map.of());
        try (Connection old = PgConnections.connect(PgUrl.parse(settings.store()), settings); Statement s = old.createStatement()) {
            old.setAutoCommit(false);
            s.execute(VERSION_1_APPEND);
            CompletableFuture<PostgresStore> opening = CompletableFuture.supplyAsync(() -> PgStores.open(schema));
            waitFor(() -> PgTesting.number("SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
                    + " WHERE c.relname = 'weft_events' AND l.mode = 'AccessExclusiveLock' AND NOT l.granted") == 1);
            old.commit();
            PostgresStore upgraded = opening.get();
            try {
                waitFor(() -> upgraded.eventLog().last() == 1);
                assertThat(upgraded.eventLog().after(0, 10)).extracting(e -> e.documentKey().asString()).containsExactly("old");
                assertThatThrownBy(() -> {
                    s.execute(VERSION_1_APPEND);
                    old.commit();
                }).isInstanceOf(SQLException.class).hasMessageContaining(PgSchema.EVENT_ROW_COLUMN);
                old.rollback();
            } finally {
                upgraded.close();
            }
        }
    }

    /** Drops what the stamp added, leaving the layout of version 2. */
    private static void unstamp(String schema) {
        PgTesting.admin("DROP TABLE " + schema + ".weft_schema");
        PgTesting.admin("ALTER TABLE " + schema + ".weft_events DROP COLUMN " + PgSchema.EVENT_ROW_COLUMN);
    }

    /** The event log of version 1 (the seq in the event row), empty. */
    static void createVersion1Log(String schema) {
        PgTesting.admin("CREATE TABLE " + schema + ".weft_events(id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
                + " seq bigint UNIQUE, at bigint NOT NULL, db text NOT NULL, coll text NOT NULL, op smallint NOT NULL,"
                + " key bytea NOT NULL, doc bytea, pre bytea, upd bytea)");
        PgTesting.admin("CREATE TABLE " + schema + ".weft_event_log(name text PRIMARY KEY, value bigint NOT NULL)");
        PgTesting.admin("INSERT INTO " + schema + ".weft_event_log VALUES ('seq', 0), ('floor', 0)");
    }

    private static void waitFor(BooleanSupplier condition) throws InterruptedException {
        for (int i = 0; i < 1000 && !condition.getAsBoolean(); i++) {
            Thread.sleep(10);
        }
        assertThat(condition.getAsBoolean()).isTrue();
    }
}
