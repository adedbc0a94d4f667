package dev.weft.store.sqlite;

import dev.weft.query.DocumentHead;
import dev.weft.query.KeyRange;
import dev.weft.store.plan.TextPrefilter;
import dev.weft.store.sql.ByteRows;
import dev.weft.store.sql.Dialect;
import dev.weft.store.sql.SqlConnection;
import dev.weft.store.sql.TextPostings;
import dev.weft.store.sql.TrigramPostings;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * SQLite's side of the {@link Dialect}: BLOB keys in {@code WITHOUT ROWID} tables (the table is
 * its primary key's B-tree, so a scan by _id or by key reads one tree), one writer (unique keys
 * checked by the engine before each insert, no row locks), single-row statements (a prepared
 * statement step costs about a row; there is no round trip to save), key ranges as a
 * {@code VALUES} list.
 */
final class SqliteDialect implements Dialect {
    /** SQLite's limit of host parameters is 32766: two per range, with room to spare. */
    private static final int MAX_RANGES_IN_ONE_STATEMENT = 5000;

    @Override
    public String createDocumentTable(String table) {
        return "CREATE TABLE " + table + "(id BLOB PRIMARY KEY, body BLOB NOT NULL, head BLOB, rest INTEGER) WITHOUT ROWID";
    }

    @Override
    public String createIndexTable(String table) {
        return "CREATE TABLE " + table + "(key BLOB NOT NULL, id BLOB NOT NULL, PRIMARY KEY(key, id)) WITHOUT ROWID";
    }

    private final PendingPostings pending = new PendingPostings();
    /** {@code document-head-bytes}: the budget of each document's head (0: no heads are written). */
    private final int headBytes;
    private final Fts5Trigrams trigrams;
    private final Optional<TextPostings> text;
    /** Every connection has {@link NativeRanking}'s functions: decides the sort cut, the native ranking and the prefilter. */
    private final boolean nativeLibrary;

    /**
     * {@code trigramPendingRows}, {@code textPendingRows}: {@code trigram-pending-rows} and
     * {@code text-pending-rows} (the pending documents are a store's own); {@code nativeLibrary}: every
     * connection of the store has {@link NativeRanking}'s {@code weft_top}, {@code weft_sort_keep} and {@code weft_contains}.
     */
    SqliteDialect(int trigramPendingRows, int textPendingRows, int headBytes, boolean nativeLibrary) {
        this.headBytes = headBytes;
        this.nativeLibrary = nativeLibrary;
        trigrams = new Fts5Trigrams(trigramPendingRows, pending);
        text = Optional.of(new Fts5Postings(textPendingRows, pending, nativeLibrary));
    }

    @Override
    public boolean sortKeep() {
        return nativeLibrary;
    }

    /** The FTS5 indexes' pending documents, which the writer puts into FTS5 when idle or when a query asks. */
    PendingPostings pending() {
        return pending;
    }

    @Override
    public Optional<TrigramPostings> trigramPostings() {
        return Optional.of(trigrams);
    }

    @Override
    public Optional<TextPostings> textPostings() {
        return text;
    }

    @Override
    public Optional<String> uniqueKeyConstraint(String indexTable) {
        return Optional.empty();
    }

    @Override
    public boolean severalWriters() {
        return false;
    }

    @Override
    public String rangeTable(int count) {
        StringBuilder values = new StringBuilder("(VALUES ");
        for (int i = 0; i < count; i++) {
            values.append(i == 0 ? "(?, ?)" : ", (?, ?)");
        }
        return values.append(") r").toString();
    }

    @Override
    public int bindRanges(SqlConnection sql, PreparedStatement ps, int first, List<KeyRange> ranges) throws SQLException {
        int p = first;
        for (KeyRange r : ranges) {
            ps.setBytes(p++, r.low());
            ps.setBytes(p++, r.high());
        }
        return p;
    }

    /** {@code (? + 0)}: SQLite prepares a statement anew at each run whose LIMIT or OFFSET is a bare bound parameter. */
    @Override
    public String boundCount() {
        return BOUND_COUNT_IN_EXPRESSION;
    }

    @Override
    public TextPrefilter.Dialect textPrefilter() {
        return nativeLibrary ? TextPrefilter.Dialect.SQLITE_NATIVE : TextPrefilter.Dialect.SQLITE;
    }

    @Override
    public int maxRangesInOneStatement() {
        return MAX_RANGES_IN_ONE_STATEMENT;
    }

    @Override
    public int fetchRows() {
        return 0;
    }

    @Override
    public ByteRows byteRows(PreparedStatement ps, ResultSet rs) throws SQLException {
        return SteppedRows.of(ps, rs);
    }

    @Override
    public int insertDocuments(SqlConnection sql, String table, List<byte[]> ids, List<byte[]> bodies) throws SQLException {
        PreparedStatement ps = sql.prepare("INSERT OR IGNORE INTO " + table + "(id, body, head, rest) VALUES (?, ?, ?, ?)");
        int inserted = 0;
        for (int i = 0; i < ids.size(); i++) {
            ps.setBytes(1, ids.get(i));
            ps.setBytes(2, bodies.get(i));
            bindHead(ps, 3, bodies.get(i));
            inserted += ps.executeUpdate();
        }
        return inserted;
    }

