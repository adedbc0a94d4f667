package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class PingAndMetricsTest {
    static TestServer weft;

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    @Test
    void pingAnswers() throws Exception {
        HttpResponse<String> r = weft.get("/ping");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
    }

    @Test
    void metricsCountRequestsPerRouteWithLatencyHistograms() throws Exception {
        weft.get("/ping");
        weft.get("/ping");
        weft.get("/nodb");
        // a request is counted once its answer is written, which the client may see first
        HttpResponse<String> r = weft.get("/metrics");
        for (int i = 0; i < 100 && !r.body().contains("route=\"/{db}\""); i++) {
            Thread.sleep(20);
            r = weft.get("/metrics");
        }
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
        assertThat(r.body())
                .containsPattern("weft_http_requests_total\\{route=\"/ping\",method=\"GET\",status=\"200\"} [2-9]")
                .contains("weft_http_requests_total{route=\"/{db}\",method=\"GET\",status=\"404\"} 1")
                .contains("weft_http_request_duration_seconds_bucket{route=\"/ping\",method=\"GET\",le=\"+Inf\"}")
                .contains("weft_http_request_duration_seconds_count{route=\"/ping\",method=\"GET\"}");
    }
}
