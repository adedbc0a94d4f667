-- Appended first to every wrk script of Weft's benchmarks: prints one machine-readable line.
-- Latencies in microseconds from wrk; printed in milliseconds.
function weft_report(summary, latency, extra)
   local e = summary.errors
   local secs = summary.duration / 1e6
   io.write(string.format(
      "WRKRESULT requests=%d seconds=%.3f rps=%.1f p50_ms=%.3f p99_ms=%.3f mean_ms=%.3f " ..
      "err_connect=%d err_read=%d err_write=%d err_timeout=%d non2xx=%d %s\n",
      summary.requests, secs, summary.requests / secs,
      latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.mean / 1000,
      e.connect, e.read, e.write, e.timeout, e.status, extra or ""))
end

function done(summary, latency, requests)
   weft_report(summary, latency)
end
