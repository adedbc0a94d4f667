package dev.weft.store.sql;

import dev.weft.query.DocumentHead;
import dev.weft.query.KeyRange;
import dev.weft.store.plan.TextPrefilter;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * What differs between the SQL databases under the {@link SqlEngine}: the types of the tables,
 * the statements whose syntax or cost differs (upserts, multi-row inserts, a list of key ranges as
 * a table), how an error is classified, and whether several writers share the database. Every
 * other statement text is the engine's, written in the SQL both databases speak (row values,
 * {@code LIMIT ? OFFSET ?}, {@code CROSS JOIN ... WHERE}).
 *
 * <p>Invariant of every implementation: {@code id} and {@code key} columns compare as unsigned
 * bytes (SQLite BLOB, PostgreSQL bytea), so the engine's key ranges and orders are the
 * database's; and an inserted row that already exists is ignored and not counted, never an error
 * (the engine turns the count into its 409).
 */
public interface Dialect {
    /** The DDL of a collection's table {@code d<id>}: {@code id} (the encoded _id, primary key) and {@code body}. */
    String createDocumentTable(String table);

    /** The DDL of an index's table {@code i<id>(key, id)}, primary key (key, id). */
    String createIndexTable(String table);

    /**
     * The DDL that makes the database refuse a second document with a key of a unique index
     * (run once the index is built free of duplicates), or empty when the engine checks each new
     * key itself. With a constraint, a violation surfaces as {@link #isUniqueViolation} and
     * {@link SqlEngine#uniqueMessage} names the index from the constraint's name,
     * {@code <index table>_u}.
     */
    Optional<String> uniqueKeyConstraint(String indexTable);

    /**
     * Whether other writers (other connections, other nodes) change the tables concurrently. Then
     * a single-document write locks the row it reads, and a plan re-reads an index's multikey flag
     * in its own snapshot rather than trusting the cached catalog.
     */
    boolean severalWriters();

    /**
     * A FROM item named {@code r}, with columns {@code column1} (low) and {@code column2} (high),
     * holding {@code count} key ranges bound by {@link #bindRanges}.
     */
    String rangeTable(int count);

    /** Binds the ranges of {@link #rangeTable} from parameter {@code first}; returns the next parameter. */
    int bindRanges(SqlConnection sql, PreparedStatement ps, int first, List<KeyRange> ranges) throws SQLException;

    /** How a filter's required literals are searched for in the stored JSON ({@link TextPrefilter}). */
    TextPrefilter.Dialect textPrefilter();

    /**
     * A bound row count for {@code LIMIT} or {@code OFFSET}: a bare {@code ?}, unless the
     * database plans with the value bound there. SQLite does (it reads a bound LIMIT while
     * planning, so every new binding expires the statement and its next run prepares it anew:
     * about two thirds of a first page's read, bench/results/list-path-4.txt); a parameter inside
     * an expression it leaves alone.
     */
    default String boundCount() {
        return "?";
    }

    /** A bound row count inside an expression, which no database plans with: {@link #boundCount} for statements written without a Dialect at hand. */
    String BOUND_COUNT_IN_EXPRESSION = "(? + 0)";

    /** Past this many ranges a read takes the whole table and lets the filter decide. */
    int maxRangesInOneStatement();

    /** Rows a long result fetches at a time (0: the driver's way, which for SQLite is a cursor already). */
    int fetchRows();

    /**
     * Asks the driver to read a scan's rows in binary, where it would otherwise decode them from
     * text (PostgreSQL's driver sends a bytea body as hex, twice its size, unless told).
     */
    default void binaryRows(SqlConnection sql, PreparedStatement ps) throws SQLException {}

    /** The rows of {@code rs}, just returned by {@code ps.executeQuery()}, for a scan to read ({@link ByteRows}). */
    default ByteRows byteRows(PreparedStatement ps, ResultSet rs) throws SQLException {
        return ByteRows.of(rs);
    }

    /** Inserts documents, skipping an id already present; returns how many were inserted. */
    int insertDocuments(SqlConnection sql, String table, List<byte[]> ids, List<byte[]> bodies) throws SQLException;

    /**
     * The value a scan reads for each row of a document table {@code alias} ({@code ""} or
     * {@code "d."}) when the query reads only the top-level names whose {@link DocumentHead#bits}
     * are {@code names}: the row's head where it may stand for the document, else its body
     * (a store without heads: always the body).
     */
    default String scanned(String alias, long names) {
        return alias + "body";
    }

    /** Whether document tables have {@code head} and {@code rest} columns beside {@code body} ({@link DocumentHead}). */
    default boolean documentHeads() {
        return false;
    }

    /** Replaces the body of an existing document. */
    void updateDocument(SqlConnection sql, String table, byte[] id, byte[] body) throws SQLException;

    /** Deletes a document's row (its index keys are deleted by {@link #deleteKeys}). */
    default void deleteDocument(SqlConnection sql, String table, byte[] id) throws SQLException {
        PreparedStatement ps = sql.prepare("DELETE FROM " + table + " WHERE id = ?");
        ps.setBytes(1, id);
        ps.executeUpdate();
    }

    /** Inserts the pairs (keys[i], ids[i]) into an index table, skipping those present. */
    void insertKeys(SqlConnection sql, String table, List<byte[]> keys, List<byte[]> ids) throws SQLException;

    /** Where a text index's postings live: empty when they are rows of its generic index table. */
    default Optional<TextPostings> textPostings() {
        return Optional.empty();
    }

    /** Where a trigram index's postings live: empty when they are rows of its generic index table. */
    default Optional<TrigramPostings> trigramPostings() {
        return Optional.empty();
    }

    /** Deletes the given keys of one document from an index table. */
    void deleteKeys(SqlConnection sql, String table, byte[] id, Collection<byte[]> keys) throws SQLException;

    /** Inserts or replaces the row of a database: parameters name, props, etag. */
    String upsertDatabase();

    /** Runs an INSERT into a table with a generated {@code id} column, parameters bound, and returns that id. */
    long insertReturningId(SqlConnection sql, String insert, Object... args) throws SQLException;

    /** A unique or primary-key constraint refused a row. */
    boolean isUniqueViolation(SQLException e);

    /** A statement named a table that does not exist (dropped meanwhile by another connection). */
    boolean isMissingTable(SQLException e);
}
