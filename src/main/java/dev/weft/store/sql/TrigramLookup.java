package dev.weft.store.sql;

import dev.weft.query.Trigrams;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link Trigrams.Query} as a SELECT of document ids from a trigram index's table
 * {@code i(key, id)}: a trigram is its rows, an AND the {@code INTERSECT} of its parts, an OR
 * their {@code UNION}, each part a subquery of its own (so no statement mixes the two operators,
 * whose precedence differs between SQLite and PostgreSQL). The documents whose strings were too
 * long to index ({@link Trigrams#OVERFLOW}) are always added: they are candidates of every lookup.
 */
record TrigramLookup(String sql, List<byte[]> args) {
    static TrigramLookup of(Trigrams.Query query, String table) {
        List<byte[]> args = new ArrayList<>();
        StringBuilder sql = new StringBuilder("SELECT q.id FROM (");
        int[] alias = {0};
        render(query, table, sql, args, alias);
        sql.append(") q UNION SELECT id FROM ").append(table).append(" WHERE key = ?");
        args.add(Trigrams.OVERFLOW);
        return new TrigramLookup(sql.toString(), List.copyOf(args));
    }

    private static void render(Trigrams.Query q, String table, StringBuilder sql, List<byte[]> args, int[] alias) {
        switch (q) {
            case Trigrams.Gram g -> {
                sql.append("SELECT id FROM ").append(table).append(" WHERE key = ?");
                args.add(g.key());
            }
            case Trigrams.All a -> join(a.parts(), " INTERSECT ", table, sql, args, alias);
            case Trigrams.Any o -> join(o.parts(), " UNION ", table, sql, args, alias);
        }
    }

    private static void join(List<Trigrams.Query> parts, String op, String table, StringBuilder sql, List<byte[]> args,
                             int[] alias) {
        for (int i = 0; i < parts.size(); i++) {
            if (i > 0) {
                sql.append(op);
            }
            if (parts.get(i) instanceof Trigrams.Gram) {
                render(parts.get(i), table, sql, args, alias);
            } else {
                sql.append("SELECT t").append(alias[0]).append(".id FROM (");
                int mine = alias[0]++;
                render(parts.get(i), table, sql, args, alias);
                sql.append(") t").append(mine);
            }
        }
    }
}
