package dev.weft.store.postgres;

import dev.weft.core.WeftException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The version of Weft's tables in a PostgreSQL schema, stamped in the schema itself: table
 * {@code weft_schema}, one row (the layout {@code version}, the Weft version that last upgraded
 * it, and when), written in the store's schema transaction, under its advisory lock and together
 * with any conversion, so a stamp never names a layout the tables do not have.
 *
 * <p>Versions: 1, the event seq in the event row (before 2026-11-27); 2, the seq in narrow
 * {@code weft_event_seqs} rows; 3, as 2 with this stamp and every event row carrying the schema
 * version its writer wrote it for ({@link #EVENT_ROW_COLUMN}); 4, as 3 with the rows that carry
 * whole documents (document tables, {@code weft_events}) kept in their table's pages up to
 * {@link #WIDE_ROWS} (see {@link #keepWideRowsInline}); 5, as 4 with the document tables holding
 * a document once, as its bytes ({@link #dropDocumentCopies}). Versions 1 and 2 have no stamp.
 *
 * <p>Invariants: a node never opens a schema stamped newer than {@link #VERSION} (it refuses to
 * start, naming both versions); and once a schema is converted, a node of an older version
 * still running on it cannot log an event: the event rows' column {@link #EVENT_ROW_COLUMN} is
 * {@code NOT NULL} with no default and checked against the current version (constraint
 * {@link #EVENT_ROW_CHECK}), so an older writer's insert fails (the column unknown to it, or its
 * own version refused) and its write is rolled back, never acknowledged with an event no stream
 * will deliver. A conversion that does not change what writers write may keep the check as it is.
 */
final class PgSchema {
    /** The layout this Weft writes. */
    static final int VERSION = 5;
    /** The column of {@code weft_events} each writer fills with the version it writes for. */
    static final String EVENT_ROW_COLUMN = "schema_version";
    /** The check that refuses event rows of any other version than the current one. */
    static final String EVENT_ROW_CHECK = "weft_events_of_current_schema";

    /** What a write of this node is answered when a newer Weft has converted the schema since it opened. */
    static final String OLDER_NODE = "this Weft node is older than its PostgreSQL schema, which a newer Weft has upgraded"
            + " since this node started: upgrade this node";

    private PgSchema() {}

    /** Whether {@code e} is the event rows' check refusing this node's version (see {@link #guardEventRows}). */
    static boolean refusedAsOlder(SQLException e) {
        return "23514".equals(e.getSQLState()) && String.valueOf(e.getMessage()).contains(EVENT_ROW_CHECK);
    }

    /**
     * The stamped version of the schema {@code s} is on (0 when unstamped: new, or of version 1
     * or 2), read inside the schema transaction; a version newer than {@link #VERSION} is refused.
     *
     * @param where names the database in the refusal
     */
    static int check(Statement s, String where) throws SQLException {
        s.execute("CREATE TABLE IF NOT EXISTS weft_schema(one boolean PRIMARY KEY DEFAULT true CHECK (one),"
                + " version integer NOT NULL, weft text NOT NULL, upgraded_at timestamptz NOT NULL DEFAULT now())");
        try (ResultSet rs = s.executeQuery("SELECT version, weft FROM weft_schema")) {
            if (!rs.next()) {
                return 0;
            }
            int found = rs.getInt(1);
            if (found > VERSION) {
                throw tooNew(where, found, rs.getString(2));
            }
            return found;
        }
    }

    /** Stamps the schema with {@link #VERSION} and this Weft's version (in the schema transaction). */
    static void stamp(Statement s) throws SQLException {
        try (PreparedStatement ps = s.getConnection().prepareStatement("INSERT INTO weft_schema(version, weft) VALUES (?, ?)"
                + " ON CONFLICT (one) DO UPDATE SET version = excluded.version, weft = excluded.weft, upgraded_at = now()")) {
            ps.setInt(1, VERSION);
            ps.setString(2, weftVersion());
            ps.executeUpdate();
        }
    }

    /**
     * Makes the event rows refuse writers of any other version: adds {@link #EVENT_ROW_COLUMN}
     * to a table of an earlier version (the existing rows take the current version, without a
     * rewrite) and replaces {@link #EVENT_ROW_CHECK}, {@code NOT VALID} so the old rows are not
     * scanned. The caller holds the table's EXCLUSIVE lock.
     */
    static void guardEventRows(Statement s) throws SQLException {
        s.execute("ALTER TABLE weft_events ADD COLUMN IF NOT EXISTS " + EVENT_ROW_COLUMN + " smallint NOT NULL DEFAULT " + VERSION);
        s.execute("ALTER TABLE weft_events ALTER COLUMN " + EVENT_ROW_COLUMN + " DROP DEFAULT");
        s.execute("ALTER TABLE weft_events DROP CONSTRAINT IF EXISTS " + EVENT_ROW_CHECK);
        s.execute("ALTER TABLE weft_events ADD CONSTRAINT " + EVENT_ROW_CHECK + " CHECK (" + EVENT_ROW_COLUMN + " = " + VERSION
                + ") NOT VALID");
    }

    /**
     * The storage parameter of the tables whose rows carry whole documents (each document table,
     * {@code weft_events}): PostgreSQL keeps a row of up to 8,160 bytes in the table's own page as
     * it is. With the default (rows over about 2 KB are shrunk to it), a row of a 1 KB document
     * (its bytes and its {@code jsonb}; an event's document after and before) was first compressed
     * with pglz on every write and, as a document's text rarely compresses to a quarter less, then
     * moved out of line: a TOAST row and its index entry per column written, deleted again by the
     * next update, and one more index probe per read. Rows over the target are compressed and moved
     * out as before. Measured: decision record 0006, amendment "documents in their rows".
     */
    static final String WIDE_ROWS = "toast_tuple_target = 8160";
    /**
     * The storage parameters of a document table: {@link #WIDE_ROWS}, and pages filled to 90% by
     * inserts, so that an update can find room for the new row version in the old one's page and
     * PostgreSQL updates it there (a HOT update: no new entry in the primary key's index, and
     * reads by key do not walk index entries of dead versions). Measured with rows of 2.5 KB (a
     * 1 KB document and its {@code jsonb} copy, before version 5; decision record 0006, "documents
     * in their rows"): 99% of updates HOT in a probe, about 58% under YCSB A's hot keys. A row of
     * a 1 KB document is now about 1.1 KB: six to a page, and the 10% left is room for one new
     * version.
     *
     * <p>And (version 5) autovacuum analyses a document table after as many rows changed as it
     * holds ({@code autovacuum_analyze_scale_factor = 1}, against PostgreSQL's 10%): an analyse
     * samples 30,000 rows (0.3-0.5 s of CPU with the rows of version 4, decision record 0006),
     * and under YCSB A's 3,000-5,000 updates a second the default ran one every
     * two or three seconds. What the planner takes from a document table's statistics is its
     * size and the spread of its keys, and updates change neither; the table's size is also
     * kept by vacuum, and a growing table is still analysed each time it doubles.
     */
    static final String DOCUMENT_TABLE = WIDE_ROWS + ", fillfactor = 90, autovacuum_analyze_scale_factor = 1";

    /**
     * Sets {@link #WIDE_ROWS} on {@code weft_events} and {@link #DOCUMENT_TABLE} on every
     * collection's document table of a schema of an earlier version (in the schema transaction; it
     * takes no lock that holds writes back). Rows already written stay where they are until they
     * are written again.
     */
    static void keepWideRowsInline(Statement s) throws SQLException {
        s.execute("ALTER TABLE weft_events SET (" + WIDE_ROWS + ")");
        for (String table : documentTables(s)) {
            s.execute("ALTER TABLE " + table + " SET (" + DOCUMENT_TABLE + ")");
        }
    }

    /**
     * Drops the {@code doc jsonb} column of every collection's document table of a schema of an
     * earlier version (in the schema transaction, before the event rows are locked: see below).
     * Up to version 4 each row held its document twice, the served bytes and a {@code jsonb}
     * copy that no statement of Weft read (decision record 0002 kept it for ad-hoc SQL); every
     * insert and update had PostgreSQL parse the document into it, 12% of the group writer's
     * backend under YCSB workload A, and it more than doubled the row (decision record 0006,
     * amendment "one copy of a document"). Ad-hoc SQL reads a document as
     * {@code convert_from(body, 'UTF8')::jsonb}.
     *
     * <p>Dropping a column only marks it dropped (no rewrite); its bytes leave a row when the row
     * is next written. It takes each table's ACCESS EXCLUSIVE lock until the schema transaction
     * commits: a write in flight on a node of an earlier version holds that back until it
     * commits, and as such a write locks its document rows before its event rows, the document
     * tables are converted before {@code weft_events} is locked, so the two never wait for each
     * other. After the commit an older node's writes fail (the column is unknown, and its event
     * rows' version is refused).
     */
    static void dropDocumentCopies(Statement s) throws SQLException {
        for (String table : documentTables(s)) {
            s.execute("ALTER TABLE " + table + " DROP COLUMN IF EXISTS doc");
        }
    }

    private static List<String> documentTables(Statement s) throws SQLException {
        List<String> tables = new ArrayList<>();
        try (ResultSet rs = s.executeQuery("SELECT 'd' || id FROM weft_colls WHERE to_regclass('d' || id) IS NOT NULL ORDER BY id")) {
            while (rs.next()) {
                tables.add(rs.getString(1));
            }
        }
        return tables;
    }

    /** This Weft's version, from its jar's manifest ("development build" when run from classes). */
    static String weftVersion() {
        return Optional.ofNullable(PgSchema.class.getPackage().getImplementationVersion()).orElse("development build");
    }

    private static WeftException tooNew(String where, int found, String byWeft) {
        return new WeftException(503, "the PostgreSQL schema at " + where + " has Weft schema version " + found
                + " (upgraded by Weft " + byWeft + "), newer than this Weft (" + weftVersion() + ", schema version " + VERSION
                + ") understands: upgrade this node to Weft " + byWeft + " or later");
    }
}
