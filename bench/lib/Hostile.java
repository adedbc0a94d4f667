import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The attacks of {@code ./weft bench hostile}, one per run, against a Weft on 127.0.0.1:
 * {@code java Hostile.java ATTACK PORT AUTHORIZATION MAX_CONNECTIONS}. Every request opens its own
 * connection (HTTP/1.1, {@code Connection: close}), as a new client would: a pooled keep-alive
 * connection opened before an attack would keep a slot and hide what a newcomer meets. While the
 * attack runs, a probe sends {@code GET /ping} and an authenticated {@code GET /hostile/c/probe}
 * every 100 ms. Prints one tab-separated row: attack, requests, refused (status:count), time to
 * answer (median / max ms), probes answered, probe max latency (ping / by id), heap after.
 */
public class Hostile {
    static final int REQUEST_TIMEOUT_MS = 15_000;
    static String authorization;
    static int port;

    record Answer(int status, long millis, String body) {}

    public static void main(String[] args) throws Exception {
        String attack = args[0];
        port = Integer.parseInt(args[1]);
        authorization = args[2];
        int maxConnections = Integer.parseInt(args[3]);
        Probe probe = new Probe();
        Thread probing = Thread.ofPlatform().start(probe);
        List<Answer> answers = switch (attack) {
            case "regex" -> regex();
            case "slow-headers" -> slowHeaders(maxConnections, 30_000);
            case "number-1e999" -> concurrently(4, 20, i -> post("{\"_id\":\"inf" + i + "\",\"n\":1e999}"));
            case "number-400-digits" -> concurrently(4, 20, i -> post("{\"_id\":\"big" + i + "\",\"n\":" + "9".repeat(400) + "}"));
            case "number-filter-sort" -> concurrently(4, 20, i -> i % 2 == 0
                    ? get("/hostile/c?filter=" + enc("{\"n\":{\"$gt\":0}}"))
                    : get("/hostile/c?sort=" + enc("{\"n\":1}")));
            default -> throw new IllegalArgumentException("unknown attack " + attack);
        };
        probe.stop.set(true);
        probing.join();
        System.out.println(String.join("\t", attack, String.valueOf(answers.size()), statuses(answers),
                times(answers), probe.answered.get() + "/" + probe.sent.get(),
                probe.pingMax.get() + " / " + probe.byIdMax.get(), heap()));
    }

    interface Request {
        Answer send(int i) throws IOException;
    }

