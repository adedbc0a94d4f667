// Load client for ./weft bench streams: run with JDK 25 as a single-file program
// (java bench/lib/StreamLoad.java MODE ...). No dependency beyond the JDK.
//
//   ws    URL COUNT EXPECTED DEADLINE_S HISTOGRAM_FILE
//         opens COUNT WebSockets on URL (ws://host:port/db/coll/_streams?...), prints
//         "ready OK FAILED" once all are open, then records for every text message the latency
//         now - fullDocument.sentAt (microseconds since the epoch, written by the writer just
//         before it sends the POST) into a histogram of 100 us buckets; stops when every socket
//         has EXPECTED messages or at DEADLINE_S seconds after ready, writes the histogram
//         ("bucket count" lines, then "# received N first_us F last_us L") and prints "done ...".
//   write URL RATE DURATION_S
//         POSTs {"sentAt": <epoch us>, "i": k} to URL RATE times a second for DURATION_S seconds,
//         on a fixed schedule; prints "wrote N errors E first_us F".
//
// Environment: WEFT_AUTH, the Authorization header value for every request and upgrade.
// Why sentAt and not the event's wallTime: sentAt is taken before the request leaves the writer,
// so the figure counts the whole path (HTTP, commit, dispatch, fan-out, delivery) and can only
// overstate Weft's latency; wallTime is set by Weft itself at commit and would hide the write.
// Writer and clients run on the same machine and read the same clock.
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

public class StreamLoad {
    static final int BUCKET_US = 100;
    static final int BUCKETS = 600_000; // 60 s; later latencies land in the last bucket
    static final String AUTH = System.getenv().getOrDefault("WEFT_AUTH", "");

    static long nowMicros() {
        Instant i = Instant.now();
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1_000;
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "ws" -> subscribers(URI.create(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]),
                    Integer.parseInt(args[4]), Path.of(args[5]));
            case "write" -> writer(URI.create(args[1]), Double.parseDouble(args[2]), Integer.parseInt(args[3]));
            default -> throw new IllegalArgumentException("mode ws or write");
        }
        System.exit(0);
    }

    static final AtomicLongArray HIST = new AtomicLongArray(BUCKETS);
    static final AtomicLong RECEIVED = new AtomicLong();
    static final AtomicLong FIRST = new AtomicLong(Long.MAX_VALUE);
    static final AtomicLong LAST = new AtomicLong();

    static final class Client implements WebSocket.Listener {
        final StringBuilder partial = new StringBuilder();
        final int expected;
        final CountDownLatch allDone;
        int count;

        Client(int expected, CountDownLatch allDone) {
            this.expected = expected;
            this.allDone = allDone;
        }

        @Override
        public void onOpen(WebSocket ws) {
            ws.request(1);
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            long now = nowMicros();
            partial.append(data);
            if (last) {
                String text = partial.toString();
                partial.setLength(0);
                int at = text.indexOf("\"sentAt\":");
                if (at >= 0) {
                    int from = at + 9, to = from;
                    while (to < text.length() && Character.isDigit(text.charAt(to))) to++;
                    long sent = Long.parseLong(text, from, to, 10);
                    long lat = Math.max(0, now - sent);
                    HIST.incrementAndGet((int) Math.min(BUCKETS - 1, lat / BUCKET_US));
                    RECEIVED.incrementAndGet();
                    FIRST.accumulateAndGet(now, Math::min);
                    LAST.accumulateAndGet(now, Math::max);
                    if (++count == expected) allDone.countDown();
                }
            }
            ws.request(1);
            return null;
        }
    }

    static void subscribers(URI uri, int count, int expected, int deadlineS, Path out) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
        CountDownLatch allDone = new CountDownLatch(count);
        Semaphore inFlight = new Semaphore(200);
        List<CompletableFuture<WebSocket>> opening = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            inFlight.acquire();
            var b = http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(30));
            if (!AUTH.isEmpty()) b.header("Authorization", AUTH);
            opening.add(b.buildAsync(uri, new Client(expected, allDone))
                    .whenComplete((ws, e) -> inFlight.release()));
        }
        List<WebSocket> open = new ArrayList<>();
        int failed = 0;
        for (var f : opening) {
            try {
                open.add(f.get(60, TimeUnit.SECONDS));
            } catch (Exception e) {
                failed++;
                allDone.countDown();
                Throwable c = e.getCause() == null ? e : e.getCause();
                String why = c instanceof java.net.http.WebSocketHandshakeException h
                        ? "status " + h.getResponse().statusCode() + " " + h.getResponse().body() : String.valueOf(c);
                if (errors.size() < 3) errors.add(why);
            }
        }
        if (!errors.isEmpty()) System.err.println("streamload: " + failed + " failed, e.g. " + errors);
        System.out.println("ready " + open.size() + " " + failed);
        System.out.flush();
        boolean all = allDone.await(deadlineS, TimeUnit.SECONDS);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < BUCKETS; i++) {
            long c = HIST.get(i);
            if (c > 0) sb.append(i).append(' ').append(c).append('\n');
        }
        sb.append("# received ").append(RECEIVED.get()).append(" first_us ").append(FIRST.get())
                .append(" last_us ").append(LAST.get()).append(" open ").append(open.size())
                .append(" failed ").append(failed).append(" cpu_ms ")
                .append(ProcessHandle.current().info().totalCpuDuration().map(Duration::toMillis).orElse(-1L)).append('\n');
        Files.writeString(out, sb);
        System.out.println("done received=" + RECEIVED.get() + " complete=" + all);
        for (WebSocket ws : open) ws.abort();
    }

    static void writer(URI uri, double rate, int durationS) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        long total = Math.round(rate * durationS);
        long periodNanos = (long) (1e9 / rate);
        long start = System.nanoTime();
        int errors = 0;
        long first = 0;
        for (long k = 0; k < total; k++) {
            long due = start + k * periodNanos;
            long wait = due - System.nanoTime();
            if (wait > 0) TimeUnit.NANOSECONDS.sleep(wait);
            long sent = nowMicros();
            if (k == 0) first = sent;
            var b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"sentAt\":" + sent + ",\"i\":" + k + "}"));
            if (!AUTH.isEmpty()) b.header("Authorization", AUTH);
            try {
                int status = http.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
                if (status != 201) errors++;
            } catch (Exception e) {
                errors++;
            }
        }
        System.out.println("wrote " + total + " errors " + errors + " first_us " + first);
    }
}
