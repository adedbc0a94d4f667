package dev.weft.store.sqlite;

import dev.weft.store.Catalog;
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
}