    /** {@code clients} threads, each sending {@code each} requests one after another; at most 90 s in all. */
    static List<Answer> concurrently(int clients, int each, Request request) throws InterruptedException {
        List<Answer> answers = Collections.synchronizedList(new ArrayList<>());
        long deadline = System.nanoTime() + 90_000_000_000L;
        AtomicInteger next = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            threads.add(Thread.ofPlatform().start(() -> {
                for (int k = 0; k < each && System.nanoTime() < deadline; k++) {
                    int i = next.getAndIncrement();
                    long start = System.nanoTime();
                    try {
                        answers.add(request.send(i));
                    } catch (IOException e) {
                        answers.add(new Answer(-1, (System.nanoTime() - start) / 1_000_000, e.toString()));
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        return answers;
    }

    static List<Answer> regex() throws InterruptedException {
        String filter = "{\"a\":{\"$regex\":\"((((a{100}){100}){100}){100})\"}}";
        return concurrently(4, 20, i -> get("/hostile/c?filter=" + enc(filter)));
    }

    /**
     * {@code slots} clients each send a request line, then one header byte a second; when the
     * server answers or closes, the client starts over on a new connection, for {@code durationMs}.
     * An answer's time is from the connection's first byte to the server's answer (or close).
     */
    static List<Answer> slowHeaders(int slots, long durationMs) throws InterruptedException {
        List<Answer> answers = Collections.synchronizedList(new ArrayList<>());
        long end = System.nanoTime() + durationMs * 1_000_000;
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < slots; c++) {
            threads.add(Thread.ofPlatform().start(() -> {
                while (System.nanoTime() < end) {
                    long start = System.nanoTime();
                    try (Socket s = new Socket("127.0.0.1", port)) {
                        s.setSoTimeout(1000);
                        OutputStream out = s.getOutputStream();
                        out.write("GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                        InputStream in = s.getInputStream();
                        byte[] buf = new byte[4096];
                        while (System.nanoTime() < end) {
                            int n;
                            try {
                                n = in.read(buf);
                            } catch (java.net.SocketTimeoutException idle) {
                                out.write('a'); // the server said nothing this second: one more byte
                                out.flush();
                                continue;
                            }
                            long ms = (System.nanoTime() - start) / 1_000_000;
                            String head = n > 0 ? new String(buf, 0, n, StandardCharsets.ISO_8859_1) : "";
                            answers.add(new Answer(n > 0 ? status(head) : 0, ms, head));
                            break;
                        }
                    } catch (IOException e) {
                        answers.add(new Answer(0, (System.nanoTime() - start) / 1_000_000, e.toString()));
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        return answers;
    }

    static Answer post(String json) throws IOException {
        return send("POST", "/hostile/c", json, true);
    }

    static Answer get(String path) throws IOException {
        return send("GET", path, null, true);
    }

    /** One request on a new connection; an IOException when none came within the timeout (connect or read). */
    static Answer send(String method, String path, String body, boolean authenticated) throws IOException {
        long start = System.nanoTime();
        try (Socket s = new Socket()) {
            // a full accept backlog drops SYNs, and the kernel's retries would wait two minutes
            s.connect(new InetSocketAddress("127.0.0.1", port), REQUEST_TIMEOUT_MS);
            s.setSoTimeout(REQUEST_TIMEOUT_MS);
            byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
            StringBuilder head = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                    .append("Connection: close\r\n");
            if (authenticated) {
                head.append("Authorization: ").append(authorization).append("\r\n");
            }
            if (body != null) {
                head.append("Content-Type: application/json\r\nContent-Length: ").append(bytes.length).append("\r\n");
            }
            OutputStream out = s.getOutputStream();
            out.write(head.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.flush();
            String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new Answer(answer.isEmpty() ? 0 : status(answer), (System.nanoTime() - start) / 1_000_000, answer);
        }
    }

    static int status(String answer) {
        Matcher m = Pattern.compile("^HTTP/1\\.1 (\\d{3})").matcher(answer);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** Counts per status: -1 no answer in time, 0 closed without an answer. */
    static String statuses(List<Answer> answers) {
        Map<Integer, Integer> counts = new TreeMap<>();
        answers.forEach(a -> counts.merge(a.status, 1, Integer::sum));
        StringBuilder out = new StringBuilder();
        counts.forEach((status, n) -> out.append(out.isEmpty() ? "" : " ")
                .append(status == -1 ? "timeout" : status == 0 ? "closed" : status).append(':').append(n));
        return out.toString();
    }

    static String times(List<Answer> answers) {
        List<Long> ms = answers.stream().map(Answer::millis).sorted().toList();
        return ms.isEmpty() ? "-" : ms.get(ms.size() / 2) + " / " + ms.getLast();
    }

    static String heap() {
        try {
            Matcher m = Pattern.compile("\nweft_jvm_heap_used_bytes (\\d+)\n").matcher(get("/metrics").body());
            return m.find() ? (Long.parseLong(m.group(1)) >> 20) + " MiB" : "n/a";
        } catch (IOException e) {
            return "n/a (" + e.getMessage() + ")";
        }
    }

    /** GET /ping and an authenticated GET by id every 100 ms, each on a new connection. */
    static final class Probe implements Runnable {
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicInteger sent = new AtomicInteger();
        final AtomicInteger answered = new AtomicInteger();
        final AtomicLong pingMax = new AtomicLong();
        final AtomicLong byIdMax = new AtomicLong();
        final ConcurrentLinkedQueue<Thread> inFlight = new ConcurrentLinkedQueue<>();

        @Override
        public void run() {
            while (!stop.get()) {
                inFlight.add(Thread.ofVirtual().start(() -> probe("/ping", false, pingMax)));
                inFlight.add(Thread.ofVirtual().start(() -> probe("/hostile/c/probe", true, byIdMax)));
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
            for (Thread t : inFlight) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        void probe(String path, boolean authenticated, AtomicLong max) {
            sent.incrementAndGet();
            long start = System.nanoTime();
            try {
                Answer a = send("GET", path, null, authenticated);
                if (a.status == 200) {
                    answered.incrementAndGet();
                }
            } catch (IOException e) {
                // not answered: counted by sent - answered
            }
            max.accumulateAndGet((System.nanoTime() - start) / 1_000_000, Math::max);
        }
    }
}
