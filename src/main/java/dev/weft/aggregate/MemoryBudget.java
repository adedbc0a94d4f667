package dev.weft.aggregate;

import dev.weft.core.WeftException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import tools.jackson.databind.JsonNode;

/**
 * The memory one blocking stage ({@code $group}, {@code $sort}, {@code $facet}, {@code $bucket},
 * {@code $sample}, {@code $lookup}'s results) may hold: {@code aggregation-memory-bytes}, past
 * which the pipeline stops with MongoDB's "exceeded memory limit" as a 400 naming the setting.
 * Sizes are estimates of the Java objects kept, not of their JSON text. The partials of a stage
 * run over a scan read in parts share one budget (charged from several threads).
 */
final class MemoryBudget {
    static final String SETTING = "aggregation-memory-bytes";

    private final String stage;
    private final long limit;
    private final AtomicLong used = new AtomicLong();

    MemoryBudget(String stage, long limit) {
        this.stage = stage;
        this.limit = limit;
    }

    void charge(long bytes) {
        if (used.addAndGet(bytes) > limit) {
            throw WeftException.badRequest("exceeded memory limit: " + stage + " used more than " + limit
                    + " bytes (setting " + SETTING + "); filter earlier in the pipeline, use $limit, or ask the operator"
                    + " for a larger " + SETTING);
        }
    }

    /** The stage now holds {@code bytes} in all (what it held before was let go). */
    void holding(long bytes) {
        used.set(0);
        charge(bytes);
    }

    /** An estimate of the bytes a value holds in memory. */
    static long size(JsonNode v) {
        if (v == null) {
            return 0;
        }
        if (v.isString()) {
            return 48 + 2L * v.stringValue().length();
        }
        if (v.isArray()) {
            long total = 40;
            for (JsonNode e : v) {
                total += 8 + size(e);
            }
            return total;
        }
        if (v.isObject()) {
            long total = 64;
            for (Map.Entry<String, JsonNode> e : v.properties()) {
                total += 48 + 2L * e.getKey().length() + size(e.getValue());
            }
            return total;
        }
        return 24;
    }
}
