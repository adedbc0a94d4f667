package dev.weft.observe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class MetricsTest {
    @Test
    void countsEachStatusOfARouteAndMethodApart() {
        Metrics m = new Metrics();
        m.observe("/{db}", "GET", 200, 1_000_000);
        m.observe("/{db}", "GET", 200, 2_000_000);
        m.observe("/{db}", "GET", 404, 1_000_000);
        m.observe("/{db}", "PUT", 201, 1_000_000);
        assertThat(m.render())
                .contains("weft_http_requests_total{route=\"/{db}\",method=\"GET\",status=\"200\"} 2\n")
                .contains("weft_http_requests_total{route=\"/{db}\",method=\"GET\",status=\"404\"} 1\n")
                .contains("weft_http_requests_total{route=\"/{db}\",method=\"PUT\",status=\"201\"} 1\n")
                .doesNotContain("status=\"500\"");
    }

    @Test
    void theHistogramIsCumulativeWithASumAndACount() {
        Metrics m = new Metrics();
        m.observe("/ping", "GET", 200, 3_000_000);        // 0.003 s: in every bucket
        m.observe("/ping", "GET", 200, 200_000_000);      // 0.2 s: from le=0.25 on
        m.observe("/ping", "GET", 500, 20_000_000_000L);  // 20 s: only in +Inf
        String labels = "route=\"/ping\",method=\"GET\"";
        assertThat(m.render())
                .contains("weft_http_request_duration_seconds_bucket{" + labels + ",le=\"0.005\"} 1\n")
                .contains("weft_http_request_duration_seconds_bucket{" + labels + ",le=\"0.1\"} 1\n")
                .contains("weft_http_request_duration_seconds_bucket{" + labels + ",le=\"0.25\"} 2\n")
                .contains("weft_http_request_duration_seconds_bucket{" + labels + ",le=\"10.0\"} 2\n")
                .contains("weft_http_request_duration_seconds_bucket{" + labels + ",le=\"+Inf\"} 3\n")
                .contains("weft_http_request_duration_seconds_count{" + labels + "} 3\n")
                .containsPattern("weft_http_request_duration_seconds_sum\\{" + Pattern.quote(labels) + "} 20\\.20\\d*\n");
    }

    @Test
    void aStatusOutsideHttpsRangeIsCountedNotLost() {
        Metrics m = new Metrics();
        m.observe("/ping", "GET", 999, 1);
        assertThat(m.render()).contains("weft_http_requests_total{route=\"/ping\",method=\"GET\",status=\"599\"} 1\n");
    }
}
