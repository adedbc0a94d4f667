// Load client for ./weft bench faults (issue 17, item 3), on JDK 25 with nothing beyond the JDK.
//   java bench/lib/FaultLoad.java NODES CLIENTS RATE DURATION_S DRAIN_S EVENTS_FILE
// NODES: comma-separated base URLs of the Weft nodes (http://127.0.0.1:P1,...). Environment:
// WEFT_AUTH, the Authorization header value of every request.
//
// - Writer: PUT /faults/docs/<k> {"k": k} (an upsert: a retry after an unanswered or failed PUT
//   is harmless; ?wm=upsert) for k = 1, 2, ... at RATE a second, each to the next node in turn; a PUT that
//   fails (503, a refused connection, a timeout) is retried on the next node until it is
//   answered 200/201. The write is "acknowledged" only then. An outage is the time from the
//   first failed attempt (503, a timeout) to the next success; a node that refuses connections
//   (killed) is skipped at once and counted apart.
// - Stream clients: CLIENTS SSE streams (GET /faults/docs/_streams, Accept: text/event-stream),
//   client c on node c mod N, each a virtual thread reading a plain socket (see Client). Each records the k of every insert event and its token (the SSE
//   id). When its stream ends or fails it reconnects to the next node with Last-Event-ID set to
//   the last token it received, and again to the next until one answers 200; the reconnect time
//   is from the failure to that 200.
// - Reader: GET ?readMode=outdated of a known document, every 100 ms, on each node in turn;
//   counts answers that are not 200 (outdated reads must fall back to the primary when the
//   replica is away).
// Marks the start of each fault in EVENTS_FILE lines "<name> <epoch ms>" written by the script,
// and reports, after DURATION_S of writes and DRAIN_S for the streams to catch up:
// acknowledged writes, lost writes (acknowledged but absent from the primary afterwards), per
// client gaps (an acknowledged k not received) and duplicates (an event, by its token, received
// twice), the order of
// tokens, the writer's outages and the clients' reconnect times.
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class FaultLoad {
    static final Pattern K = Pattern.compile("\"fullDocument\":\\{[^}]*\"k\":(\\d+)");
    static final Pattern CLOSE_CODE = Pattern.compile("\"code\":\\s*(\\d+)");
    /** Streams the server ended with an SSE close event, by its code (1013 slow, 1011 replay failed...). */
    static final java.util.Map<String, Long> ENDED_BY_SERVER = new ConcurrentHashMap<>();
    static String[] nodes;
    static String auth;
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    static final AtomicBoolean stopping = new AtomicBoolean();

    public static void main(String[] args) throws Exception {
        nodes = args[0].split(",");
        int clients = Integer.parseInt(args[1]);
        double rate = Double.parseDouble(args[2]);
        int duration = Integer.parseInt(args[3]);
        int drain = Integer.parseInt(args[4]);
        Path events = Path.of(args[5]);
        auth = System.getenv("WEFT_AUTH");

        List<Client> all = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            Client client = new Client(c % nodes.length);
            all.add(client);
            Thread.ofVirtual().start(client::run);
        }
        long readyBy = System.currentTimeMillis() + 60_000;
        while (all.stream().anyMatch(c -> !c.connected) && System.currentTimeMillis() < readyBy) {
            Thread.sleep(100);
        }
        System.out.println("ready " + all.stream().filter(c -> c.connected).count() + " of " + clients);
        Files.writeString(events, "start " + System.currentTimeMillis() + "\n");

        Reader reader = new Reader();
        Thread readerThread = Thread.ofVirtual().start(reader::run);
        Writer writer = new Writer();
        writer.run(rate, duration);
        long lastK = writer.acked.size();
        long drainUntil = System.currentTimeMillis() + drain * 1000L;
        while (System.currentTimeMillis() < drainUntil && all.stream().anyMatch(c -> c.highest < lastK)) {
            Thread.sleep(200);
        }
        stopping.set(true);
        readerThread.interrupt();

        long lost = lostWrites(writer.acked);
        long gaps = 0, dups = 0, unordered = 0, clientsWithGaps = 0;
        List<Long> reconnects = new ArrayList<>();
        for (Client c : all) {
            long g = 0;
            for (long k : writer.acked) {
                if (!c.saw(k)) {
                    g++;
                }
            }
            gaps += g;
            clientsWithGaps += g > 0 ? 1 : 0;
            dups += c.duplicates.get();
            unordered += c.unordered.get();
            reconnects.addAll(c.reconnectMs);
        }
        reconnects.sort(null);
        System.out.println("faults: " + Files.readString(events).trim().replace('\n', ';'));
        System.out.printf("writes acknowledged %d, lost %d; attempts answered 503 or failed %d, refused by a node that was down %d%n",
                writer.acked.size(), lost, writer.failures.get(), writer.refused.get());
        System.out.printf("writer outages (first failed attempt to the next acknowledged write): %s ms%n", writer.outages);
        System.out.printf("stream clients %d: gaps %d (clients with a gap %d), duplicates %d, tokens out of order %d%n",
                all.size(), gaps, clientsWithGaps, dups, unordered);
        System.out.printf("reconnects %d: p50 %s ms, p99 %s ms, max %s ms; streams ended by the server (close event, by code): %s%n",
                reconnects.size(), pct(reconnects, 50), pct(reconnects, 99), reconnects.isEmpty() ? "-" : reconnects.getLast(),
                ENDED_BY_SERVER);
        System.out.printf("outdated reads %d, not 200 %d%n", reader.reads.get(), reader.failures.get());
        System.exit(0);
    }

    static String pct(List<Long> sorted, int p) {
        return sorted.isEmpty() ? "-" : Long.toString(sorted.get(Math.min(sorted.size() - 1, sorted.size() * p / 100)));
    }

    static HttpRequest.Builder request(String url) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
        return auth == null ? b : b.header("Authorization", auth);
    }

    /** Acknowledged writes whose document the primary does not have, read through any node that answers. */
    static long lostWrites(Set<Long> acked) throws InterruptedException {
        long lost = 0;
        for (long k : acked) {
            int status = -1;
            for (int attempt = 0; attempt < 30 && status != 200 && status != 404; attempt++) {
                try {
                    status = HTTP.send(request(nodes[(int) (k + attempt) % nodes.length] + "/faults/docs/" + k).GET().build(),
                            HttpResponse.BodyHandlers.discarding()).statusCode();
                } catch (Exception e) {
                    Thread.sleep(100);
                }
            }
            if (status != 200) {
                lost++;
            }
        }
        return lost;
    }

    static final class Writer {
        final Set<Long> acked = ConcurrentHashMap.newKeySet();
        final AtomicLong failures = new AtomicLong();
        final AtomicLong refused = new AtomicLong();
        final List<Long> outages = new CopyOnWriteArrayList<>();
        int node;

        void run(double rate, int seconds) throws InterruptedException {
            long intervalNs = (long) (1e9 / rate);
            long start = System.nanoTime();
            long end = start + seconds * 1_000_000_000L;
            long k = 0;
            long failingSince = 0;
            while (System.nanoTime() < end) {
                k++;
                long due = start + k * intervalNs;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                int refusedInARow = 0;
                while (true) {
                    node = (node + 1) % nodes.length;
                    int status;
                    try {
                        status = HTTP.send(request(nodes[node] + "/faults/docs/" + k + "?wm=upsert")
                                        .header("Content-Type", "application/json")
                                        .PUT(HttpRequest.BodyPublishers.ofString("{\"k\":" + k + "}")).build(),
                                HttpResponse.BodyHandlers.discarding()).statusCode();
                    } catch (java.net.ConnectException e) {
                        // a node that is down: the next node at once (an outage is of the database, not of one node)
                        refused.incrementAndGet();
                        if (++refusedInARow < nodes.length) {
                            continue;
                        }
                        status = -1;
                    } catch (Exception e) {
                        status = -1;
                    }
                    if (status == 200 || status == 201) {
                        acked.add(k);
                        if (failingSince != 0) {
                            outages.add(System.currentTimeMillis() - failingSince);
                            failingSince = 0;
                        }
                        break;
                    }
                    refusedInARow = 0;
                    failures.incrementAndGet();
                    if (failingSince == 0) {
                        failingSince = System.currentTimeMillis();
                    }
                    Thread.sleep(50);
                }
            }
        }
    }

    static final class Reader {
        final AtomicLong reads = new AtomicLong();
        final AtomicLong failures = new AtomicLong();

        void run() {
            int node = 0;
            while (!stopping.get()) {
                node = (node + 1) % nodes.length;
                try {
                    Thread.sleep(100);
                    int status = HTTP.send(request(nodes[node] + "/faults/docs/0?readMode=outdated").GET().build(),
                            HttpResponse.BodyHandlers.discarding()).statusCode();
                    reads.incrementAndGet();
                    if (status != 200) {
                        failures.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    // a node killed on purpose refuses connections: not an outdated read's failure
                }
            }
        }
    }

    /**
     * One SSE stream client on a virtual thread, on a plain socket (java.net.http costs several
     * times Weft's CPU per event at thousands of streams): the request by hand, the chunked body
     * undone by {@link Chunked}, lines read as bytes. Tokens are 16 hex digits, so what it has
     * seen is kept in bit sets (event seqs and k), a few hundred bytes per client.
     */
    static final class Client {
        final BitSet seen = new BitSet();
        final BitSet tokens = new BitSet();
        final AtomicLong duplicates = new AtomicLong();
        final AtomicLong unordered = new AtomicLong();
        final List<Long> reconnectMs = new ArrayList<>();
        volatile boolean connected;
        volatile long highest;
        String token;
        long lastSeq = -1;
        int node;

        Client(int node) {
            this.node = node;
        }

        synchronized boolean saw(long k) {
            return seen.get((int) k);
        }

        void run() {
            long failedAt = 0;
            while (!stopping.get()) {
                URI uri = URI.create(nodes[node]);
                try (Socket socket = new Socket()) {
                    socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 2000);
                    socket.setSoTimeout(30_000); // heartbeats come every stream-heartbeat-ms
                    OutputStream out = socket.getOutputStream();
                    out.write(("GET /faults/docs/_streams HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                            + "\r\nAccept: text/event-stream\r\n" + (auth == null ? "" : "Authorization: " + auth + "\r\n")
                            + (token == null ? "" : "Last-Event-ID: " + token + "\r\n") + "\r\n")
                            .getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                    InputStream in = new Buffered(socket.getInputStream());
                    String status = line(in);
                    boolean chunked = false;
                    for (String h = line(in); h != null && !h.isEmpty(); h = line(in)) {
                        chunked |= h.toLowerCase().startsWith("transfer-encoding:") && h.toLowerCase().contains("chunked");
                    }
                    if (status != null && status.startsWith("HTTP/1.1 200")) {
                        connected = true;
                        if (failedAt != 0) {
                            reconnectMs.add(System.currentTimeMillis() - failedAt);
                        }
                        failedAt = 0;
                        read(chunked ? new Chunked(in) : in);
                    }
                } catch (Exception e) {
                    // the node is down or went away: the next one
                }
                if (stopping.get()) {
                    return;
                }
                if (failedAt == 0) {
                    failedAt = System.currentTimeMillis();
                }
                node = (node + 1) % nodes.length;
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        /** SSE: an event's fields up to a blank line; a {@code close} event (no id) is the server ending the stream. */
        void read(InputStream body) throws Exception {
            String line;
            String id = null;
            boolean close = false;
            while ((line = line(body)) != null && !stopping.get()) {
                if (line.isEmpty()) {
                    id = null;
                    close = false;
                } else if (line.startsWith("event:")) {
                    close = line.substring(6).trim().equals("close");
                } else if (line.startsWith("id:")) {
                    id = line.substring(3).trim();
                } else if (close && line.startsWith("data:")) {
                    Matcher code = CLOSE_CODE.matcher(line);
                    ENDED_BY_SERVER.merge(code.find() ? code.group(1) : "?", 1L, Long::sum);
                } else if (line.startsWith("data:")) {
                    Matcher m = K.matcher(line);
                    synchronized (this) {
                        if (id != null) {
                            long seq = Long.parseUnsignedLong(id, 16);
                            if (tokens.get((int) seq)) {
                                duplicates.incrementAndGet();
                            } else if (seq < lastSeq) {
                                unordered.incrementAndGet();
                            }
                            tokens.set((int) seq);
                            lastSeq = seq;
                            token = id;
                        }
                        if (m.find()) {
                            long k = Long.parseLong(m.group(1));
                            seen.set((int) k);
                            highest = Math.max(highest, k);
                        }
                    }
                }
            }
        }
    }

    /** A line of ASCII/UTF-8 bytes without its CR LF, or null at the end of the stream. */
    static String line(InputStream in) throws java.io.IOException {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream(128);
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            if (c != '\r') {
                b.write(c);
            }
        }
        return c < 0 && b.size() == 0 ? null : b.toString(StandardCharsets.UTF_8);
    }

    /** A buffered stream without the lock of BufferedInputStream's read() (read a byte at a time here). */
    static final class Buffered extends InputStream {
        final InputStream in;
        final byte[] buf = new byte[8192];
        int pos, lim;

        Buffered(InputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws java.io.IOException {
            if (pos == lim) {
                lim = in.read(buf, 0, buf.length);
                pos = 0;
                if (lim <= 0) {
                    lim = 0;
                    return -1;
                }
            }
            return buf[pos++] & 0xff;
        }
    }

    /** The body of a chunked HTTP/1.1 response (Weft's SSE answers). */
    static final class Chunked extends InputStream {
        final InputStream in;
        long left;
        boolean end;

        Chunked(InputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws java.io.IOException {
            while (left == 0) {
                if (end) {
                    return -1;
                }
                String size = line(in);
                if (size == null) {
                    return -1;
                }
                if (size.isEmpty()) {
                    continue; // the CR LF after a chunk's data
                }
                int semi = size.indexOf(';');
                left = Long.parseLong((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
                if (left == 0) {
                    end = true;
                }
            }
            int c = in.read();
            if (c >= 0) {
                left--;
            }
            return c;
        }
    }
}
