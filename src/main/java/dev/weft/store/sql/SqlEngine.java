package dev.weft.store.sql;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.KeyEncoding;
import dev.weft.query.KeyRange;
import dev.weft.query.Sort;
import dev.weft.query.SortKeys;
import dev.weft.query.StoredMatcher;
import dev.weft.query.Trigrams;
import dev.weft.store.AbstractDocumentWrites;
import dev.weft.store.Catalog;
import dev.weft.store.ChangeEvent;
import dev.weft.store.DuplicateKey;
import dev.weft.store.FindQuery;
import dev.weft.store.IndexSpec;
import dev.weft.store.QueryTime;
import dev.weft.store.StoredDocument;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import dev.weft.store.MemoryOnly;
import dev.weft.store.plan.HeldText;
import dev.weft.store.plan.ProbeCache;
import dev.weft.store.plan.QueryPlanner;
import dev.weft.store.plan.TextScores;
import dev.weft.store.plan.TopK;
import dev.weft.store.txn.DocumentChange;
import dev.weft.store.txn.TxnErrors;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.IntFunction;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The query and write engine of the SQL stores, written once over a {@link Dialect}: planning
 * (key counts probed in the database), finds (ordered chunked scans that resume after the last
 * (key, _id) read, unordered candidate reads into a bounded top-k heap), counts, index builds,
 * and document writes with their per-op savepoints and multikey marking.
 *
 * <p>It owns no connection and no transaction: every method runs on the {@link SqlConnection} a
 * store hands it, inside whatever transaction that store opened (a SQLite snapshot or the
 * writer's batch, a PostgreSQL repeatable-read or write transaction). So what differs between the
 * stores (one writer thread or concurrent transactions, read pools, replicas, retries, timeouts
 * by progress handler or by {@code statement_timeout}) stays in the stores, and everything that
 * reads or writes a document table is here.
 *
 * <p>Tables: a collection is {@code d<id>(id, body)}, {@code id} the order-preserving
 * {@link KeyEncoding} of {@code _id}, {@code body} the JSON served as stored; an index is
 * {@code i<id>(key, id)}, one row per distinct key of a document. Every read is a superset: the
 * filter is evaluated on each body read, so a plan can only cost time, never a wrong answer.
 */
public final class SqlEngine {
    /** Rows and bytes of one chunk of an ordered scan: a store may release its connection between chunks. */
    static final int CHUNK_ROWS = 1000;
    static final int CHUNK_BYTES = 1 << 20;
    /** Keys inserted per statement when an index is built over existing documents. */
    private static final int BUILD_BATCH = 1000;
    private static final Filter ALL = Filter.all();

    private final Dialect dialect;
    private final Json json;
    private final long maxSortBytes;
    private final long trigramProbeCap;
    private final ProbeCache probes;
    private final SqlDocumentWrites writes;
    private final AtomicLong plans = new AtomicLong();
    private final AtomicLong indexedPlans = new AtomicLong();
    private volatile QueryPlanner.Plan<Catalog.Index> lastPlan;
    /** Null until the store gives its helpers: then whole-collection reads may be split. */
    private volatile ParallelScans parallel;
    private volatile HeldRows held = HeldRows.NONE;

    public SqlEngine(Dialect dialect, Json json, long queryTimeoutMs, long maxSortBytes, long trigramProbeCap,
                     ProbeCache probes) {
        this.trigramProbeCap = trigramProbeCap;
        this.probes = probes;
        this.dialect = dialect;
        this.json = json;
        this.maxSortBytes = maxSortBytes;
        this.writes = new SqlDocumentWrites(this, dialect, json, queryTimeoutMs);
    }

    public Dialect dialect() {
        return dialect;
    }

    /** From now on, counts, unordered finds and {@code _id}-ordered finds over a whole collection may be split. */
    public void splitWith(ParallelScans scans) {
        this.parallel = scans;
    }

    /**
     * From now on, a find over a whole collection (in {@code _id} order or into a top-k heap) whose filter requires some text reads
     * the collection's rows from {@code rows} when it holds them, instead of the table.
     */
    public void holdWith(HeldRows rows) {
        this.held = rows;
    }

    /**
     * The scan of held rows a find of {@code plan} with {@code filter} reads instead of the table,
     * if any: the filter's required text is derived once, here, for the choice and the scan.
     */
    private Optional<Scan> heldScan(Catalog.Coll coll, QueryPlanner.Plan<Catalog.Index> plan, Filter filter) {
        if (!wholeCollection(plan)) {
            return Optional.empty();
        }
        return heldScan(coll, plan, filter, HeldText.of(filter));
    }

    private Optional<Scan> heldScan(Catalog.Coll coll, QueryPlanner.Plan<Catalog.Index> plan, Filter filter, HeldText text) {
        if (text instanceof HeldText.Any) {
            return Optional.empty();
        }
        Optional<HeldRows.Rows> rows = held.rows(coll).filter(r -> r.table().equals(coll.table()));
        if (MemoryOnly.active() && (!text.sketched() || rows.map(HeldRows.Rows::size).orElse(0) > MEMORY_ONLY_HELD_ROWS)) {
            MemoryOnly.refuse(); // every body searched byte by byte, or many sketches: not on a selector thread
        }
        return rows.map(r -> Scan.ofHeld(coll, plan, filter, text, dialect, r));
    }

    /** Most held rows a read that must not block ({@link MemoryOnly}) tests: ~7 ns a sketch, ~30 µs. */
    static final int MEMORY_ONLY_HELD_ROWS = 4_000;

    /**
     * A trigram lookup's candidates come from the held rows instead when the collection holds at
     * most this many documents: testing every held row costs ~7 ns a document (its sketch, then
     * the bytes of the few that pass), a lookup in SQLite's FTS5 trigram table 20-80 µs a find
     * (bench/results/search-23-trigram-held-cost.txt: 12 against 20 µs over 1,000 documents, 145
     * against 81 over 20,000). A larger collection is not even asked for: holding it would cost
     * memory and each commit a copy of its rows, for finds its index serves faster.
     */
    static final int HELD_ROWS_OVER_TRIGRAM_LOOKUP = 4_000;
    /** The plan held rows stand for: every row of the collection, unordered (the heap sorts). */
    private static final QueryPlanner.Plan<Catalog.Index> EVERY_HELD_ROW = new QueryPlanner.Plan<>(null, null, false,
            false, "every held row");

    /**
     * The held rows that stand for {@code plan}'s trigram lookup, if any: a trigram lookup only
     * narrows the rows the filter is evaluated on, so evaluating it on every row answers the same.
     * The collection's documents are counted (remembered by the planner's probe cache) up to the
     * bound before the rows are asked for, and the rows' own size decides. Only for a filter whose
     * held test refuses most bodies by their sketches ({@link HeldText#sketched}), and not for a
     * find that names the index in a hint (it asked for the index, and the trigram tests check the
     * index's own answers through hints).
     */
    private Optional<Scan> heldForTrigramLookup(SqlConnection sql, Catalog.Coll coll, QueryPlanner.Plan<Catalog.Index> plan,
                                                Filter filter) throws SQLException {
        if (plan.trigrams() == null || plan.index() == null || !plan.index().spec().trigram()) {
            return Optional.empty();
        }
        HeldText text = HeldText.of(filter);
        if (!text.sketched()) {
            return Optional.empty(); // a case-insensitive literal: every held body would be searched byte by byte
        }
        List<KeyRange> every = List.of(QueryPlanner.EVERY_KEY);
        long cap = HELD_ROWS_OVER_TRIGRAM_LOOKUP + 1;
        if (probes.count(coll.id(), coll.table(), every, cap, () -> probe(sql, coll, null, every, cap)) >= cap) {
            return Optional.empty();
        }
        return heldScan(coll, EVERY_HELD_ROW, filter, text).filter(scan -> scan.heldRows() <= HELD_ROWS_OVER_TRIGRAM_LOOKUP);
    }

    /** A plan that reads every document of the collection (no index, no key range): what a split applies to. */
    private static boolean wholeCollection(QueryPlanner.Plan<Catalog.Index> plan) {
        return plan.index() == null && plan.ranges() == null && plan.trigrams() == null;
    }

    // --- reads -----------------------------------------------------------------------------------

    public Optional<StoredDocument> get(SqlConnection sql, Catalog.Coll coll, JsonNode id) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT body FROM " + coll.table() + " WHERE id = ?");
        ps.setBytes(1, AbstractDocumentWrites.key(id));
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? Optional.of(new StoredDocument(rs.getBytes(1))) : Optional.empty();
        }
    }

    /**
     * The planner's plan over the primary key or one of the collection's indexes. With several
     * writers, an index the cached catalog believes single-key may have become multikey in
     * another transaction: its flag is read in this snapshot, and if set the query is planned
     * again knowing it (the flag commits with the first array, see {@link Catalog.Index}).
     */
    public QueryPlanner.Plan<Catalog.Index> plan(SqlConnection sql, Catalog.Coll coll, Filter filter, Sort sort, long skip,
                                                 long limit, Optional<String> hint) throws SQLException {
        while (true) {
            QueryPlanner.Plan<Catalog.Index> plan = QueryPlanner.plan(coll.ns().toString(), coll.indexes(), filter, sort,
                    skip, limit, hint, (index, ranges, cap) -> probes.count(coll.id(), index == null ? coll.table()
                            : index.table(), ranges, cap, () -> probe(sql, coll, index, ranges, cap)), trigramProbeCap);
            if (dialect.severalWriters() && becameMultikey(sql, plan.index())) {
                continue;
            }
            lastPlan = plan;
            plans.incrementAndGet();
            if (plan.usesIndex()) {
                indexedPlans.incrementAndGet();
            }
            return plan;
        }
    }

    private static boolean becameMultikey(SqlConnection sql, Catalog.Index index) throws SQLException {
        if (index == null || index.multikey()) {
            return false;
        }
        PreparedStatement ps = sql.prepare("SELECT multikey FROM weft_indexes WHERE id = ?");
        ps.setLong(1, index.id());
        try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new SourceDropped(index.spec().name());
            }
            if (rs.getInt(1) != 0) {
                index.markMultikey();
                return true;
            }
            return false;
        }
    }

    /**
     * The index a plan chose was dropped by another writer after the catalog was read: the store
     * re-reads its catalog and runs the read again.
     */
    public static final class SourceDropped extends SQLException {
        SourceDropped(String index) {
            super("the index " + index + " was dropped meanwhile");
        }
    }

    /** Keys in the candidate's ranges, counted up to {@code cap}; of a trigram index kept as postings, its documents holding the trigram. */
    private long probe(SqlConnection sql, Catalog.Coll coll, Catalog.Index index, List<KeyRange> ranges, long cap)
            throws SQLException {
        Optional<TrigramPostings> trigrams = index == null ? Optional.empty() : trigramPostings(index);
        if (trigrams.isPresent() && ranges.size() == 1) {
            return trigrams.get().count(sql, index.table(), ranges.getFirst().low(), cap);
        }
        String table = index == null ? coll.table() : index.table();
        String column = index == null ? "id" : "key";
        PreparedStatement ps = sql.prepare("SELECT count(*) FROM (SELECT 1 FROM " + table + " WHERE " + column + " >= ? AND "
                + column + " <= ? LIMIT " + dialect.boundCount() + ") s");
        return QueryPlanner.Probe.countRanges(ps, ranges, cap);
    }

    /** A find of {@code query}, read chunk by chunk on the connections the store gives it (see {@link Find}). */
    public Find find(FindQuery query, QueryTime time) {
        return new Find(query, time);
    }

    /**
     * The state of one find between chunks. {@link #first} plans and reads the first chunk (an
     * unordered plan reads everything into its heap at once); {@link #next} reads on after the
     * last (key, _id) read, on the same connection or another one. A store that hands a chunk
     * out between two reads pauses {@code time} meanwhile.
     */
    public final class Find {
        private final Filter filter;
        private StoredMatcher matcher;
        private final Sort sort;
        private final boolean everything;
        private final long skip;
        private final long limit;
        private final Optional<String> hint;
        private final QueryTime time;
        private long left;
        private long toSkip;
        private QueryPlanner.Plan<Catalog.Index> plan;
        private Scan scan;
        private boolean done;

        private Find(FindQuery query, QueryTime time) {
            this.filter = query.filter();
            this.sort = query.sort();
            this.everything = filter == ALL;
            this.skip = query.skip();
            this.limit = query.limit();
            this.hint = query.hint();
            this.time = time;
            this.done = limit <= 0;
        }

        /** True once every match was handed out (or the limit reached). */
        public boolean done() {
            return done;
        }

        /** Plans and reads the first chunk; a retried attempt starts over. */
        public List<StoredDocument> first(SqlConnection sql, Catalog.Coll coll) throws SQLException {
            if (limit <= 0) {
                return List.of();
            }
            plan = plan(sql, coll, filter, sort, skip, limit, hint);
            matcher = StoredMatcher.of(json, filter, sort); // after planning, which binds a $text search to its fields
            left = limit;
            done = false;
            if (!plan.ordered()) {
                return heap(sql, coll);
            }
            Optional<Scan> heldScan = everything ? Optional.empty() : heldScan(coll, plan, filter);
            if (heldScan.isPresent()) {
                scan = heldScan.get();
                toSkip = skip;
                return next(sql);
            }
            List<byte[]> split = orderedSplit(sql, coll);
            if (split != null) {
                done = true;
                return stored(split);
            }
            scan = new Scan(coll, plan, filter, dialect, everything ? skip : 0);
            toSkip = everything ? scan.unskipped() : skip;
            return next(sql);
        }

        /**
         * For a store that reads the chunks in separate transactions: 503 when the index the
         * scan walks was dropped or became multikey since the first chunk (its order no longer holds).
         */
        public void checkSource(Catalog.Coll now) {
            if (plan == null || plan.index() == null) {
                return;
            }
            String name = plan.index().spec().name();
            Optional<Catalog.Index> index = now.index(name);
            if (index.isEmpty() || index.get().id() != plan.index().id() || index.get().multikey()) {
                throw new WeftException(503, "the index " + name + " was dropped or became multikey during"
                        + " this read, so its order no longer holds; retry the read");
            }
        }

        /**
         * An {@code _id}-ordered walk of the whole collection for a filter, its first page at most
         * a chunk deep, read split (null when it was not): every range keeps its first
         * skip+limit matches, and the page is cut from the ranges in order.
         */
        private List<byte[]> orderedSplit(SqlConnection sql, Catalog.Coll coll) throws SQLException {
            ParallelScans scans = parallel;
            if (scans == null || everything || !wholeCollection(plan) || skip + limit > CHUNK_ROWS) {
                return null;
            }
            int want = (int) (skip + limit);
            List<byte[]> page = scans.ordered(sql, dialect, coll, filter, time, plan.descending(), want,
                    matcher::matches);
            return page == null ? null : page.subList((int) Math.min(skip, page.size()), page.size());
        }

        /** The next matches of an ordered plan, at most a chunk; sets {@link #done} at the end. */
        public List<StoredDocument> next(SqlConnection sql) throws SQLException {
            List<StoredDocument> out = new ArrayList<>();
            long[] bytes = {0};
            boolean exhausted = scan.read(sql, dialect, CHUNK_ROWS, (id, body) -> {
                time.row();
                if (!everything && !matcher.matches(body)) {
                    return true;
                }
                if (toSkip > 0) {
                    toSkip--;
                    return true;
                }
                out.add(new StoredDocument(body));
                left--;
                bytes[0] += body.length;
                return left > 0 && bytes[0] < CHUNK_BYTES;
            });
            done = exhausted || left <= 0;
            return out;
        }

        /** Reads every candidate and keeps the first skip+limit in sort order (then _id ascending). */
        private List<StoredDocument> heap(SqlConnection sql, Catalog.Coll coll) throws SQLException {
            done = true;
            if (filter.textSearch().isPresent()) {
                List<StoredDocument> ranked = RankedText.page(sql, dialect, coll, plan.index(), filter.textSearch().get(),
                        matcher, sort, skip, left, time, maxSortBytes);
                if (ranked != null) {
                    return ranked;
                }
            }
            Optional<Scan> held = wholeCollection(plan) ? heldScan(coll, plan, filter)
                    : hint.isEmpty() ? heldForTrigramLookup(sql, coll, plan, filter) : Optional.empty();
            ParallelScans scans = parallel;
            if (held.isEmpty() && scans != null && wholeCollection(plan)) {
                IntFunction<Heap> partOf = reader -> new Heap(matcher, new TopK(sort, skip, left, maxSortBytes));
                Optional<ParallelScans.SortCut> cut = sortCut(sort);
                ParallelScans.PartRows<Heap> offer = new ParallelScans.PartRows<>() {
                    @Override
                    public boolean row(Heap part, int range, Scan.RowId id, byte[] body) throws SQLException {
                        return part.offer(id, body);
                    }

                    @Override
                    public double threshold(Heap part) {
                        return part.top().firstNumber();
                    }
                };
                List<Heap> parts = cut.isPresent()
                        ? scans.unorderedSorted(sql, dialect, coll, filter, cut.get(), time, true, partOf, offer)
                        : scans.unordered(sql, dialect, coll, filter, time, Integer.MAX_VALUE, true, partOf, offer);
                if (parts != null) {
                    TopK top = parts.getFirst().top();
                    parts.subList(1, parts.size()).forEach(p -> top.offerAll(p.top()));
                    return stored(top.result());
                }
            }
            TopK top = new TopK(sort, skip, left, maxSortBytes);
            TextScores scores = TextScores.of(filter, sort);
            Heap heap = new Heap(matcher, top);
            Scan.Rows each = (id, body) -> {
                time.row();
                if (top.keys() != null) {
                    return heap.offer(id, body);
                }
                JsonNode doc = matcher.readIfMatches(body);
                if (doc != null) {
                    scores.set(doc);
                    top.offer(id.get(), body, doc);
                }
                return true;
            };
            if (held.isPresent()) {
                held.get().read(sql, dialect, Integer.MAX_VALUE, each);
            } else {
                Scan.candidates(sql, dialect, coll, plan, filter, each);
            }
            return stored(top.result());
        }
    }

    /**
     * The {@link dev.weft.query.DocumentHead} bits of the names a scan for {@code filter} and
     * {@code sort} reads, when this store keeps heads and they can stand for the documents; else
     * empty (bodies are read).
     */
    private OptionalLong heads(Filter filter, Sort sort) {
        if (!dialect.documentHeads()) {
            return OptionalLong.empty();
        }
        return dev.weft.query.DocumentHead.namesRead(filter, sort).stream()
                .mapToLong(dev.weft.query.DocumentHead::bits).findFirst();
    }

    /**
     * The first key of {@code sort} as the database may drop rows by it ({@link ParallelScans.SortCut}):
     * a top-level name (no dots), when the sort has stored keys (not a text score).
     */
    private static Optional<ParallelScans.SortCut> sortCut(Sort sort) {
        if (sort == null || sort.byTextScore() || sort.fields().isEmpty()) {
            return Optional.empty();
        }
        dev.weft.query.IndexField first = sort.fields().getFirst();
        if (first.path().isEmpty() || first.path().indexOf('.') >= 0) {
            return Optional.empty();
        }
        return Optional.of(new ParallelScans.SortCut(first.path(), first.direction() < 0));
    }

    private static List<StoredDocument> stored(List<byte[]> bodies) {
        return bodies.stream().map(StoredDocument::new).toList();
    }

    /**
     * One reader's heap of an unordered find (the matcher is shared: it keeps no state). A row
     * whose sort key, read from its bytes, ranks below every kept match is dropped before its
     * filter runs: it could not enter whatever the filter says.
     */
    private record Heap(StoredMatcher matcher, TopK top, SortKeys.Scratch scratch) {
        Heap(StoredMatcher matcher, TopK top) {
            this(matcher, top, top.keys() == null ? null : top.keys().scratch());
        }

        boolean offer(Scan.RowId id, byte[] body) throws SQLException {
            byte[] key = null;
            if (scratch != null && top.keys().readStored(body, scratch)) {
                if (!top.wants(scratch.bytes(), scratch.length())) {
                    return true; // no allocation for a row that cannot enter
                }
                key = scratch.copy();
            }
            JsonNode doc = matcher.readIfMatches(body);
            if (doc != null) {
                top.offer(id.get(), body, key, doc);
            }
            return true;
        }
    }

    /** The documents matching {@code filter} (null: all), counted under {@code time}. */
    public long count(SqlConnection sql, Catalog.Coll coll, Filter filter, QueryTime time) throws SQLException {
        Filter f = filter == null ? ALL : filter;
        if (f == ALL) {
            try (ResultSet rs = sql.prepare("SELECT count(*) FROM " + coll.table()).executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
        QueryPlanner.Plan<Catalog.Index> plan = plan(sql, coll, f, null, 0, Long.MAX_VALUE, Optional.empty());
        StoredMatcher matcher = StoredMatcher.of(json, f, null);
        OptionalLong heads = heads(f, null);
        ParallelScans scans = parallel;
        if (scans != null && wholeCollection(plan)) {
            List<long[]> parts = scans.unordered(sql, dialect, coll, f, heads, time, Integer.MAX_VALUE, false,
                    reader -> new long[1], (part, range, id, body) -> {
                        if (matcher.matches(body)) { // shared by the parts: a matcher keeps no state
                            part[0]++;
                        }
                        return true;
                    });
            if (parts != null) {
                return parts.stream().mapToLong(p -> p[0]).sum();
            }
        }
        long[] n = {0};
        Scan.candidates(sql, dialect, coll, plan, f, heads, (id, body) -> {
            time.row();
            if (matcher.matches(body)) {
                n[0]++;
            }
            return true;
        });
        return n[0];
    }

    /**
     * Every document matching {@code filter} handed to the sink of the reader that read it: split
     * into up to {@code parts} readers when the plan reads the whole collection, else all to
     * {@code sinkOfPart.apply(0)} on this thread.
     */
    public void scanParts(SqlConnection sql, Catalog.Coll coll, Filter filter, QueryTime time, int parts,
                          java.util.function.IntFunction<java.util.function.Consumer<StoredDocument>> sinkOfPart)
            throws SQLException {
        scanParts(sql, coll, filter, null, time, parts, sinkOfPart);
    }

    /**
     * {@link #scanParts} for a sink that reads only the top-level fields {@code names} (null: the
     * whole documents): it may be handed heads ({@link dev.weft.query.DocumentHead}) instead.
     */
    public void scanParts(SqlConnection sql, Catalog.Coll coll, Filter filter, java.util.Set<String> names, QueryTime time,
                          int parts, java.util.function.IntFunction<java.util.function.Consumer<StoredDocument>> sinkOfPart)
            throws SQLException {
        Filter f = filter == null ? ALL : filter;
        QueryPlanner.Plan<Catalog.Index> plan = plan(sql, coll, f, null, 0, Long.MAX_VALUE, Optional.empty());
        StoredMatcher matcher = StoredMatcher.of(json, f, null);
        OptionalLong filterHeads = names == null ? OptionalLong.empty() : heads(f, null);
        OptionalLong heads = filterHeads.isEmpty() ? filterHeads
                : OptionalLong.of(filterHeads.getAsLong() | dev.weft.query.DocumentHead.bits(names));
        ParallelScans scans = parallel;
        if (scans != null && wholeCollection(plan)
                && scans.unordered(sql, dialect, coll, f, heads, time, parts, false,
                        reader -> new Sink(matcher, sinkOfPart.apply(reader)), (part, range, id, body) -> part.accept(body)) != null) {
            return;
        }
        Sink sink = new Sink(matcher, sinkOfPart.apply(0));
        Scan.candidates(sql, dialect, coll, plan, f, heads, (id, body) -> {
            time.row();
            return sink.accept(body);
        });
    }

    /** One reader's share of {@link #scanParts}: its matcher and its caller's sink. */
    private record Sink(StoredMatcher matcher, java.util.function.Consumer<StoredDocument> out) {
        boolean accept(byte[] body) {
            if (matcher.matches(body)) {
                out.accept(new StoredDocument(body));
            }
            return true;
        }
    }

    /** Every document {@code filter} may match, once each, in no order (the searches of bulk writes). */
    void candidates(SqlConnection sql, Catalog.Coll coll, Filter filter, Scan.Rows rows) throws SQLException {
        Scan.candidates(sql, dialect, coll, plan(sql, coll, filter, null, 0, Long.MAX_VALUE, Optional.empty()), filter, rows);
    }

    // --- writes ----------------------------------------------------------------------------------

    /** {@code op} with an insert's stamping and encoding done now, on the calling thread. */
    public WriteOp prepare(WriteOp op) {
        return writes.prepare(op);
    }

    /** {@link #prepare(WriteOp)}, with an insert's text terms analyzed for {@code coll}'s text index (null: none known). */
    public WriteOp prepare(WriteOp op, Catalog.Coll coll) {
        return writes.prepare(op, coll);
    }

    /**
     * Applies one op inside the open transaction ({@code events} null when nobody listens). With
     * {@code savepoint}, the op runs in a savepoint of its own and a refused op (a client error,
     * or a unique key the database refused) rolls back only itself: the result says why, and the
     * caller goes on with the next op. Without, a refused op returns its result and leaves its
     * partial changes for the caller to roll back with the whole transaction, and a database
     * error is thrown (a store that retries a lone write looks at it).
     */
    public WriteResult apply(SqlConnection sql, Catalog.Coll coll, WriteOp op, List<ChangeEvent> events, boolean savepoint)
            throws SQLException {
        if (!savepoint) {
            try {
                return writes.apply(sql, coll, op, events);
            } catch (WeftException e) {
                return WriteResult.failed(e);
            }
        }
        int mark = events == null ? 0 : events.size();
        sql.control("SAVEPOINT op");
        WriteResult result;
        try {
            result = writes.apply(sql, coll, op, events);
        } catch (WeftException e) {
            result = WriteResult.failed(e);
        } catch (SQLException e) {
            if (!dialect.isUniqueViolation(e)) {
                throw e;
            }
            result = WriteResult.failed(WriteResult.Outcome.CONFLICT, uniqueMessage(e, coll));
        }
        if (!result.ok()) {
            sql.control("ROLLBACK TO SAVEPOINT op");
            if (events != null) {
                events.subList(mark, events.size()).clear();
            }
        }
        sql.control("RELEASE SAVEPOINT op");
        return result;
    }

    /**
     * Applies one change of a committing overlay transaction ({@link DocumentChange}) inside the
     * open transaction: 409 (a write conflict) unless the document is still in the state the
     * transaction first read; the stored bytes are the transaction's, its _etag included.
     */
    public void applyChange(SqlConnection sql, Catalog.Coll coll, DocumentChange change) throws SQLException {
        ObjectNode old = writes.load(sql, coll, AbstractDocumentWrites.key(change.id()));
        boolean unchanged = old == null ? !change.existed()
                : change.existed() && java.util.Objects.equals(AbstractDocumentWrites.etagOf(old), change.etag());
        if (!unchanged) {
            throw TxnErrors.writeConflict();
        }
        if (change.after() == null) {
            writes.remove(sql, coll, old);
        } else if (old == null) {
            writes.insert(sql, coll, change.after(), change.body());
        } else {
            writes.rewrite(sql, coll, old, change.after(), change.body());
        }
    }

    /** The 409 message of a unique violation the database reported, naming the index by its constraint. */
    public static String uniqueMessage(SQLException e, Catalog.Coll coll) {
        String text = String.valueOf(e.getMessage());
        for (Catalog.Index index : coll.indexes()) {
            if (text.contains("\"" + index.table() + "_u\"")) {
                return DuplicateKey.uniqueIndex(index.spec().name());
            }
        }
        return DuplicateKey.other(text);
    }

    // --- catalog tables --------------------------------------------------------------------------

    void saveDatabase(SqlConnection sql, String db, byte[] props, String etag) throws SQLException {
        PreparedStatement ps = sql.prepare(dialect.upsertDatabase());
        ps.setString(1, db);
        ps.setBytes(2, props);
        ps.setString(3, etag);
        ps.executeUpdate();
    }

    void deleteDatabase(SqlConnection sql, String db) throws SQLException {
        update(sql, "DELETE FROM weft_dbs WHERE name = ?", db);
    }

    void updateCollection(SqlConnection sql, Catalog.Coll old, byte[] props, String etag) throws SQLException {
        PreparedStatement ps = sql.prepare("UPDATE weft_colls SET props = ?, etag = ? WHERE id = ?");
        ps.setBytes(1, props);
        ps.setString(2, etag);
        ps.setLong(3, old.id());
        ps.executeUpdate();
    }

    void insertCollection(SqlConnection sql, dev.weft.store.Namespace ns, byte[] props, String etag) throws SQLException {
        long id = dialect.insertReturningId(sql, "INSERT INTO weft_colls(db, name, props, etag) VALUES (?, ?, ?, ?)",
                ns.db(), ns.coll(), props, etag);
        sql.exec(dialect.createDocumentTable("d" + id));
    }

    /** The collection's row first (with several writers, its lock waits for the writes holding it), then its tables. */
    void dropTables(SqlConnection sql, Catalog.Coll coll) throws SQLException {
        probes.forget(coll.id());
        update(sql, "DELETE FROM weft_colls WHERE id = ?", coll.id());
        for (Catalog.Index index : coll.indexes()) {
            dropIndexTables(sql, index);
        }
        sql.exec("DROP TABLE IF EXISTS " + coll.table());
        update(sql, "DELETE FROM weft_indexes WHERE coll = ?", coll.id());
    }

    void addIndex(SqlConnection sql, Catalog.Coll coll, IndexSpec spec) throws SQLException {
        probes.forget(coll.id());
        long id = dialect.insertReturningId(sql, "INSERT INTO weft_indexes(coll, name, fields, uniq, multikey)"
                + " VALUES (?, ?, ?, ?, 0)", coll.id(), spec.name(), Catalog.encodeSpec(json, spec), spec.unique() ? 1 : 0);
        Catalog.Index index = new Catalog.Index(id, spec, false);
        Optional<TextPostings> postings = textPostings(index);
        if (postings.isPresent()) {
            for (String ddl : postings.get().create(index.table(), spec.text())) {
                sql.exec(ddl);
            }
            buildPostings(sql, coll, index, postings.get());
            return;
        }
        Optional<TrigramPostings> trigrams = trigramPostings(index);
        if (trigrams.isPresent()) {
            buildTrigrams(sql, coll, index, trigrams.get());
            return;
        }
        sql.exec(dialect.createIndexTable(index.table()));
        build(sql, coll, index);
    }

    /**
     * Rebuilds each trigram index kept as rows {@code (key, id)} where the dialect has
     * {@link TrigramPostings} of its own, and each text index still kept as rows of a generic index table (made before text
     * postings were the dialect's own) or as postings of an older shape
     * ({@link TextPostings#outdated}): its old tables dropped, its postings built from the
     * documents. Run once at open, inside the caller's transaction.
     */
    public void rebuildOldTextIndexes(SqlConnection sql, Catalog catalog) throws SQLException {
        for (Catalog.Coll coll : catalog.colls().values()) {
            for (Catalog.Index index : coll.indexes()) {
                Optional<TextPostings> postings = textPostings(index);
                if (postings.isPresent() && (TextPostings.hasColumn(sql, index.table(), "key")
                        || postings.get().outdated(sql, index.table()))) {
                    for (String ddl : postings.get().drop(index.table())) {
                        sql.exec(ddl);
                    }
                    for (String ddl : postings.get().create(index.table(), index.spec().text())) {
                        sql.exec(ddl);
                    }
                    buildPostings(sql, coll, index, postings.get());
                }
                Optional<TrigramPostings> trigrams = trigramPostings(index);
                if (trigrams.isPresent() && TextPostings.hasColumn(sql, index.table(), "key")) {
                    sql.exec("DROP TABLE " + index.table());
                    buildTrigrams(sql, coll, index, trigrams.get());
                }
                if (trigrams.isPresent()) {
                    trigrams.get().opened(sql, index.table());
                }
                if (postings.isPresent()) {
                    postings.get().opened(sql, index.table(), index.spec().text());
                }
            }
        }
    }

    private Optional<TrigramPostings> trigramPostings(Catalog.Index index) {
        return index.spec().trigram() ? dialect.trigramPostings() : Optional.empty();
    }

    /** Creates a trigram index's tables and adds every document's text, {@link #BUILD_BATCH} at a time. */
    private void buildTrigrams(SqlConnection sql, Catalog.Coll coll, Catalog.Index index, TrigramPostings trigrams)
            throws SQLException {
        for (String ddl : trigrams.create(index.table())) {
            sql.exec(ddl);
        }
        boolean[] multikey = {false};
        List<byte[]> ids = new ArrayList<>();
        List<Trigrams.Indexed> texts = new ArrayList<>();
        eachDocument(sql, coll, (id, doc) -> {
            multikey[0] |= KeyEncoding.isMultikey(doc, index.fields());
            Trigrams.Indexed text = SqlDocumentWrites.indexed(index, doc);
            if (text != null) {
                ids.add(id);
                texts.add(text);
            }
            if (ids.size() >= BUILD_BATCH) {
                trigrams.build(sql, index.table(), ids, texts);
                ids.clear();
                texts.clear();
            }
        });
        trigrams.build(sql, index.table(), ids, texts);
        if (multikey[0]) {
            update(sql, "UPDATE weft_indexes SET multikey = 1 WHERE id = ?", index.id());
        }
    }

    private interface DocumentVisitor {
        void visit(byte[] id, JsonNode doc) throws SQLException;
    }

    /** Every document of the collection, parsed, in the order of its ids (what an index build reads). */
    private void eachDocument(SqlConnection sql, Catalog.Coll coll, DocumentVisitor visitor) throws SQLException {
        PreparedStatement scan = sql.prepare("SELECT id, body FROM " + coll.table());
        if (dialect.fetchRows() > 0) {
            scan.setFetchSize(dialect.fetchRows());
        }
        try (ResultSet rs = scan.executeQuery()) {
            while (rs.next()) {
                visitor.visit(rs.getBytes(1), json.parse(rs.getBytes(2), "stored document"));
            }
        }
    }

    private Optional<TextPostings> textPostings(Catalog.Index index) {
        return index.spec().isText() ? dialect.textPostings() : Optional.empty();
    }

    /** Adds every document's terms to a text index's postings, {@link #BUILD_BATCH} at a time. */
    private void buildPostings(SqlConnection sql, Catalog.Coll coll, Catalog.Index index, TextPostings postings)
            throws SQLException {
        List<byte[]> ids = new ArrayList<>();
        List<List<String>> terms = new ArrayList<>();
        eachDocument(sql, coll, (id, doc) -> {
            ids.add(id);
            terms.add(index.spec().text().termsByWeight(doc));
            if (ids.size() >= BUILD_BATCH) {
                postings.build(sql, index.table(), index.spec().text(), ids, terms);
                ids.clear();
                terms.clear();
            }
        });
        postings.build(sql, index.table(), index.spec().text(), ids, terms);
    }

    private void dropIndexTables(SqlConnection sql, Catalog.Index index) throws SQLException {
        Optional<TextPostings> postings = textPostings(index);
        Optional<TrigramPostings> trigrams = trigramPostings(index);
        for (String ddl : postings.isPresent() ? postings.get().drop(index.table())
                : trigrams.isPresent() ? trigrams.get().drop(index.table())
                : List.of("DROP TABLE IF EXISTS " + index.table())) {
            sql.exec(ddl);
        }
    }

    /** Fills a new index from every document; a unique index with duplicates fails (409), leaving nothing. */
    private void build(SqlConnection sql, Catalog.Coll coll, Catalog.Index index) throws SQLException {
        boolean[] multikey = {false};
        List<byte[]> keys = new ArrayList<>();
        List<byte[]> ids = new ArrayList<>();
        eachDocument(sql, coll, (id, doc) -> {
            multikey[0] |= KeyEncoding.isMultikey(doc, index.fields());
            for (byte[] key : AbstractDocumentWrites.keys(index, doc)) {
                keys.add(key);
                ids.add(id);
            }
            if (keys.size() >= BUILD_BATCH) {
                dialect.insertKeys(sql, index.table(), keys, ids);
                keys.clear();
                ids.clear();
            }
        });
        dialect.insertKeys(sql, index.table(), keys, ids);
        if (index.spec().unique()) {
            try (ResultSet rs = sql.prepare("SELECT 1 FROM " + index.table() + " GROUP BY key HAVING count(*) > 1 LIMIT 1")
                    .executeQuery()) {
                if (rs.next()) {
                    throw WeftException.conflict("cannot build unique index " + index.spec().name()
                            + ": some documents share a key");
                }
            }
            Optional<String> constraint = dialect.uniqueKeyConstraint(index.table());
            if (constraint.isPresent()) {
                sql.exec(constraint.get());
            }
        }
        if (multikey[0]) {
            update(sql, "UPDATE weft_indexes SET multikey = 1 WHERE id = ?", index.id());
        }
    }

    void removeIndex(SqlConnection sql, Catalog.Coll coll, Catalog.Index index) throws SQLException {
        probes.forget(coll.id());
        dropIndexTables(sql, index);
        update(sql, "DELETE FROM weft_indexes WHERE id = ?", index.id());
    }

    private static void update(SqlConnection sql, String statement, Object arg) throws SQLException {
        PreparedStatement ps = sql.prepare(statement);
        ps.setObject(1, arg);
        ps.executeUpdate();
    }

    // --- for tests -------------------------------------------------------------------------------

    /** Queries planned, and how many of them read an index or a key range rather than everything. */
    public long plans() {
        return plans.get();
    }

    public long indexedPlans() {
        return indexedPlans.get();
    }

    public QueryPlanner.Plan<Catalog.Index> lastPlan() {
        return lastPlan;
    }
}
