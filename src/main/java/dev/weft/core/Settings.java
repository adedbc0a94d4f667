package dev.weft.core;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Every tunable of Weft, each with a finite default. A setting named {@code max-body-bytes} is
 * given as {@code --max-body-bytes N} on the command line or {@code WEFT_MAX_BODY_BYTES} in the
 * environment; the command line wins. Each is declared once, in {@link #ALL}: its default, range
 * and description; its value fills the component of this record (or of {@link AuthSettings})
 * named like it, and {@code --help} and the README's table (SettingsDocumentedTest) are made
 * from the same list. A new setting is one line there and one component here.
 */
public record Settings(
        int port,
        String bind,
        Path data,
        long maxBodyBytes,
        int maxNdjsonLineBytes,
        int maxNestingDepth,
        int maxFilterBytes,
        int defaultPageSize,
        int maxPageSize,
        int maxRegexLength,
        int maxRegexProgram,
        int regexCacheEntries,
        int maxIdBytes,
        long queryTimeoutMs,
        long maxSortBytes,
        long trigramProbeCap,
        int trigramPendingRows,
        long trigramPendingIdleMs,
        int textPendingRows,
        int textNativeRanking,
        long planProbeCacheMs,
        int planProbeCacheEntries,
        Optional<String> cursorSecret,
        long positionIndexMinSkip,
        int positionIndexBlock,
        int positionIndexOrders,
        int positionIndexPending,
        long aggregationMemoryBytes,
        int writeQueueLength,
        int writeBatchMax,
        int sqliteReaders,
        int parallelScans,
        int scanParts,
        long scanSplitMinRows,
        int documentHeadBytes,
        int sqliteWalPages,
        int sqlitePageSize,
        long sqliteMmapBytes,
        long heldRowsBytes,
        long selectorReadBudgetUs,
        int maxConnections,
        long idleTimeoutMs,
        long headerTimeoutMs,
        int resultCacheEntries,
        int resultCacheMaxBytes,
        long streamRetentionEvents,
        long streamRetentionMs,
        int streamClientQueue,
        long streamCutoffGraceMs,
        long streamHeartbeatMs,
        int streamDispatchQueue,
        long streamPollMs,
        long streamAccessCheckMs,
        long streamMatchBudget,
        int jsonSchemaMaxErrors,
        int jsonSchemaCacheEntries,
        long ttlIntervalMs,
        int ttlBatch,
        int maxSessions,
        long sessionIdleTimeoutMs,
        int maxOpenTxns,
        long txnIdleTimeoutMs,
        long txnLifetimeMs,
        long txnMaxBytes,
        long txnLockWaitMs,
        String store,
        int pgPoolSize,
        long pgTimeoutMs,
        long pgStartupWaitMs,
        long pgStatementTimeoutMs,
        long pgKnownDocumentsBytes,
        int pgGroupWriters,
        int pgGroupQueueLength,
        int pgGroupMax,
        int pgReaders,
        int pgReadQueueLength,
        int pgReadGroupMax,
        List<String> readReplicas,
        long replicaRetryMs,
        ReadMode readMode,
        Durability durability,
        String aclDb,
        String aclCollection,
        Optional<Path> aclFile,
        Optional<String> baseUrl,
        List<String> trustedProxies,
        AuthSettings auth) {

    /**
     * SQLite's memory map of its file, per read connection: a whole large database on a 64-bit
     * JVM (address space only; the pages are the kernel's page cache, shared by every mapping),
     * the former 256 MiB on a 32-bit one, where several connections' maps would take the address
     * space the heap and threads need.
     */
    private static final long SQLITE_MMAP_DEFAULT = "32".equals(System.getProperty("sun.arch.data.model")) ? 256L << 20 : 64L << 30;

    /** Every setting, in the order of {@code --help} and of the README's table. */
    public static final List<Setting<?>> ALL = List.of(
            Setting.integer("port", 8080, 0, 65535, "TCP port of the HTTP listener"),
            Setting.string("bind", "127.0.0.1", "address the listener binds to"),
            Setting.of("data", Path.of("./data"), Path::of, "directory of the embedded SQLite store"),
            Setting.longValue("max-body-bytes", 16L << 20, 1, Long.MAX_VALUE, "largest request body, 413 past it").showing("16 MiB"),
            Setting.integer("max-ndjson-line-bytes", 1 << 20, 64, Integer.MAX_VALUE, "largest ndjson line; a longer line is reported as an error").showing("1 MiB"),
            Setting.integer("max-nesting-depth", 64, 2, 1000, "deepest JSON nesting in bodies and parameters"),
            Setting.integer("max-filter-bytes", 16 << 10, 16, Integer.MAX_VALUE, "largest filter/sort/keys parameter").showing("16 KiB"),
            Setting.integer("default-page-size", 100, 1, 1_000_000, "page size when pagesize is not given"),
            Setting.integer("max-page-size", 1000, 1, 1_000_000, "largest pagesize, 400 past it"),
            Setting.integer("max-regex-length", 1024, 1, 1 << 20, "longest $regex pattern; patterns run in linear time on RE2J"),
            Setting.integer("max-regex-program", 10_000, 100, 1_000_000, "largest $regex once its repetitions are expanded, in RE2J instructions; match time and memory grow with it"),
            Setting.integer("regex-cache-entries", 1000, 0, 1_000_000, "compiled $regex patterns remembered, so that a query asked again is not compiled again; 0: none"),
            Setting.longValue("query-timeout-ms", 30_000, 1, 24 * 3_600_000L, "longest a find, count or bulk write's search may read and evaluate, 503 past it; a request's maxTimeMS may only lower it"),
            Setting.longValue("max-sort-bytes", 32L << 20, 1024, Long.MAX_VALUE, "stored bytes of the skip+limit documents an unindexed sort keeps in memory, 400 past it").showing("32 MiB"),
            Setting.longValue("trigram-probe-cap", 10_000, 1, 100_000_000, "most documents counted per trigram (FTS5 or pg_trgm postings) to estimate a trigram lookup's candidates; at or past it (or past 1/8 of the collection) a regex is answered by the scan unless hinted"),
            Setting.integer("trigram-pending-rows", 32_768, 0, 10_000_000, "SQLite: most documents a trigram index holds pending (written in the document's transaction, read by every regex lookup of the index, put into FTS5 by the writer when idle); past it a write puts them all into FTS5 itself; 0: every write does"),
            Setting.longValue("trigram-pending-idle-ms", 250, 0, 24 * 3_600_000L, "SQLite: how long the writer waits with no write to do before putting a trigram or text index's pending documents into FTS5, a few thousand per transaction"),
            Setting.integer("text-pending-rows", 32_768, 0, 10_000_000, "SQLite: most documents a text index holds pending (written in the document's transaction, put into FTS5 by the writer when idle, or all at once before a $text query that finds some); past it a write puts them all into FTS5 itself; 0: every write does"),
            Setting.integer("text-native-ranking", 1, 0, 1, "SQLite: 1 ranks a $text query's best documents with Weft's native FTS5 function weft_top where the build made it (scripts/build-native: a C compiler), the same answers as FTS5's bm25 for less CPU; 0: bm25 alone"),
            Setting.longValue("plan-probe-cache-ms", 1_000, 0, 3_600_000, "how long the planner's key counts (which index a query reads) are reused for the same ranges; 0: counted for every query"),
            Setting.integer("plan-probe-cache-entries", 10_000, 1, 10_000_000, "most key counts of the planner remembered"),
            Setting.optional("cursor-secret", v -> v, "key of keyset cursor tokens (after=), shared by every node; none: random per process, tokens die with it; prefer WEFT_CURSOR_SECRET"),
            Setting.longValue("position-index-min-skip", 2_000, 1, Long.MAX_VALUE, "an unfiltered page skipping at least this many documents of an order _id or an index serves starts from a position index instead of walking them"),
            Setting.integer("position-index-block", 64, 16, 1 << 20, "documents per block of a position index: the most a deep page walks past its block's start"),
            Setting.integer("position-index-orders", 64, 0, 1_000_000, "position indexes kept (one per collection and sort order; least recently used dropped; 0: deep pages walk every skipped document)"),
            Setting.integer("position-index-pending", 100_000, 1, Integer.MAX_VALUE, "writes queued for one position index before it is dropped and rebuilt by the next deep page"),
            Setting.longValue("aggregation-memory-bytes", 100L << 20, 1024, Long.MAX_VALUE, "memory each blocking aggregation stage ($group, $sort, $facet, $bucket, $sample, $lookup's results) may hold, 400 \"exceeded memory limit\" past it").showing("100 MiB"),
            Setting.integer("max-id-bytes", 1024, 24, 2048, "longest _id, in bytes of its JSON text; its URL must fit a Location header"),
            Setting.integer("write-queue-length", 100_000, 1, Integer.MAX_VALUE, "writes waiting for the writer before new ones get 503"),
            Setting.integer("write-batch-max", 2000, 1, 1_000_000, "most writes committed together in one group commit"),
            Setting.integer("sqlite-readers", Math.max(2, Runtime.getRuntime().availableProcessors()), 1, 256, "concurrent SQLite reads").showing("max(2, cores)"),
            Setting.integer("parallel-scans", 1, 0, 256, "queries (counts, finds and unindexed sorts over a whole collection) split into parts at once; a query finding none free reads alone, 0 splits none"),
            Setting.integer("scan-parts", Math.max(1, Runtime.getRuntime().availableProcessors()), 1, 256, "parts read at once by one split query, each on its own read connection (SQLite keeps parallel-scans * (scan-parts - 1) read connections for them)").showing("cores"),
            Setting.longValue("scan-split-min-rows", 20_000, 1, Long.MAX_VALUE, "documents a collection holds before a query reading all of it is split"),
            Setting.integer("document-head-bytes", 256, 0, 4096, "most bytes of a SQLite document's head: its smallest top-level fields, stored beside it, which counts and $group scans naming only those fields read instead of the whole document (0: no heads; applies to documents written from then on)"),
            Setting.integer("sqlite-wal-pages", 10_000, 100, 10_000_000, "longest SQLite write-ahead log, in pages, before the writer checkpoints it itself"),
            Setting.of("sqlite-page-size", 16_384, raw -> Setting.powerOfTwo("sqlite-page-size", raw, 4096, 65_536), "bytes per SQLite page (a power of two, 4096 to 65536) of a new data directory; an existing one keeps its own"),
            Setting.longValue("sqlite-mmap-bytes", SQLITE_MMAP_DEFAULT, 0, 1L << 40, "bytes of the SQLite file each read connection maps into memory (SQLite's mmap_size): reads past it copy every page through a read() call; 0 maps none").showing("64 GiB (256 MiB on a 32-bit JVM)"),
            Setting.longValue("held-rows-bytes", 32L << 20, 0, 1L << 40, "bytes of small collections' documents a SQLite node keeps in memory (current with every commit) for finds that test a literal in every document, such as an unindexed $regex; a collection is kept only whole; 0 keeps none").showing("32 MiB"),
            Setting.longValue("selector-read-budget-us", 500, 0, 1_000_000, "microseconds of CPU a list read answered from held rows may use on a Jetty selector thread (which serves many connections) before it gives up and runs again on a virtual thread of its own; 0: such reads always take a virtual thread"),
            Setting.integer("max-connections", 19_000, 1, Integer.MAX_VALUE, "open HTTP connections accepted at once"),
            Setting.longValue("idle-timeout-ms", 30_000, 1, Long.MAX_VALUE, "idle keep-alive connections close after this"),
            Setting.longValue("header-timeout-ms", 10_000, 1, Long.MAX_VALUE, "a request whose headers are not all in this long after its first byte gets 408 and its connection closes"),
            Setting.integer("result-cache-entries", 1024, 0, Integer.MAX_VALUE, "query results cached, invalidated by writes"),
            Setting.integer("result-cache-max-bytes", 1 << 20, 0, Integer.MAX_VALUE, "largest single cached result").showing("1 MiB"),
            Setting.longValue("stream-retention-events", 1_000_000, 1, Long.MAX_VALUE, "change events kept for resuming streams"),
            Setting.longValue("stream-retention-ms", 24L * 3600 * 1000, 1, Long.MAX_VALUE, "change events older than this are discarded").showing("86400000 = 24 h"),
            Setting.integer("stream-client-queue", 1000, 1, 1_000_000, "events queued per stream client before it is cut off"),
            Setting.longValue("stream-cutoff-grace-ms", 2000, 1, 600_000, "a stream client cut off (close 1013) has this long to read up to its close frame before its connection is dropped"),
            Setting.longValue("stream-heartbeat-ms", 15_000, 100, 3_600_000, "WebSocket ping / SSE comment interval on streams"),
            Setting.integer("stream-dispatch-queue", 10_000, 1, 10_000_000, "commits queued for the stream dispatcher before it reads the log"),
            Setting.longValue("stream-poll-ms", 1000, 10, 60_000, "PostgreSQL: longest wait between reads of the shared event log without a notification"),
            Setting.longValue("stream-access-check-ms", 250, 10, 60_000, "how often open streams look for changed access rules or users and expired tokens"),
            Setting.longValue("stream-match-budget", 1_000_000, 1, Long.MAX_VALUE, "value tests one event may cost one stream subscriber's filter; past it that stream ends, close 1008"),
            Setting.integer("json-schema-max-errors", 10, 1, 10_000, "most JSON Schema validation messages in a 400; the rest are counted"),
            Setting.integer("json-schema-cache-entries", 256, 1, 1_000_000, "compiled JSON Schemas kept in memory, each until its _schemas collection changes"),
            Setting.longValue("ttl-interval-ms", 60_000, 10, 24 * 3_600_000L, "how often expired documents of TTL indexes (expireAfterSeconds) are deleted"),
            Setting.integer("ttl-batch", 10_000, 1, 10_000_000, "most documents one TTL pass deletes, over all collections; the rest wait for the next pass"),
            Setting.integer("max-sessions", 10_000, 1, 10_000_000, "client sessions (POST /_sessions) open at once, 503 past it"),
            Setting.longValue("session-idle-timeout-ms", 30 * 60_000L, 1_000, 7 * 24 * 3_600_000L, "a session unused this long is ended (its open transaction aborted), as MongoDB's logical session timeout").showing("1800000 = 30 min"),
            Setting.integer("max-open-txns", 32, 1, 100_000, "transactions open at once, 503 past it; on PostgreSQL each holds a connection of its own pool"),
            Setting.longValue("txn-idle-timeout-ms", 60_000, 10, 24 * 3_600_000L, "a transaction with no request this long is aborted, releasing its connection, locks and memory"),
            Setting.longValue("txn-lifetime-ms", 300_000, 10, 24 * 3_600_000L, "a transaction still open this long after it started is aborted, however busy (MongoDB's transactionLifetimeLimitSeconds): no client holds locks for longer"),
            Setting.longValue("txn-max-bytes", 8L << 20, 1024, Long.MAX_VALUE, "bytes of documents one transaction may write before commit (what it holds in memory; max-open-txns times this at most), 413 past it").showing("8 MiB"),
            Setting.longValue("txn-lock-wait-ms", 100, 0, 600_000, "PostgreSQL: longest a transaction's write waits for a document another transaction holds before it is a write conflict (409)"),
            Setting.of("store", "sqlite", Settings::store, "sqlite, or postgresql://USER[:PASSWORD]@HOST:PORT/DB[?param=value]"),
            Setting.integer("pg-pool-size", 16, 1, 1000, "connections in the PostgreSQL pool, and in each replica's"),
            Setting.longValue("pg-timeout-ms", 5_000, 1_000, 600_000, "longest wait for a PostgreSQL connection before 503"),
            Setting.longValue("pg-startup-wait-ms", 30_000, 0, 3_600_000, "how long a starting Weft waits for the PostgreSQL primary"),
            Setting.longValue("pg-statement-timeout-ms", 30_000, 100, 24 * 3_600_000L, "longest PostgreSQL statement (statement_timeout) before 503"),
            Setting.integer("pg-group-writers", 1, 0, 64, "PostgreSQL group commit: writer threads that each commit many requests' single-document writes in one transaction (one WAL flush); 0: every write commits alone"),
            Setting.integer("pg-group-queue-length", 10_000, 1, Integer.MAX_VALUE, "single-document writes waiting for a PostgreSQL group writer before new ones get 503"),
            Setting.integer("pg-group-max", 64, 1, 100_000, "most writes one PostgreSQL group commits together"),
            Setting.integer("pg-readers", 1, 0, 64, "PostgreSQL grouped reads: reader threads that each read many requests' single documents (GET by id on the primary) in one statement, on a connection of their own; 0: every read alone on a pooled connection"),
            Setting.integer("pg-read-queue-length", 10_000, 1, Integer.MAX_VALUE, "single-document reads waiting for a PostgreSQL reader before new ones get 503"),
            Setting.integer("pg-read-group-max", 128, 1, 100_000, "most documents one PostgreSQL reader reads in one statement"),
            Setting.longValue("pg-known-documents-bytes", 32L << 20, 0, Long.MAX_VALUE, "stored bytes of the documents a node last wrote or read that a replace, update or delete on PostgreSQL may assume (checked in its transaction) to be one round trip; 0 reads every one first").showing("32 MiB"),
            Setting.list("read-replica", Settings::replica, "PostgreSQL streaming replica URL for outdated reads; repeatable or comma-separated").repeated().filling("readReplicas"),
            Setting.longValue("replica-retry-ms", 2_000, 1, 600_000, "how long a failed replica is left out of outdated reads"),
            Setting.of("read-mode", ReadMode.parse("single", "setting read-mode"), v -> ReadMode.parse(v, "setting read-mode"), "reads of requests and collections that name no readMode: single or outdated").showing("single"),
            Setting.of("durability", Durability.parse("hard", "setting durability"), v -> Durability.parse(v, "setting durability"), "writes of requests and collections that name no durability: hard or soft").showing("hard"),
            Setting.string("acl-db", "weft", "database of the access rules collection"),
            Setting.string("acl-collection", "acl", "collection of the access rules"),
            Setting.optional("acl-file", Path::of, "RESTHeart acl.yml whose permissions apply beside the collection's; reloaded on change"),
            Setting.optional("base-url", Settings::baseUrl, "scheme://host[:port][/prefix] of absolute Location headers (none: from the request)"),
            Setting.list("trusted-proxies", v -> v, "comma-separated addresses whose X-Forwarded-Proto/Host are believed"),
            Setting.string("users-db", "weft", "database of the users collection"),
            Setting.string("users-collection", "users", "collection of users, _id = user name"),
            Setting.optional("admin-password", v -> v, "password of the admin user made on first start; prefer WEFT_ADMIN_PASSWORD; none: random, printed once"),
            Setting.integer("password-min-length", 12, 8, 72, "fewest characters in a password"),
            Setting.integer("bcrypt-cost", 10, 4, 16, "bcrypt work factor of stored password hashes"),
            Setting.integer("hash-concurrency", Runtime.getRuntime().availableProcessors(), 1, 256, "password hashes computed at once").showing("cores"),
            Setting.longValue("hash-wait-ms", 5_000, 1, 600_000, "longest wait for a hashing slot before 503"),
            Setting.longValue("auth-cache-ttl-ms", 30_000, 0, 3_600_000, "how long a verified credential is remembered, as a keyed digest"),
            Setting.integer("auth-cache-entries", 10_000, 1, 10_000_000, "most credentials and auth tokens remembered"),
            Setting.longValue("auth-token-ttl-ms", 15 * 60_000, 1_000, 7 * 24 * 3_600_000L, "lifetime of an Auth-Token"),
            Setting.optional("jwt-algorithm", String::toUpperCase, "HS256, RS256 or ES256 to accept bearer JWTs; none: they are refused"),
            Setting.optional("jwt-secret", v -> v, "HS256 secret, at least 32 bytes; prefer WEFT_JWT_SECRET"),
            Setting.optional("jwt-key-file", Path::of, "RS256/ES256 public key: PEM or JWKS file"),
            Setting.optional("jwt-issuer", v -> v, "required JWT iss; none: not checked"),
            Setting.optional("jwt-audience", v -> v, "required JWT aud; none: not checked"),
            Setting.string("jwt-roles-claim", "roles", "JWT claim holding the roles"),
            Setting.longValue("jwt-clock-skew-s", 60, 0, 3_600, "tolerance on JWT exp and nbf"),
            Setting.integer("login-guard-failures", 10, 0, 1_000_000, "failed logins from one address before 429; 0 turns the guard off"),
            Setting.longValue("login-guard-window-ms", 60_000, 1, 24 * 3_600_000L, "window of the login guard, and how long an address stays refused"),
            Setting.integer("login-guard-addresses", 100_000, 1, 10_000_000, "most addresses the login guard tracks"),
            Setting.list("cors-origins", v -> v, "comma-separated origins allowed by CORS, * for any"),
            Setting.longValue("cors-max-age-s", 600, 0, 86_400, "how long browsers may cache a CORS preflight"),
            Setting.integer("tls-port", 8443, 0, 65535, "port of the HTTPS listener"),
            Setting.optional("tls-cert-file", Path::of, "PEM certificate chain; with tls-key-file enables HTTPS"),
            Setting.optional("tls-key-file", Path::of, "PEM PKCS#8 private key of the HTTPS listener"),
            Setting.string("heap-max", "2g", "largest Java heap, as java's -Xmx; applied by the weft start script").appliedByStartScript());

    /** Each setting's {@code --help} line, by name. */
    public static final Map<String, String> DESCRIPTIONS = ALL.stream()
            .collect(Collectors.toMap(Setting::name, Setting::help, (x, y) -> x, LinkedHashMap::new));

    public static Settings defaults() {
        return parse(new String[0], Map.of());
    }

    /** Settings from command-line flags over environment variables over defaults. */
    public static Settings parse(String[] args, Map<String, String> env) {
        Map<String, String> given = given(args, env);
        Map<String, Object> byComponent = new HashMap<>();
        for (Setting<?> setting : ALL) {
            setting.component().ifPresent(c -> byComponent.put(c, setting.value(given.get(setting.name()))));
        }
        byComponent.put("auth", make(AuthSettings.class, byComponent));
        return make(Settings.class, byComponent);
    }

    /** The text of each setting given, by name: from {@code WEFT_*} variables, then the flags. */
    private static Map<String, String> given(String[] args, Map<String, String> env) {
        Map<String, Setting<?>> byName = ALL.stream().collect(Collectors.toMap(Setting::name, s -> s));
        Map<String, String> values = new HashMap<>();
        env.forEach((k, v) -> {
            if (k.startsWith("WEFT_")) {
                values.put(k.substring(5).toLowerCase().replace('_', '-'), v);
            }
        });
        Set<String> flagged = new HashSet<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--")) {
                throw WeftException.badRequest("unexpected argument: " + arg);
            }
            String name = arg.substring(2);
            String value;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw WeftException.badRequest("setting --" + name + " needs a value");
            }
            Setting<?> setting = byName.get(name);
            if (setting == null) {
                throw WeftException.badRequest("unknown setting --" + name);
            }
            if (!flagged.add(name) && setting.repeatable()) {
                value = values.get(name) + "," + value;
            }
            values.put(name, value);
        }
        return values;
    }

    /**
     * The record of this type whose components are the values of the same names; a component
     * no setting fills is a bug, found by the first parse.
     */
    private static <R extends Record> R make(Class<R> type, Map<String, Object> byComponent) {
        RecordComponent[] components = type.getRecordComponents();
        Object[] values = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            String name = components[i].getName();
            if (!byComponent.containsKey(name)) {
                throw new IllegalStateException("no setting fills " + type.getSimpleName() + "." + name);
            }
            values[i] = byComponent.get(name);
            types[i] = components[i].getType();
        }
        try {
            return type.getDeclaredConstructor(types).newInstance(values);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An http(s) URL without query or fragment; a trailing slash is dropped. */
    private static String baseUrl(String value) {
        java.net.URI uri;
        try {
            uri = new java.net.URI(value.trim());
        } catch (java.net.URISyntaxException e) {
            throw WeftException.badRequest("setting base-url is not a URL: " + value);
        }
        if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null
                || uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw WeftException.badRequest("setting base-url must be http(s)://host[:port][/path], not " + value);
        }
        String text = uri.toString();
        return text.endsWith("/") ? text.substring(0, text.length() - 1) : text;
    }


    private static String store(String value) {
        if (!value.equals("sqlite") && !value.startsWith("postgresql://") && !value.startsWith("postgres://")) {
            throw WeftException.badRequest("setting store must be sqlite or a postgresql://USER@HOST:PORT/DB URL");
        }
        return value;
    }

    private static String replica(String value) {
        if (!value.startsWith("postgresql://") && !value.startsWith("postgres://")) {
            throw WeftException.badRequest("setting read-replica must be a postgresql://USER@HOST:PORT/DB URL");
        }
        return value;
    }

    /** True when documents live in PostgreSQL. */
    public boolean postgres() {
        return !store.equals("sqlite");
    }
}
