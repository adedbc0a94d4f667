package dev.weft.observe;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The one observation channel for request outcomes: a counter per (route, method, status) and a
 * latency histogram per (route, method), rendered in Prometheus text format. Routes are the
 * route table's templates (e.g. {@code /{db}/{coll}}), never raw paths, so the number of series
 * is bounded by the table, not by clients.
 */
public final class Metrics {
    /** Upper bounds in seconds, Prometheus' default buckets. */
    private static final double[] BUCKETS = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

    private final Map<String, LongAdder> requests = new ConcurrentHashMap<>();
    private final Map<String, Histogram> latencies = new ConcurrentHashMap<>();

    public void observe(String route, String method, int status, long nanos) {
        String series = "route=\"" + route + "\",method=\"" + method + "\"";
        requests.computeIfAbsent(series + ",status=\"" + status + "\"", k -> new LongAdder()).increment();
        latencies.computeIfAbsent(series, k -> new Histogram()).record(nanos / 1e9);
    }

    public String render() {
        StringBuilder out = new StringBuilder(4096);
        out.append("# HELP weft_http_requests_total HTTP requests by route, method and status.\n");
        out.append("# TYPE weft_http_requests_total counter\n");
        requests.forEach((labels, count) ->
                out.append("weft_http_requests_total{").append(labels).append("} ").append(count.sum()).append('\n'));
        out.append("# HELP weft_http_request_duration_seconds HTTP request latency by route and method.\n");
        out.append("# TYPE weft_http_request_duration_seconds histogram\n");
        latencies.forEach((labels, histogram) -> histogram.render(labels, out));
        return out.toString();
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
