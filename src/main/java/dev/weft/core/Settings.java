package dev.weft.core;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Every tunable of Weft, each with a finite default. A setting named {@code max-body-bytes} is
 * given as {@code --max-body-bytes N} on the command line or {@code WEFT_MAX_BODY_BYTES} in the
 * environment; the command line wins. {@link #DESCRIPTIONS} is the single list the README's table
 * and {@code --help} are made from.
 *
 * @param port                 TCP port of the HTTP listener
 * @param bind                 address the listener binds to
 * @param data                 directory of the embedded SQLite store
 * @param maxBodyBytes         largest request body accepted (413 past it); ndjson bodies are
 *                             streamed and limited per line instead
 * @param maxNdjsonLineBytes   largest single ndjson line (that line is reported as an error)
 * @param maxNestingDepth      deepest JSON nesting accepted in bodies and query parameters
 * @param maxFilterBytes       largest {@code filter}, {@code sort}, {@code keys} parameter
 * @param defaultPageSize      page size when {@code pagesize} is not given
 * @param maxPageSize          largest {@code pagesize} accepted (400 past it)
 * @param maxRegexLength       longest {@code $regex} pattern accepted; patterns run on RE2J in
 *                             linear time, so length is the only cost bound needed
 * @param writeQueueLength     writes waiting for the writer before new ones get 503
 * @param writeBatchMax        most writes committed together in one group commit
 * @param sqliteReaders        concurrent SQLite reads; native calls pin carrier threads, so
 *                             this bounds how many carriers reads can hold
 * @param sqliteWalPages       the longest the SQLite write-ahead log grows, in pages, before the
 *                             writer copies it into the database itself (a background thread
 *                             normally does it long before)
 * @param maxConnections       open HTTP connections accepted at once
 * @param idleTimeoutMs        an idle keep-alive connection is closed after this long
 * @param headerTimeoutMs      longest time from the first byte of a request to the end of its
 *                             headers; past it the client gets 408 and the connection closes
 * @param resultCacheEntries   query results kept per server, invalidated by any write to the
 *                             collection they came from
 * @param resultCacheMaxBytes  largest single result kept in the result cache
 * @param streamRetentionEvents change events kept for resuming streams, newest first
 * @param streamRetentionMs    change events older than this are discarded (resuming before
 *                             them is refused, never answered with a gap)
 * @param streamClientQueue    events queued for one stream client; a client that lets its queue
 *                             fill is disconnected (WebSocket close 1013, SSE stream end)
 * @param streamHeartbeatMs    interval of WebSocket pings and SSE comments on idle streams
 * @param streamDispatchQueue  commits waiting for the stream dispatcher; past it the dispatcher
 *                             catches up from the event log instead of holding them in memory
 * @param streamPollMs         on PostgreSQL, the longest wait between reads of the shared event
 *                             log when no notification arrives (a commit on any node wakes the
 *                             readers at once; this only bounds a missed notification)
 * @param store                where documents live: {@code sqlite} (the embedded store in
 *                             {@code data}) or a {@code postgresql://USER@HOST:PORT/DB} URL
 * @param pgPoolSize           connections in the PostgreSQL pool (each request holds one only
 *                             while it talks to the database)
 * @param pgTimeoutMs          longest wait for a PostgreSQL connection (pooled or new); past it
 *                             the request answers 503
 * @param pgStartupWaitMs      how long a starting Weft waits for the PostgreSQL primary to accept
 *                             connections before it gives up (a database starting beside it)
 * @param pgStatementTimeoutMs longest run of one PostgreSQL statement (statement_timeout); a
 *                             reply is awaited on the socket at most this plus pgTimeoutMs
 * @param readReplicas         PostgreSQL streaming replicas (same URL form as {@code store}) that
 *                             may serve {@code outdated} reads; repeatable, or comma-separated
 * @param replicaRetryMs       how long a replica that failed is left out before it is tried again
 * @param readMode             the read mode of requests and collections that name none
 * @param durability           the durability of requests and collections that name none
 * @param aclDb                database of the access rules collection
 * @param aclCollection        collection holding the access rules (docs/security.md)
 * @param aclFile              RESTHeart acl.yml whose rules apply beside the collection's
 * @param baseUrl              scheme, host and port (and path prefix) of absolute Location headers
 * @param trustedProxies       addresses whose X-Forwarded-Proto/Host headers are believed
 * @param auth                 users, authentication, brute-force guard, CORS and TLS
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
        int writeQueueLength,
        int writeBatchMax,
        int sqliteReaders,
        int sqliteWalPages,
        int maxConnections,
        long idleTimeoutMs,
        long headerTimeoutMs,
        int resultCacheEntries,
        int resultCacheMaxBytes,
        long streamRetentionEvents,
        long streamRetentionMs,
        int streamClientQueue,
        long streamHeartbeatMs,
        int streamDispatchQueue,
        long streamPollMs,
        String store,
        int pgPoolSize,
        long pgTimeoutMs,
        long pgStartupWaitMs,
        long pgStatementTimeoutMs,
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

    public static final Map<String, String> DESCRIPTIONS = descriptions();
    /** Settings that may be given more than once on the command line; their values add up. */
    private static final java.util.Set<String> REPEATABLE = java.util.Set.of("read-replica");

    public static Settings defaults() {
        return parse(new String[0], Map.of());
    }

    /** Settings from command-line flags over environment variables over defaults. */
    public static Settings parse(String[] args, Map<String, String> env) {
        Map<String, String> values = new LinkedHashMap<>();
        java.util.Set<String> given = new java.util.HashSet<>();
        env.forEach((k, v) -> {
            if (k.startsWith("WEFT_")) {
                values.put(k.substring(5).toLowerCase().replace('_', '-'), v);
            }
        });
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
            if (!DESCRIPTIONS.containsKey(name)) {
                throw WeftException.badRequest("unknown setting --" + name);
            }
            if (REPEATABLE.contains(name) && !given.add(name)) {
                value = values.get(name) + "," + value;
            }
            given.add(name);
            values.put(name, value);
        }
        Reader r = new Reader(values);
        return new Settings(
                r.integer("port", 8080, 0, 65535),
                r.string("bind", "127.0.0.1"),
                Path.of(r.string("data", "./data")),
                r.longValue("max-body-bytes", 16L << 20, 1, Long.MAX_VALUE),
                r.integer("max-ndjson-line-bytes", 1 << 20, 64, Integer.MAX_VALUE),
                r.integer("max-nesting-depth", 64, 2, 1000),
                r.integer("max-filter-bytes", 16 << 10, 16, Integer.MAX_VALUE),
                r.integer("default-page-size", 100, 1, 1_000_000),
                r.integer("max-page-size", 1000, 1, 1_000_000),
                r.integer("max-regex-length", 1024, 1, 1 << 20),
                r.integer("write-queue-length", 100_000, 1, Integer.MAX_VALUE),
                r.integer("write-batch-max", 2000, 1, 1_000_000),
                r.integer("sqlite-readers", Math.max(2, Runtime.getRuntime().availableProcessors()), 1, 256),
                r.integer("sqlite-wal-pages", 10_000, 100, 10_000_000),
                r.integer("max-connections", 19_000, 1, Integer.MAX_VALUE),
                r.longValue("idle-timeout-ms", 30_000, 1, Long.MAX_VALUE),
                r.longValue("header-timeout-ms", 10_000, 1, Long.MAX_VALUE),
                r.integer("result-cache-entries", 1024, 0, Integer.MAX_VALUE),
                r.integer("result-cache-max-bytes", 1 << 20, 0, Integer.MAX_VALUE),
                r.longValue("stream-retention-events", 1_000_000, 1, Long.MAX_VALUE),
                r.longValue("stream-retention-ms", 24L * 3600 * 1000, 1, Long.MAX_VALUE),
                r.integer("stream-client-queue", 1000, 1, 1_000_000),
                r.longValue("stream-heartbeat-ms", 15_000, 100, 3_600_000),
                r.integer("stream-dispatch-queue", 10_000, 1, 10_000_000),
                r.longValue("stream-poll-ms", 1000, 10, 60_000),
                store(r.string("store", "sqlite")),
                r.integer("pg-pool-size", 16, 1, 1000),
                r.longValue("pg-timeout-ms", 5_000, 1_000, 600_000),
                r.longValue("pg-startup-wait-ms", 30_000, 0, 3_600_000),
                r.longValue("pg-statement-timeout-ms", 30_000, 100, 24 * 3_600_000L),
                r.optional("read-replica").map(Settings::commaList).orElse(List.of()).stream().map(Settings::replica).toList(),
                r.longValue("replica-retry-ms", 2_000, 1, 600_000),
                ReadMode.parse(r.string("read-mode", "single"), "setting read-mode"),
                Durability.parse(r.string("durability", "hard"), "setting durability"),
                r.string("acl-db", "weft"),
                r.string("acl-collection", "acl"),
                r.optional("acl-file").map(Path::of),
                r.optional("base-url").map(Settings::baseUrl),
                r.optional("trusted-proxies").map(Settings::commaList).orElse(List.of()),
                auth(r));
    }

    private static AuthSettings auth(Reader r) {
        String usersDb = r.string("users-db", "weft");
        String usersCollection = r.string("users-collection", "users");
        return new AuthSettings(
                usersDb,
                usersCollection,
                r.optional("admin-password"),
                r.integer("password-min-length", 12, 8, 72),
                r.integer("bcrypt-cost", 10, 4, 16),
                r.integer("hash-concurrency", Runtime.getRuntime().availableProcessors(), 1, 256),
                r.longValue("hash-wait-ms", 5_000, 1, 600_000),
                r.longValue("auth-cache-ttl-ms", 30_000, 0, 3_600_000),
                r.integer("auth-cache-entries", 10_000, 1, 10_000_000),
                r.longValue("auth-token-ttl-ms", 15 * 60_000, 1_000, 7 * 24 * 3_600_000L),
                r.optional("jwt-algorithm").map(String::toUpperCase),
                r.optional("jwt-secret"),
                r.optional("jwt-key-file").map(Path::of),
                r.optional("jwt-issuer"),
                r.optional("jwt-audience"),
                r.string("jwt-roles-claim", "roles"),
                r.longValue("jwt-clock-skew-s", 60, 0, 3_600),
                r.integer("login-guard-failures", 10, 0, 1_000_000),
                r.longValue("login-guard-window-ms", 60_000, 1, 24 * 3_600_000L),
                r.integer("login-guard-addresses", 100_000, 1, 10_000_000),
                r.optional("cors-origins").map(Settings::commaList).orElse(List.of()),
                r.longValue("cors-max-age-s", 600, 0, 86_400),
                r.integer("tls-port", 8443, 0, 65535),
                r.optional("tls-cert-file").map(Path::of),
                r.optional("tls-key-file").map(Path::of));
    }

    private static List<String> commaList(String value) {
        return Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
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

    private static Map<String, String> descriptions() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("port", "TCP port of the HTTP listener (8080)");
        d.put("bind", "address the listener binds to (127.0.0.1)");
        d.put("data", "directory of the embedded SQLite store (./data)");
        d.put("max-body-bytes", "largest request body, 413 past it (16 MiB)");
        d.put("max-ndjson-line-bytes", "largest ndjson line; a longer line is reported as an error (1 MiB)");
        d.put("max-nesting-depth", "deepest JSON nesting in bodies and parameters (64)");
        d.put("max-filter-bytes", "largest filter/sort/keys parameter (16 KiB)");
        d.put("default-page-size", "page size when pagesize is not given (100)");
        d.put("max-page-size", "largest pagesize, 400 past it (1000)");
        d.put("max-regex-length", "longest $regex pattern; patterns run in linear time on RE2J (1024)");
        d.put("write-queue-length", "writes waiting for the writer before new ones get 503 (100000)");
        d.put("write-batch-max", "most writes committed together in one group commit (2000)");
        d.put("sqlite-readers", "concurrent SQLite reads (max(2, cores))");
        d.put("sqlite-wal-pages", "longest SQLite write-ahead log, in pages, before the writer checkpoints it itself (10000)");
        d.put("max-connections", "open HTTP connections accepted at once (19000)");
        d.put("idle-timeout-ms", "idle keep-alive connections close after this (30000)");
        d.put("header-timeout-ms", "a request whose headers are not all in this long after its first byte gets 408 and its connection closes (10000)");
        d.put("result-cache-entries", "query results cached, invalidated by writes (1024)");
        d.put("result-cache-max-bytes", "largest single cached result (1 MiB)");
        d.put("stream-retention-events", "change events kept for resuming streams (1000000)");
        d.put("stream-retention-ms", "change events older than this are discarded (86400000 = 24 h)");
        d.put("stream-client-queue", "events queued per stream client before it is cut off (1000)");
        d.put("stream-heartbeat-ms", "WebSocket ping / SSE comment interval on streams (15000)");
        d.put("stream-dispatch-queue", "commits queued for the stream dispatcher before it reads the log (10000)");
        d.put("stream-poll-ms", "PostgreSQL: longest wait between reads of the shared event log without a notification (1000)");
        d.put("store", "sqlite, or postgresql://USER[:PASSWORD]@HOST:PORT/DB[?param=value] (sqlite)");
        d.put("pg-pool-size", "connections in the PostgreSQL pool, and in each replica's (16)");
        d.put("pg-timeout-ms", "longest wait for a PostgreSQL connection before 503 (5000)");
        d.put("pg-startup-wait-ms", "how long a starting Weft waits for the PostgreSQL primary (30000)");
        d.put("pg-statement-timeout-ms", "longest PostgreSQL statement (statement_timeout) before 503 (30000)");
        d.put("read-replica", "PostgreSQL streaming replica URL for outdated reads; repeatable or comma-separated (none)");
        d.put("replica-retry-ms", "how long a failed replica is left out of outdated reads (2000)");
        d.put("read-mode", "reads of requests and collections that name no readMode: single or outdated (single)");
        d.put("durability", "writes of requests and collections that name no durability: hard or soft (hard)");
        d.put("acl-db", "database of the access rules collection (weft)");
        d.put("acl-collection", "collection of the access rules (acl)");
        d.put("acl-file", "RESTHeart acl.yml whose permissions apply beside the collection's; reloaded on change (none)");
        d.put("base-url", "scheme://host[:port][/prefix] of absolute Location headers (none: from the request)");
        d.put("trusted-proxies", "comma-separated addresses whose X-Forwarded-Proto/Host are believed (none)");
        d.put("users-db", "database of the users collection (weft)");
        d.put("users-collection", "collection of users, _id = user name (users)");
        d.put("admin-password", "password of the admin user made on first start; prefer WEFT_ADMIN_PASSWORD (random, printed once)");
        d.put("password-min-length", "fewest characters in a password (12)");
        d.put("bcrypt-cost", "bcrypt work factor of stored password hashes (10)");
        d.put("hash-concurrency", "password hashes computed at once (cores)");
        d.put("hash-wait-ms", "longest wait for a hashing slot before 503 (5000)");
        d.put("auth-cache-ttl-ms", "how long a verified credential is remembered, as a keyed digest (30000)");
        d.put("auth-cache-entries", "most credentials and auth tokens remembered (10000)");
        d.put("auth-token-ttl-ms", "lifetime of an Auth-Token (900000)");
        d.put("jwt-algorithm", "HS256, RS256 or ES256 to accept bearer JWTs (none: refused)");
        d.put("jwt-secret", "HS256 secret, at least 32 bytes; prefer WEFT_JWT_SECRET (none)");
        d.put("jwt-key-file", "RS256/ES256 public key: PEM or JWKS file (none)");
        d.put("jwt-issuer", "required JWT iss (none: not checked)");
        d.put("jwt-audience", "required JWT aud (none: not checked)");
        d.put("jwt-roles-claim", "JWT claim holding the roles (roles)");
        d.put("jwt-clock-skew-s", "tolerance on JWT exp and nbf (60)");
        d.put("login-guard-failures", "failed logins from one address before 429; 0 turns the guard off (10)");
        d.put("login-guard-window-ms", "window of the login guard, and how long an address stays refused (60000)");
        d.put("login-guard-addresses", "most addresses the login guard tracks (100000)");
        d.put("cors-origins", "comma-separated origins allowed by CORS, * for any (none)");
        d.put("cors-max-age-s", "how long browsers may cache a CORS preflight (600)");
        d.put("tls-port", "port of the HTTPS listener (8443)");
        d.put("tls-cert-file", "PEM certificate chain; with tls-key-file enables HTTPS (none)");
        d.put("tls-key-file", "PEM PKCS#8 private key of the HTTPS listener (none)");
        d.put("heap-max", "largest Java heap, as java's -Xmx; applied by the weft start script (2g)");
        return java.util.Collections.unmodifiableMap(d);
    }

    private record Reader(Map<String, String> values) {
        String string(String name, String fallback) {
            return values.getOrDefault(name, fallback);
        }

        /** A setting with no default; an empty value counts as absent. */
        Optional<String> optional(String name) {
            return Optional.ofNullable(values.get(name)).filter(v -> !v.isBlank());
        }

        int integer(String name, int fallback, int min, int max) {
            return (int) longValue(name, fallback, min, max);
        }

        long longValue(String name, long fallback, long min, long max) {
            String raw = values.get(name);
            if (raw == null) {
                return fallback;
            }
            long value = parse(name, raw, Long::parseLong);
            if (value < min || value > max) {
                throw WeftException.badRequest("setting " + name + " must be between " + min + " and " + max);
            }
            return value;
        }

        private static <T> T parse(String name, String raw, Function<String, T> parser) {
            try {
                return parser.apply(raw.trim());
            } catch (RuntimeException e) {
                throw WeftException.badRequest("setting " + name + " is not a number: " + raw);
            }
        }
    }
}
