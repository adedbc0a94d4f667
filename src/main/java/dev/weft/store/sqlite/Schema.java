package dev.weft.store.sqlite;

import dev.weft.core.Json;
import dev.weft.store.Catalog;
import dev.weft.store.IndexSpec;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/** The {@link Catalog} tables in SQLite's dialect. */
final class Schema {
    private Schema() {}

    static final List<String> TABLES = List.of(
            "CREATE TABLE IF NOT EXISTS weft_dbs(name TEXT PRIMARY KEY, props BLOB NOT NULL, etag TEXT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS weft_colls(id INTEGER PRIMARY KEY AUTOINCREMENT, db TEXT NOT NULL,"
                    + " name TEXT NOT NULL, props BLOB NOT NULL, etag TEXT NOT NULL, UNIQUE(db, name))",
            "CREATE TABLE IF NOT EXISTS weft_indexes(id INTEGER PRIMARY KEY AUTOINCREMENT, coll INTEGER NOT NULL,"
                    + " name TEXT NOT NULL, fields BLOB NOT NULL, uniq INTEGER NOT NULL, multikey INTEGER NOT NULL,"
                    + " UNIQUE(coll, name))");


    static void insertIndexRow(Sql sql, Json json, long coll, IndexSpec spec, boolean multikey) throws SQLException {
        PreparedStatement ps = sql.prepare(
                "INSERT INTO weft_indexes(coll, name, fields, uniq, multikey) VALUES (?, ?, ?, ?, ?)");
        ps.setLong(1, coll);
        ps.setString(2, spec.name());
        ps.setBytes(3, Catalog.encodeSpec(json, spec));
        ps.setInt(4, spec.unique() ? 1 : 0);
        ps.setInt(5, multikey ? 1 : 0);
        ps.executeUpdate();
    }
}
