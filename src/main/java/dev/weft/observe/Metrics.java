package dev.weft.observe;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The one observation channel for request outcomes: a counter per (route, method, status) and a
 * latency histogram per (route, method), rendered in Prometheus text format. Routes are the
 * route table's templates (e.g. {@code /{db}/{coll}}), never raw paths, so the number of series
 * is bounded by the table, not by clients. Other parts register their own counters
 * ({@link #counter}), which are rendered after these.
 */
public final class Metrics {
    /** Upper bounds in seconds, Prometheus' default buckets. */
    private static final double[] BUCKETS = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

    /**
     * Every request is observed, so the lookup allocates nothing once a (route, method) has been
     * seen: the key is a record of the two strings the caller already holds, and the status
     * counters are an array indexed by status.
     */
    private record Key(String route, String method) {}

    private final Map<Key, Series> series = new ConcurrentHashMap<>();
    private final Map<String, Counter> counters = new java.util.concurrent.ConcurrentSkipListMap<>();

    /** A counter kept elsewhere (by the part that counts), rendered with the request metrics. */
    private record Counter(String help, String type, LongSupplier value) {}

    public Metrics() {
        gauge("weft_jvm_heap_used_bytes", "Java heap in use (live objects and garbage not yet collected).",
                () -> ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }

    /** Renders {@code value} as the Prometheus counter {@code name}. */
    public void counter(String name, String help, LongSupplier value) {
        counters.put(name, new Counter(help, "counter", value));
    }

    /** Renders {@code value} as the Prometheus gauge {@code name}. */
    public void gauge(String name, String help, LongSupplier value) {
        counters.put(name, new Counter(help, "gauge", value));
    }

    public void observe(String route, String method, int status, long nanos) {
        Key key = new Key(route, method);
        Series s = series.get(key);
        if (s == null) {
            s = series.computeIfAbsent(key, Series::new);
        }
        s.record(status, nanos);
    }

    public String render() {
        StringBuilder out = new StringBuilder(4096);
        out.append("# HELP weft_http_requests_total HTTP requests by route, method and status.\n");
        out.append("# TYPE weft_http_requests_total counter\n");
        series.values().forEach(s -> s.renderCounts(out));
        out.append("# HELP weft_http_request_duration_seconds HTTP request latency by route and method.\n");
        out.append("# TYPE weft_http_request_duration_seconds histogram\n");
        series.values().forEach(s -> s.latency.render(s.labels, out));
        counters.forEach((name, c) -> out.append("# HELP ").append(name).append(' ').append(c.help()).append('\n')
                .append("# TYPE ").append(name).append(' ').append(c.type()).append('\n')
                .append(name).append(' ').append(c.value().getAsLong()).append('\n'));
        return out.toString();
    }

    /** One (route, method): its latency histogram and a counter per status (HTTP's 100-599). */
    private static final class Series {
        private static final int FIRST_STATUS = 100;
        private static final int LAST_STATUS = 599;

        private final String labels;
        private final Histogram latency = new Histogram();
        private final AtomicReferenceArray<LongAdder> byStatus = new AtomicReferenceArray<>(LAST_STATUS - FIRST_STATUS + 1);

        Series(Key key) {
            this.labels = "route=\"" + key.route() + "\",method=\"" + key.method() + "\"";
        }

        void record(int status, long nanos) {
            // Jetty sends no status outside 100-599; one would count as 599 rather than be lost.
            int i = Math.clamp(status, FIRST_STATUS, LAST_STATUS) - FIRST_STATUS;
            LongAdder count = byStatus.get(i);
            if (count == null) {
                byStatus.compareAndSet(i, null, new LongAdder());
                count = byStatus.get(i);
            }
            count.increment();
            latency.record(nanos / 1e9);
        }

        void renderCounts(StringBuilder out) {
            for (int i = 0; i < byStatus.length(); i++) {
                LongAdder count = byStatus.get(i);
                if (count != null) {
                    out.append("weft_http_requests_total{").append(labels).append(",status=\"").append(i + FIRST_STATUS)
                            .append("\"} ").append(count.sum()).append('\n');
                }
            }
        }
    }

    private static final class Histogram {
        private final LongAdder[] counts = new LongAdder[BUCKETS.length + 1];
        private final java.util.concurrent.atomic.DoubleAdder sum = new java.util.concurrent.atomic.DoubleAdder();

        Histogram() {
            for (int i = 0; i < counts.length; i++) {
                counts[i] = new LongAdder();
            }
        }

        void record(double seconds) {
            int i = 0;
            while (i < BUCKETS.length && seconds > BUCKETS[i]) {
                i++;
            }
            counts[i].increment();
            sum.add(seconds);
        }

        void render(String labels, StringBuilder out) {
            long cumulative = 0;
            String name = "weft_http_request_duration_seconds";
            for (int i = 0; i < BUCKETS.length; i++) {
                cumulative += counts[i].sum();
                out.append(name).append("_bucket{").append(labels).append(",le=\"").append(BUCKETS[i]).append("\"} ")
                        .append(cumulative).append('\n');
            }
            cumulative += counts[BUCKETS.length].sum();
            out.append(name).append("_bucket{").append(labels).append(",le=\"+Inf\"} ").append(cumulative).append('\n');
            out.append(name).append("_sum{").append(labels).append("} ").append(sum.sum()).append('\n');
            out.append(name).append("_count{").append(labels).append("} ").append(cumulative).append('\n');
        }
    }
}
