package dev.weft.core;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
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
 * @param maxConnections       open HTTP connections accepted at once
 * @param idleTimeoutMs        an idle keep-alive connection is closed after this long
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
        int maxConnections,
        long idleTimeoutMs,
        int resultCacheEntries,
        int resultCacheMaxBytes,
        long streamRetentionEvents,
        long streamRetentionMs,
        int streamClientQueue,
        long streamHeartbeatMs,
        int streamDispatchQueue) {

    public static final Map<String, String> DESCRIPTIONS = descriptions();

    public static Settings defaults() {
        return parse(new String[0], Map.of());
    }

    /** Settings from command-line flags over environment variables over defaults. */
    public static Settings parse(String[] args, Map<String, String> env) {
        Map<String, String> values = new LinkedHashMap<>();
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
                r.integer("max-connections", 19_000, 1, Integer.MAX_VALUE),
                r.longValue("idle-timeout-ms", 30_000, 1, Long.MAX_VALUE),
                r.integer("result-cache-entries", 1024, 0, Integer.MAX_VALUE),
                r.integer("result-cache-max-bytes", 1 << 20, 0, Integer.MAX_VALUE),
                r.longValue("stream-retention-events", 1_000_000, 1, Long.MAX_VALUE),
                r.longValue("stream-retention-ms", 24L * 3600 * 1000, 1, Long.MAX_VALUE),
                r.integer("stream-client-queue", 1000, 1, 1_000_000),
                r.longValue("stream-heartbeat-ms", 15_000, 100, 3_600_000),
                r.integer("stream-dispatch-queue", 10_000, 1, 10_000_000));
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
        d.put("max-connections", "open HTTP connections accepted at once (19000)");
        d.put("idle-timeout-ms", "idle keep-alive connections close after this (30000)");
        d.put("result-cache-entries", "query results cached, invalidated by writes (1024)");
        d.put("result-cache-max-bytes", "largest single cached result (1 MiB)");
        d.put("stream-retention-events", "change events kept for resuming streams (1000000)");
        d.put("stream-retention-ms", "change events older than this are discarded (86400000 = 24 h)");
        d.put("stream-client-queue", "events queued per stream client before it is cut off (1000)");
        d.put("stream-heartbeat-ms", "WebSocket ping / SSE comment interval on streams (15000)");
        d.put("stream-dispatch-queue", "commits queued for the stream dispatcher before it reads the log (10000)");
        return java.util.Collections.unmodifiableMap(d);
    }

    private record Reader(Map<String, String> values) {
        String string(String name, String fallback) {
            return values.getOrDefault(name, fallback);
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
