package dev.weft.store.postgres;

import dev.weft.query.KeyRange;
import dev.weft.store.plan.TextPrefilter;
import dev.weft.store.sql.Dialect;
import dev.weft.store.sql.SqlConnection;
import dev.weft.store.sql.TextPostings;
import dev.weft.store.sql.TrigramPostings;
import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * PostgreSQL's side of the {@link Dialect}: bytea keys (compared like memcmp), the document as the
 * exact bytes served ({@code body bytea}, nothing else: see {@link PgSchema#DOCUMENT_TABLE} for why
 * there is no {@code jsonb} copy), several writers (rows locked by the writes that read them; unique keys refused by a unique
 * index {@code i<id>_u} on the key, SQLSTATE 23505), and set-based statements: many rows or many
 * key ranges travel as two arrays in one statement ({@code unnest}), since every statement is a
 * round trip.
 */
final class PostgresDialect implements Dialect {
    private static final int FETCH_ROWS = 500;
    static final String UNIQUE_VIOLATION = "23505";
    static final String UNDEFINED_TABLE = "42P01";

    @Override
    public String createDocumentTable(String table) {
        return "CREATE TABLE " + table + "(id bytea PRIMARY KEY, body bytea NOT NULL) WITH (" + PgSchema.DOCUMENT_TABLE + ")";
    }

    @Override
    public String createIndexTable(String table) {
        return "CREATE TABLE " + table + "(key bytea NOT NULL, id bytea NOT NULL, PRIMARY KEY(key, id))";
    }

    private final Optional<TextPostings> tsvector = Optional.of(new TsvectorPostings(this));

    @Override
    public Optional<TextPostings> textPostings() {
        return tsvector;
    }

    /** Set at open once {@code pg_trgm} is installed; until then (or without it) trigram indexes are rows of their tables. */
    private volatile Optional<TrigramPostings> trigrams = Optional.empty();

    @Override
    public Optional<TrigramPostings> trigramPostings() {
        return trigrams;
    }

    /**
     * Installs {@code pg_trgm} (a trusted extension shipped with PostgreSQL's contrib: the
     * database's owner may install it) if it is not there, inside the caller's transaction, each
     * try under a savepoint: in schema {@code public} where it can (an extension lives in one
     * schema, and dropping Weft's schema would otherwise drop it with every trigram index of other
     * schemas), else in the current one. Where it cannot be installed at all, trigram indexes stay
     * rows of their tables.
     */
    void installTrigrams(java.sql.Statement s) throws SQLException {
        for (String ddl : List.of("CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public", "CREATE EXTENSION IF NOT EXISTS pg_trgm")) {
            s.execute("SAVEPOINT pg_trgm");
            try {
                s.execute(ddl);
                s.execute("RELEASE SAVEPOINT pg_trgm");
                break;
            } catch (SQLException e) {
                s.execute("ROLLBACK TO SAVEPOINT pg_trgm");
                org.slf4j.LoggerFactory.getLogger(PostgresDialect.class).info("{}: {}", ddl, e.getMessage());
            }
        }
        try (ResultSet rs = s.executeQuery("SELECT quote_ident(n.nspname) FROM pg_extension e"
                + " JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'")) {
            if (rs.next()) {
                trigrams = Optional.of(new PgTrigrams(rs.getString(1)));
            } else {
                org.slf4j.LoggerFactory.getLogger(PostgresDialect.class).warn(
                        "pg_trgm cannot be installed: trigram indexes are kept as rows, one per trigram and document");
            }
        }
    }

    @Override
    public Optional<String> uniqueKeyConstraint(String indexTable) {
        return Optional.of("CREATE UNIQUE INDEX " + indexTable + "_u ON " + indexTable + "(key)");
    }

    @Override
    public boolean severalWriters() {
        return true;
    }

    @Override
    public String rangeTable(int count) {
        return "unnest(?::bytea[], ?::bytea[]) AS r(column1, column2)";
    }

    @Override
    public int bindRanges(SqlConnection sql, PreparedStatement ps, int first, List<KeyRange> ranges) throws SQLException {
        ps.setArray(first, array(sql, ranges.stream().map(KeyRange::low).toList()));
        ps.setArray(first + 1, array(sql, ranges.stream().map(KeyRange::high).toList()));
        return first + 2;
    }

    @Override
    public TextPrefilter.Dialect textPrefilter() {
        return TextPrefilter.Dialect.POSTGRESQL;
    }

    @Override
    public int maxRangesInOneStatement() {
        return Integer.MAX_VALUE;
    }

    @Override
    public int fetchRows() {
        return FETCH_ROWS;
    }

    /**
     * A negative prepare threshold is the driver's way to force binary results for the statement.
     * Not in a write ({@link PgPipeline}): forcing costs a Describe round trip on a statement's
     * first run on a connection, and a write's search reads few rows, often once
     * (PgRoundTripsTest counts its round trips).
     */
    @Override
    public void binaryRows(SqlConnection sql, PreparedStatement ps) throws SQLException {
        if (!(sql instanceof PgPipeline)) {
            ps.unwrap(org.postgresql.PGStatement.class).setPrepareThreshold(-1);
        }
    }

    /**
     * One multi-row INSERT. In a write that holds its statements back ({@link PgPipeline}) the
     * count is checked by the database: a duplicate fails the transaction
     * ({@link PgWrites#EXPECTED}), and the write is run again statement by statement for its exact
     * answer.
     */
    @Override
    public int insertDocuments(SqlConnection sql, String table, List<byte[]> ids, List<byte[]> bodies) throws SQLException {
        String insert = "INSERT INTO " + table + "(id, body) SELECT * FROM unnest(?::bytea[], ?::bytea[])"
                + " ON CONFLICT (id) DO NOTHING";
        if (sql instanceof PgPipeline p && p.holding()) {
            p.send("WITH d AS (" + insert + " RETURNING 1) SELECT " + PgWrites.EXPECT + "(count(*), ?, 'documents') FROM d",
                    (ps, i) -> {
                        ps.setArray(i, array(ps, ids));
                        ps.setArray(i + 1, array(ps, bodies));
                        ps.setLong(i + 2, ids.size());
                        return i + 3;
                    });
            return ids.size();
        }
        PreparedStatement ps = sql.prepare(insert);
        ps.setArray(1, array(ps, ids));
        ps.setArray(2, array(ps, bodies));
        return ps.executeUpdate();
    }

    @Override
    public void updateDocument(SqlConnection sql, String table, byte[] id, byte[] body) throws SQLException {
        String update = "UPDATE " + table + " SET body = ? WHERE id = ?";
        PgPipeline.Binder binder = (ps, i) -> {
            ps.setBytes(i, body);
            ps.setBytes(i + 1, id);
            return i + 2;
        };
        if (sql instanceof PgPipeline p) {
            p.sendUpdate(update, binder, table, id, body);
        } else {
            PgPipeline.run(sql, update, binder);
        }
    }

    @Override
    public void deleteDocument(SqlConnection sql, String table, byte[] id) throws SQLException {
        PgPipeline.run(sql, "DELETE FROM " + table + " WHERE id = ?", (ps, i) -> {
            ps.setBytes(i, id);
            return i + 1;
        });
    }

    @Override
    public void insertKeys(SqlConnection sql, String table, List<byte[]> keys, List<byte[]> ids) throws SQLException {
        if (keys.isEmpty()) {
            return;
        }
        PgPipeline.run(sql, "INSERT INTO " + table + "(key, id) SELECT * FROM unnest(?::bytea[], ?::bytea[]) ON CONFLICT (key, id) DO NOTHING",
                (ps, i) -> {
                    ps.setArray(i, array(ps, keys));
                    ps.setArray(i + 1, array(ps, ids));
                    return i + 2;
                });
    }

    @Override
    public void deleteKeys(SqlConnection sql, String table, byte[] id, Collection<byte[]> keys) throws SQLException {
        List<byte[]> gone = new ArrayList<>(keys);
        PgPipeline.run(sql, "DELETE FROM " + table + " WHERE id = ? AND key = ANY(?::bytea[])", (ps, i) -> {
            ps.setBytes(i, id);
            ps.setArray(i + 1, array(ps, gone));
            return i + 2;
        });
    }

    @Override
    public String upsertDatabase() {
        return "INSERT INTO weft_dbs(name, props, etag) VALUES (?, ?, ?)"
                + " ON CONFLICT (name) DO UPDATE SET props = EXCLUDED.props, etag = EXCLUDED.etag";
    }

    @Override
    public long insertReturningId(SqlConnection sql, String insert, Object... args) throws SQLException {
        PreparedStatement ps = sql.prepare(insert + " RETURNING id");
        for (int i = 0; i < args.length; i++) {
            ps.setObject(i + 1, args[i]);
        }
        try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Override
    public boolean isUniqueViolation(SQLException e) {
        return UNIQUE_VIOLATION.equals(e.getSQLState());
    }

    @Override
    public boolean isMissingTable(SQLException e) {
        return UNDEFINED_TABLE.equals(e.getSQLState());
    }

    private static Array array(SqlConnection sql, List<byte[]> values) throws SQLException {
        return sql.connection().createArrayOf("bytea", values.toArray(new byte[0][]));
    }

    static Array array(PreparedStatement ps, List<byte[]> values) throws SQLException {
        return ps.getConnection().createArrayOf("bytea", values.toArray(new byte[0][]));
    }
}