    @Override
    public void updateDocument(SqlConnection sql, String table, byte[] id, byte[] body) throws SQLException {
        PreparedStatement ps = sql.prepare("UPDATE " + table + " SET body = ?, head = ?, rest = ? WHERE id = ?");
        ps.setBytes(1, body);
        bindHead(ps, 2, body);
        ps.setBytes(4, id);
        ps.executeUpdate();
    }

    /** The head of {@code body} and its names-not-held bits at {@code p} and {@code p + 1} (NULL, NULL: read the body). */
    private void bindHead(PreparedStatement ps, int p, byte[] body) throws SQLException {
        DocumentHead.Parts head = DocumentHead.stored(body, headBytes);
        ps.setBytes(p, head.head());
        if (head.head() == null) {
            ps.setNull(p + 1, java.sql.Types.INTEGER);
        } else {
            ps.setLong(p + 1, head.rest());
        }
    }

    @Override
    public boolean documentHeads() {
        return true;
    }

    @Override
    public String scanned(String alias, long names) {
        return "CASE WHEN " + alias + "head IS NULL OR " + alias + "rest & " + names + " <> 0 THEN " + alias + "body ELSE "
                + alias + "head END";
    }

    /**
     * Gives the document tables of a data directory written before heads their {@code head} and
     * {@code rest} columns, NULL in every existing row (read from the body until the row is next
     * written). {@code ALTER TABLE ... ADD COLUMN} only changes the schema: no row is rewritten.
     */
    static void addHeadColumns(SqlConnection sql) throws SQLException {
        List<String> tables = new java.util.ArrayList<>();
        try (var rs = sql.prepare("SELECT s.name FROM sqlite_schema s WHERE s.type = 'table' AND s.name GLOB 'd[0-9]*'"
                + " AND NOT EXISTS (SELECT 1 FROM pragma_table_info(s.name) p WHERE p.name = 'head')").executeQuery()) {
            while (rs.next()) {
                tables.add(rs.getString(1));
            }
        }
        for (String table : tables) {
            sql.exec("ALTER TABLE " + table + " ADD COLUMN head BLOB");
            sql.exec("ALTER TABLE " + table + " ADD COLUMN rest INTEGER");
        }
    }

    @Override
    public void insertKeys(SqlConnection sql, String table, List<byte[]> keys, List<byte[]> ids) throws SQLException {
        int i = 0;
        if (keys.size() >= ROWS_PER_INSERT) {
            PreparedStatement many = sql.prepare("INSERT OR IGNORE INTO " + table + "(key, id) VALUES (?, ?)"
                    + ", (?, ?)".repeat(ROWS_PER_INSERT - 1));
            for (; i + ROWS_PER_INSERT <= keys.size(); i += ROWS_PER_INSERT) {
                for (int k = 0; k < ROWS_PER_INSERT; k++) {
                    many.setBytes(2 * k + 1, keys.get(i + k));
                    many.setBytes(2 * k + 2, ids.get(i + k));
                }
                many.executeUpdate();
            }
        }
        PreparedStatement ps = sql.prepare("INSERT OR IGNORE INTO " + table + "(key, id) VALUES (?, ?)");
        for (; i < keys.size(); i++) {
            ps.setBytes(1, keys.get(i));
            ps.setBytes(2, ids.get(i));
            ps.executeUpdate();
        }
    }

    /**
     * Rows of one multi-row INSERT of index keys: a trigram or text index adds tens to hundreds of
     * keys per document, and one statement per row is mostly the cost of crossing into SQLite.
     */
    private static final int ROWS_PER_INSERT = 32;

    @Override
    public void deleteKeys(SqlConnection sql, String table, byte[] id, Collection<byte[]> keys) throws SQLException {
        PreparedStatement ps = sql.prepare("DELETE FROM " + table + " WHERE key = ? AND id = ?");
        for (byte[] k : keys) {
            ps.setBytes(1, k);
            ps.setBytes(2, id);
            ps.executeUpdate();
        }
    }

    @Override
    public String upsertDatabase() {
        return "INSERT OR REPLACE INTO weft_dbs(name, props, etag) VALUES (?, ?, ?)";
    }

    @Override
    public long insertReturningId(SqlConnection sql, String insert, Object... args) throws SQLException {
        PreparedStatement ps = sql.prepare(insert);
        for (int i = 0; i < args.length; i++) {
            ps.setObject(i + 1, args[i]);
        }
        ps.executeUpdate();
        try (ResultSet rs = sql.prepare("SELECT last_insert_rowid()").executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Override
    public boolean isUniqueViolation(SQLException e) {
        return e instanceof SQLiteException s && (s.getResultCode() == SQLiteErrorCode.SQLITE_CONSTRAINT_PRIMARYKEY
                || s.getResultCode() == SQLiteErrorCode.SQLITE_CONSTRAINT_UNIQUE);
    }

    @Override
    public boolean isMissingTable(SQLException e) {
        return String.valueOf(e.getMessage()).contains("no such table");
    }
}
