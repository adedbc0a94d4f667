package dev.weft.store.sqlite;

import dev.weft.store.Catalog;
import dev.weft.query.Filter;
import dev.weft.query.KeyRange;
import dev.weft.query.Sort;
import dev.weft.store.plan.QueryPlanner;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/** {@link QueryPlanner} over this store's catalog, probing key counts in SQLite. */
final class Planner {
    private Planner() {}

    /** A plan over the primary key or one of the collection's index tables. */
    static QueryPlanner.Plan<Catalog.Index> plan(Sql sql, Catalog.Coll coll, Filter filter, Sort sort, long skip,
                                                 long limit, Optional<String> hint) throws SQLException {
        return QueryPlanner.plan(coll.ns().toString(), coll.indexes(), filter, sort, skip, limit, hint,
                (index, ranges, cap) -> probe(sql, coll, index, ranges, cap));
    }

    /** Keys in the candidate's ranges, counted up to {@code cap}. */
    private static long probe(Sql sql, Catalog.Coll coll, Catalog.Index index, List<KeyRange> ranges, long cap) throws SQLException {
        String from = index == null ? coll.table() + " WHERE id" : index.table() + " WHERE key";
        String column = from.substring(from.lastIndexOf(' ') + 1);
        PreparedStatement ps = sql.prepare("SELECT count(*) FROM (SELECT 1 FROM " + from + " >= ? AND "
                + column + " <= ? LIMIT ?)");
        return QueryPlanner.Probe.countRanges(ps, ranges, cap);
    }

}
