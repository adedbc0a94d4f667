// Load client for ./weft bench streams, on JDK 25 with no dependency beyond the JDK. It reads
// sockets through epoll(7) by the FFM API and takes their descriptors from java.nio, so it needs
//   javac --add-exports java.base/sun.nio.ch=ALL-UNNAMED
//   java --add-exports java.base/sun.nio.ch=ALL-UNNAMED --enable-native-access=ALL-UNNAMED StreamLoad MODE ...
//
//   ws    URL COUNT EXPECTED DEADLINE_S HISTOGRAM_FILE [THREADS [WARMUP]]
//         opens COUNT WebSockets on URL (ws://host:port/db/coll/_streams?...), prints
//         "ready OK FAILED" once every one is open or has failed, then records for every text
//         message two latencies, in histograms of 100 us buckets: now - fullDocument.sentAt
//         (microseconds since the epoch, written by the writer just before it sends the POST) and
//         now - wallTime (the event's commit time, whole milliseconds); stops when every socket
//         has EXPECTED messages or was closed, or at DEADLINE_S seconds after ready, writes the
//         histograms ("bucket count" lines from sentAt, "c bucket count" lines from wallTime, then
//         "# received N first_us F last_us L ...", with the process's CPU: cpu_ms over its life,
//         run_user_ticks and run_sys_ticks since ready, then per document "e i count min max
//         commit_min commit_max late": its receipts, least and greatest latency from sentAt,
//         least and greatest from the commit, in us, and its receipts more than 250 ms after
//         the commit) and prints "done ...". With WARMUP, the documents whose i is below it are
//         the warm-up writes: a socket waits for WARMUP + EXPECTED messages, and the warm-up ones
//         go to histograms of their own ("w bucket count", "wc bucket count", "# ... warm_received
//         N"), out of the counts, the first and last receipt and the two main histograms; it
//         prints "warm N" once every open socket has had them.
//   write URL[,URL...] RATE DURATION_S [FIRST_I COUNT]
//         after a few GETs of each URL that warm this JVM's HTTP client, POSTs
//         {"sentAt": <epoch us>, "i": k} RATE times a second for DURATION_S seconds, on a fixed
//         schedule, write k to URL number k mod the count (round robin over the nodes of
//         bench streams --nodes); prints "wrote N errors E first_us F". With FIRST_I and COUNT:
//         COUNT documents at RATE, numbered (k) from FIRST_I (the warm-up writes, then the rest).
//
// Environment: WEFT_AUTH, the Authorization header value for every request and upgrade.
//
// The WebSocket client is deliberately lean, so that the benchmark measures Weft and not its
// client on the same two cores: THREADS (1) threads per process, each owning a share of the
// sockets; per socket only a few fields and, between reads, the bytes of an incomplete frame. A
// thread opens its sockets on a java.nio selector (a few handshakes at a time), then, once none
// is left connecting, reads them through an edge-triggered epoll of its own called through the
// FFM API: per ready socket one read(2) straight into the thread's byte array (a second only if
// the first filled it), with no selected-key set, no per-key lookup and no second poll of each
// socket as level-triggered epoll makes (at 18,000 clients in 4 processes, 6.8 -> 6.0 us of
// client CPU per notification; one process for all of them, 4.3). It speaks the client side of RFC 6455 that this load needs: the HTTP/1.1 upgrade
// (Sec-WebSocket-Key, Authorization), a 101 check with Sec-WebSocket-Accept, unmasked server
// frames (text and continuation, ping answered by a masked pong, close answered by a masked
// close), no extensions. Text payloads are scanned as bytes for "sentAt": and "wallTime", not
// decoded. While messages arrive, a thread naps NAP (1 ms) between polls (epoll without waiting)
// instead of sleeping in epoll_wait: on loopback the server's send would otherwise also pay for
// waking the client thread for nearly every message, a cost that lands on the client's machine
// on a real network; the nap can only add to the measured latency (at most about 1 ms). Idle, a
// thread waits in epoll as usual, so the first message of a burst wakes it at once.
// The receipt time is taken once per poll: every frame it returns has arrived by then. Sockets
// close with SO_LINGER 0 (a reset, no TIME_WAIT), so successive runs do not run out of ports.
//
// The two latencies: sentAt is taken before the request leaves the writer, so that figure counts
// the whole path (HTTP, commit, dispatch, fan-out, delivery) and can only overstate Weft's
// latency; wallTime is stamped by Weft in the write's transaction just before COMMIT, so that
// one is commit to receipt (plus up to 1 ms, being whole milliseconds). Writer and clients run on
// the same machine and read the same clock.
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

public class StreamLoad {
    static final int BUCKET_US = 100;
    static final int BUCKETS = 600_000; // 60 s; later latencies land in the last bucket
    static final int HANDSHAKES_IN_FLIGHT = 200; // per process, shared by its threads
    static final Duration NAP = Duration.ofMillis(1); // between polls while messages arrive
    static final String AUTH = System.getenv().getOrDefault("WEFT_AUTH", "");
    static final byte[] SENT_AT = "\"sentAt\":".getBytes(StandardCharsets.US_ASCII);
    static final byte[] WALL_TIME = "\"wallTime\":{\"$date\":".getBytes(StandardCharsets.US_ASCII);
    static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

    static long nowMicros() {
        Instant i = Instant.now();
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1_000;
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "ws" -> subscribers(URI.create(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]),
                    Integer.parseInt(args[4]), Path.of(args[5]), args.length > 6 ? Integer.parseInt(args[6]) : 1,
                    args.length > 7 ? Integer.parseInt(args[7]) : 0);
            case "write" -> writer(Arrays.stream(args[1].split(",")).map(URI::create).toList(),
                    Double.parseDouble(args[2]), Integer.parseInt(args[3]),
                    args.length > 5 ? Long.parseLong(args[4]) : 0, args.length > 5 ? Long.parseLong(args[5]) : -1);
            default -> throw new IllegalArgumentException("mode ws or write");
        }
        System.exit(0);
    }

    static final AtomicLongArray HIST = new AtomicLongArray(BUCKETS); // from sentAt
    static final AtomicLongArray COMMIT_HIST = new AtomicLongArray(BUCKETS); // from the event's wallTime
    static final AtomicLong RECEIVED = new AtomicLong();
    // The warm-up writes' receipts (documents with i below WARMUP), apart from the measured ones.
    static final AtomicLongArray WARM_HIST = new AtomicLongArray(BUCKETS);
    static final AtomicLongArray WARM_COMMIT_HIST = new AtomicLongArray(BUCKETS);
    static final AtomicLong WARM_RECEIVED = new AtomicLong();
    static int WARMUP;
    static final AtomicLong FIRST = new AtomicLong(Long.MAX_VALUE);
    static final AtomicLong LAST = new AtomicLong();
    static final AtomicInteger OPEN = new AtomicInteger();
    static final AtomicInteger FAILED = new AtomicInteger();
    static final AtomicInteger CLOSED = new AtomicInteger(); // closed by the server or the network while open
    static final AtomicInteger FINISHED = new AtomicInteger(); // sockets with nothing more to wait for
    static final List<String> ERRORS = new ArrayList<>();

    static void fail(String why) {
        FAILED.incrementAndGet();
        FINISHED.incrementAndGet();
        synchronized (ERRORS) {
            if (ERRORS.size() < 3) ERRORS.add(why);
        }
    }

    /** One WebSocket: its channel, where its handshake stands, and the bytes of an unfinished frame. */
    static final class Conn {
        final SocketChannel ch;
        final String accept;
        SelectionKey key; // while on the java.nio selector (connecting); null once read through epoll
        int fd = -1; // once read through epoll
        ByteBuffer out; // what is left to write (the upgrade request, a pong, a close)
        byte[] rest = EMPTY; // bytes read but not yet parsed (an incomplete frame or header)
        byte[] message; // the payload so far of a fragmented text message
        boolean open, done, closed;
        int count;

        Conn(SocketChannel ch, String accept) {
            this.ch = ch;
            this.accept = accept;
        }
    }

    static final byte[] EMPTY = new byte[0];

    // epoll(7) through the FFM API, for the receiving phase: see the file comment.
    static final Linker LINKER = Linker.nativeLinker();
    static final MethodHandle EPOLL_CREATE1 = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("epoll_create1"),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    static final MethodHandle EPOLL_CTL = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("epoll_ctl"),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    static final MethodHandle EPOLL_WAIT = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("epoll_wait"),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    // read(2) on a non-blocking socket never waits: a critical call, straight into the byte[] it is given.
    static final MethodHandle READ = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("read"),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG),
            Linker.Option.critical(true));
    static final MethodHandle CLOSE = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("close"),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    static final int EPOLLIN = 0x1, EPOLLERR = 0x8, EPOLLHUP = 0x10, EPOLLRDHUP = 0x2000, EPOLLET = 1 << 31, EPOLL_CTL_ADD = 1;
    // struct epoll_event {uint32_t events; uint64_t data;}, packed on x86-64 only
    static final boolean PACKED = System.getProperty("os.arch").matches("amd64|x86_64");
    static final int EVENT_SIZE = PACKED ? 12 : 16, DATA_OFFSET = PACKED ? 4 : 8, MAX_EVENTS = 1024;

    /**
     * A client thread: opens its share of the sockets, a few at a time, on a java.nio selector;
     * once none is left connecting, reads them all through its own edge-triggered epoll.
     */
    static final class Loop implements Runnable {
        final Selector selector;
        final InetSocketAddress address;
        final String target, host;
        final int share, expected, window;
        final ByteBuffer buf = ByteBuffer.allocateDirect(1 << 16);
        byte[] scratch = new byte[1 << 16];
        final List<Conn> conns = new ArrayList<>();
        int started, connecting;
        volatile boolean stop;

        Loop(URI uri, int share, int expected, int window) throws IOException {
            this.selector = Selector.open();
            this.address = new InetSocketAddress(uri.getHost(), uri.getPort());
            this.host = uri.getHost() + ":" + uri.getPort();
            this.target = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
            this.share = share;
            this.expected = expected;
            this.window = window;
        }

        @Override
        public void run() {
            try {
                connectAll();
                receive();
            } catch (Throwable e) {
                if (!stop) throw new RuntimeException(e);
            }
        }

        /** Opens the share, {@code window} handshakes at a time, until every socket is open or failed. */
        void connectAll() throws IOException {
            while (!stop && (started < share || connecting > 0)) {
                while (started < share && connecting < window) {
                    start();
                }
                selector.select(100);
                long now = nowMicros();
                for (SelectionKey k : selector.selectedKeys()) {
                    Conn c = (Conn) k.attachment();
                    try {
                        if (k.isValid() && k.isConnectable()) connected(c);
                        if (k.isValid() && k.isWritable()) flush(c);
                        if (k.isValid() && k.isReadable()) read(c, now);
                    } catch (IOException e) {
                        lost(c, String.valueOf(e));
                    }
                }
                selector.selectedKeys().clear();
            }
            selector.close(); // deregisters the channels; they stay open and non-blocking
        }

        /**
         * Reads every open socket through an edge-triggered epoll of this thread: per ready socket
         * one read(2) into the thread's buffer, a second only if the first filled it (a short read
         * leaves a stream socket drained, epoll(7)). While messages arrive it naps between polls.
         */
        void receive() throws Throwable {
            List<Conn> live = new ArrayList<>();
            int epfd = (int) EPOLL_CREATE1.invokeExact(0);
            if (epfd < 0) throw new IOException("epoll_create1 failed");
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment events = arena.allocate((long) EVENT_SIZE * MAX_EVENTS, 8);
                for (Conn c : conns) {
                    if (!c.open || c.closed) continue;
                    c.key = null;
                    c.fd = ((sun.nio.ch.SelChImpl) c.ch).getFDVal();
                    events.set(ValueLayout.JAVA_INT_UNALIGNED, 0, EPOLLIN | EPOLLRDHUP | EPOLLET);
                    events.set(ValueLayout.JAVA_LONG_UNALIGNED, DATA_OFFSET, live.size());
                    if ((int) EPOLL_CTL.invokeExact(epfd, EPOLL_CTL_ADD, c.fd, events) != 0) {
                        throw new IOException("epoll_ctl failed");
                    }
                    live.add(c);
                }
                Conn[] byIndex = live.toArray(new Conn[0]);
                boolean busy = false;
                while (!stop) {
                    if (busy) Thread.sleep(NAP);
                    int n = (int) EPOLL_WAIT.invokeExact(epfd, events, MAX_EVENTS, busy ? 0 : 100);
                    busy = n > 0;
                    if (!busy) continue; // nothing, or EINTR
                    long now = nowMicros();
                    for (int i = 0; i < n; i++) {
                        long at = (long) i * EVENT_SIZE;
                        int flags = events.get(ValueLayout.JAVA_INT_UNALIGNED, at);
                        Conn c = byIndex[(int) events.get(ValueLayout.JAVA_LONG_UNALIGNED, at + DATA_OFFSET)];
                        if (c.closed) continue;
                        try {
                            drain(c, flags, now);
                        } catch (IOException e) {
                            lost(c, String.valueOf(e));
                        }
                    }
                }
            } finally {
                int ignored = (int) CLOSE.invokeExact(epfd);
            }
        }

        void drain(Conn c, int flags, long now) throws Throwable {
            flush(c); // a pong or close left unwritten
            while (!c.closed) {
                int kept = c.rest.length;
                if (scratch.length - kept < (1 << 16)) scratch = Arrays.copyOf(scratch, kept + (1 << 16));
                System.arraycopy(c.rest, 0, scratch, 0, kept);
                int room = scratch.length - kept;
                long n = (long) READ.invokeExact(c.fd, MemorySegment.ofArray(scratch).asSlice(kept), (long) room);
                if (n == 0) {
                    lost(c, "connection closed by the server");
                } else if (n < 0) { // EAGAIN, unless epoll said the socket failed
                    if ((flags & (EPOLLERR | EPOLLHUP)) != 0) lost(c, "socket error or hang-up");
                    return;
                } else {
                    int len = kept + (int) n;
                    int at = frames(c, scratch, 0, len, now);
                    c.rest = at == len ? EMPTY : Arrays.copyOfRange(scratch, at, len);
                    if (n < room) return;
                }
            }
        }

        void start() {
            started++;
            connecting++;
            try {
                SocketChannel ch = SocketChannel.open();
                ch.setOption(StandardSocketOptions.SO_LINGER, 0);
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ch.configureBlocking(false);
                byte[] nonce = new byte[16];
                ThreadLocalRandom.current().nextBytes(nonce);
                String key = Base64.getEncoder().encodeToString(nonce);
                Conn c = new Conn(ch, Base64.getEncoder().encodeToString(
                        MessageDigest.getInstance("SHA-1").digest((key + GUID).getBytes(StandardCharsets.US_ASCII))));
                c.out = ByteBuffer.wrap(("GET " + target + " HTTP/1.1\r\nHost: " + host
                        + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key
                        + "\r\nSec-WebSocket-Version: 13\r\n"
                        + (AUTH.isEmpty() ? "" : "Authorization: " + AUTH + "\r\n") + "\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
                conns.add(c);
                c.key = ch.register(selector, SelectionKey.OP_CONNECT, c);
                if (ch.connect(address)) connected(c);
            } catch (Exception e) {
                connecting--;
                fail(String.valueOf(e));
            }
        }

        void connected(Conn c) throws IOException {
            c.ch.finishConnect();
            c.key.interestOps(SelectionKey.OP_READ);
            flush(c);
        }

        /** Writes what is left of c.out; on the selector, asks to be told when more can be written. */
        void flush(Conn c) throws IOException {
            if (c.out == null) return;
            c.ch.write(c.out);
            if (!c.out.hasRemaining()) c.out = null;
            if (c.key != null) c.key.interestOps(c.out == null ? SelectionKey.OP_READ : SelectionKey.OP_READ | SelectionKey.OP_WRITE);
            // on epoll (a control frame of a few bytes into an empty send buffer), a rest is retried at the next read
        }

        void send(Conn c, byte[] frame) throws IOException {
            if (c.out == null) {
                c.out = ByteBuffer.wrap(frame);
            } else { // rare: something still unwritten; append
                ByteBuffer both = ByteBuffer.allocate(c.out.remaining() + frame.length);
                both.put(c.out).put(frame).flip();
                c.out = both;
            }
            flush(c);
        }

        /** On the selector (the handshake): reads what arrived and parses the 101 and any frames after it. */
        void read(Conn c, long now) throws IOException {
            buf.clear();
            int n = c.ch.read(buf);
            if (n < 0) {
                lost(c, "connection closed by the server");
                return;
            }
            int len = c.rest.length + n;
            if (scratch.length < len) scratch = Arrays.copyOf(scratch, Math.max(len, scratch.length * 2));
            System.arraycopy(c.rest, 0, scratch, 0, c.rest.length);
            buf.flip();
            buf.get(scratch, c.rest.length, n);
            int at = 0;
            if (!c.open) {
                at = handshake(c, scratch, len);
                if (at < 0) return; // incomplete (kept in rest) or failed
            }
            at = frames(c, scratch, at, len, now);
            c.rest = at == len ? EMPTY : Arrays.copyOfRange(scratch, at, len);
        }

        /** Parses the 101 response; returns where the frames start, or -1. */
        int handshake(Conn c, byte[] b, int len) throws IOException {
            int end = -1;
            for (int i = 3; i < len; i++) {
                if (b[i] == '\n' && b[i - 1] == '\r' && b[i - 2] == '\n' && b[i - 3] == '\r') {
                    end = i + 1;
                    break;
                }
            }
            if (end < 0) {
                if (len > 16384) {
                    refuse(c, new String(b, 0, Math.min(len, 200), StandardCharsets.ISO_8859_1));
                } else {
                    c.rest = Arrays.copyOf(b, len);
                }
                return -1;
            }
            String head = new String(b, 0, end, StandardCharsets.ISO_8859_1);
            if (!head.startsWith("HTTP/1.1 101") || !head.toLowerCase().contains("sec-websocket-accept: " + c.accept.toLowerCase())) {
                refuse(c, (head.lines().findFirst().orElse("") + " "
                        + new String(b, end, Math.min(len - end, 200), StandardCharsets.UTF_8)).strip());
                return -1;
            }
            c.open = true;
            connecting--;
            OPEN.incrementAndGet();
            if (expected == 0) finish(c);
            return end;
        }

        void refuse(Conn c, String why) throws IOException {
            connecting--;
            c.done = true;
            c.closed = true;
            c.key.cancel();
            c.ch.close();
            fail("status " + why);
        }

        /** Parses the complete frames in b[at, len); returns where the first incomplete one starts. */
        int frames(Conn c, byte[] b, int at, int len, long now) throws IOException {
            while (len - at >= 2) {
                int b0 = b[at] & 0xff, b1 = b[at + 1] & 0xff;
                int head = 2;
                long size = b1 & 0x7f;
                if (size == 126) {
                    if (len - at < 4) break;
                    size = ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
                    head = 4;
                } else if (size == 127) {
                    if (len - at < 10) break;
                    size = 0;
                    for (int i = 2; i < 10; i++) size = (size << 8) | (b[at + i] & 0xff);
                    head = 10;
                }
                if ((b1 & 0x80) != 0) throw new IOException("masked frame from the server");
                if (len - at - head < size) break;
                int from = at + head, to = (int) (from + size);
                boolean fin = (b0 & 0x80) != 0;
                switch (b0 & 0x0f) {
                    case 0x1, 0x0 -> text(c, b, from, to, fin, (b0 & 0x0f) == 0x0, now);
                    case 0x9 -> send(c, control(0xA, b, from, to)); // ping: pong with the same payload
                    case 0xA -> { } // pong
                    case 0x8 -> { // close: answer it and go
                        send(c, control(0x8, b, from, Math.min(to, from + 2)));
                        lost(c, null);
                        return len;
                    }
                    default -> throw new IOException("unexpected opcode " + (b0 & 0x0f));
                }
                at = to;
            }
            return at;
        }

        void text(Conn c, byte[] b, int from, int to, boolean fin, boolean continuation, long now) {
            if (!fin || continuation) { // fragmented: gather the message, rare
                byte[] m = c.message == null ? EMPTY : c.message;
                byte[] all = Arrays.copyOf(m, m.length + (to - from));
                System.arraycopy(b, from, all, m.length, to - from);
                if (!fin) {
                    c.message = all;
                    return;
                }
                c.message = null;
                b = all;
                from = 0;
                to = all.length;
            }
            long sent = number(b, from, to, SENT_AT);
            if (sent < 0) return;
            long lat = Math.max(0, now - sent);
            long wall = number(b, from, to, WALL_TIME);
            long fromCommit = wall < 0 ? -1 : Math.max(0, now - wall * 1000);
            long i = byEvent(b, from, to, lat, fromCommit);
            if (++c.count == expected) finish(c);
            if (i >= 0 && i < WARMUP) {
                WARM_HIST.incrementAndGet((int) Math.min(BUCKETS - 1, lat / BUCKET_US));
                if (fromCommit >= 0) WARM_COMMIT_HIST.incrementAndGet((int) Math.min(BUCKETS - 1, fromCommit / BUCKET_US));
                WARM_RECEIVED.incrementAndGet();
                return;
            }
            HIST.incrementAndGet((int) Math.min(BUCKETS - 1, lat / BUCKET_US));
            if (fromCommit >= 0) COMMIT_HIST.incrementAndGet((int) Math.min(BUCKETS - 1, fromCommit / BUCKET_US));
            RECEIVED.incrementAndGet();
            FIRST.accumulateAndGet(now, Math::min);
            LAST.accumulateAndGet(now, Math::max);
        }

        void finish(Conn c) {
            if (!c.done) {
                c.done = true;
                FINISHED.incrementAndGet();
            }
        }

        /** A connection that ended: a handshake that failed, or an open stream the server or network closed. */
        void lost(Conn c, String why) throws IOException {
            if (!c.open) {
                connecting--;
                c.done = true;
                fail(why);
            } else if (!c.done) {
                CLOSED.incrementAndGet();
                finish(c);
            }
            c.closed = true;
            if (c.key != null) c.key.cancel();
            c.ch.close();
        }

        /** After the thread stopped ({@link #stop}, then joined): closes every socket. */
        void closeAll() {
            for (Conn c : conns) {
                try {
                    c.ch.close();
                } catch (IOException ignored) {
                }
            }
        }
    }

    /** The value of the first {@code name} (a quoted key and a colon) in b[from, to), or -1. */
    static long number(byte[] b, int from, int to, byte[] name) {
        outer:
        for (int i = from; i <= to - name.length; i++) {
            for (int j = 0; j < name.length; j++) {
                if (b[i + j] != name[j]) continue outer;
            }
            long v = 0;
            int p = i + name.length;
            if (p >= to || b[p] < '0' || b[p] > '9') return -1;
            while (p < to && b[p] >= '0' && b[p] <= '9') v = v * 10 + (b[p++] - '0');
            return v;
        }
        return -1;
    }

    // Per written document (its "i"): how many receipts, the least and the greatest latency from
    // sentAt, the least and the greatest from the commit (us), and how many receipts came more
    // than 250 ms after the commit, written after the histograms as
    // "e i count min max commit_min commit_max late": the first receipt tells the time for the
    // event to reach the node and its first socket, the spread the fan-out's time, late which
    // documents make the commit-to-receipt p99.
    static final long[][] BY_EVENT = new long[100_000][];
    static final byte[] I = "\"i\":".getBytes(StandardCharsets.US_ASCII);

    /** Records one receipt of the document; returns its i, or -1. */
    static synchronized long byEvent(byte[] b, int from, int to, long lat, long fromCommit) {
        long i = number(b, from, to, I);
        if (i < 0 || i >= BY_EVENT.length) return -1;
        long[] e = BY_EVENT[(int) i];
        if (e == null) BY_EVENT[(int) i] = e = new long[] {0, Long.MAX_VALUE, 0, Long.MAX_VALUE, -1, 0};
        e[0]++;
        e[1] = Math.min(e[1], lat);
        e[2] = Math.max(e[2], lat);
        if (fromCommit >= 0) {
            e[3] = Math.min(e[3], fromCommit);
            e[4] = Math.max(e[4], fromCommit);
            if (fromCommit > 250_000) e[5]++;
        }
        return i;
    }

    /** A masked client control frame (pong or close) with the given payload. */
    static byte[] control(int opcode, byte[] b, int from, int to) {
        int n = to - from;
        byte[] f = new byte[6 + n];
        f[0] = (byte) (0x80 | opcode);
        f[1] = (byte) (0x80 | n);
        byte[] mask = new byte[4];
        ThreadLocalRandom.current().nextBytes(mask);
        System.arraycopy(mask, 0, f, 2, 4);
        for (int i = 0; i < n; i++) f[6 + i] = (byte) (b[from + i] ^ mask[i & 3]);
        return f;
    }

    static void subscribers(URI uri, int count, int expected, int deadlineS, Path out, int threads, int warmup) throws Exception {
        WARMUP = warmup;
        expected += warmup;
        List<Loop> loops = new ArrayList<>();
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int share = count / threads + (t < count % threads ? 1 : 0);
            Loop loop = new Loop(uri, share, expected, Math.max(1, HANDSHAKES_IN_FLIGHT / threads));
            loops.add(loop);
            running.add(Thread.ofPlatform().name("ws-" + t).daemon(true).start(loop));
        }
        long connectDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (OPEN.get() + FAILED.get() < count && System.nanoTime() < connectDeadline) {
            Thread.sleep(20);
        }
        int open = OPEN.get(), failed = count - open;
        synchronized (ERRORS) {
            if (!ERRORS.isEmpty()) System.err.println("streamload: " + failed + " failed, e.g. " + ERRORS);
        }
        long[] cpu0 = cpuTicks();
        System.out.println("ready " + open + " " + failed);
        System.out.flush();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(deadlineS);
        boolean warm = warmup == 0;
        while (FINISHED.get() < count && System.nanoTime() < deadline) {
            if (!warm && WARM_RECEIVED.get() >= (long) open * warmup) {
                warm = true; // every open socket has had every warm-up write: the bench starts measuring
                System.out.println("warm " + WARM_RECEIVED.get());
                System.out.flush();
            }
            Thread.sleep(20);
        }
        boolean all = FINISHED.get() >= count;
        for (Loop loop : loops) {
            loop.stop = true;
            loop.selector.wakeup(); // a no-op once the selector is closed
        }
        for (Thread t : running) {
            t.join(2000); // the epoll loop looks at stop at least every 100 ms
        }
        loops.forEach(Loop::closeAll);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < BUCKETS; i++) {
            long c = HIST.get(i);
            if (c > 0) sb.append(i).append(' ').append(c).append('\n');
        }
        for (int i = 0; i < BUCKETS; i++) {
            long c = COMMIT_HIST.get(i);
            if (c > 0) sb.append("c ").append(i).append(' ').append(c).append('\n');
        }
        for (int i = 0; i < BUCKETS; i++) {
            long c = WARM_HIST.get(i);
            if (c > 0) sb.append("w ").append(i).append(' ').append(c).append('\n');
        }
        for (int i = 0; i < BUCKETS; i++) {
            long c = WARM_COMMIT_HIST.get(i);
            if (c > 0) sb.append("wc ").append(i).append(' ').append(c).append('\n');
        }
        sb.append("# received ").append(RECEIVED.get()).append(" warm_received ").append(WARM_RECEIVED.get()).append(" first_us ").append(FIRST.get())
                .append(" last_us ").append(LAST.get()).append(" open ").append(open)
                .append(" failed ").append(failed).append(" closed ").append(CLOSED.get()).append(" cpu_ms ")
                .append(ProcessHandle.current().info().totalCpuDuration().map(Duration::toMillis).orElse(-1L));
        long[] cpu1 = cpuTicks();
        sb.append(" run_user_ticks ").append(cpu1[0] - cpu0[0]).append(" run_sys_ticks ").append(cpu1[1] - cpu0[1]).append('\n');
        for (int i = 0; i < BY_EVENT.length; i++) {
            long[] e = BY_EVENT[i];
            if (e != null) {
                sb.append("e ").append(i).append(' ').append(e[0]).append(' ').append(e[1]).append(' ').append(e[2])
                        .append(' ').append(e[3] == Long.MAX_VALUE ? -1 : e[3]).append(' ').append(e[4]).append(' ').append(e[5]).append('\n');
            }
        }
        Files.writeString(out, sb);
        System.out.println("done received=" + RECEIVED.get() + " closed=" + CLOSED.get() + " complete=" + all);
    }

    /** This process's user and system CPU time so far, in clock ticks (/proc/self/stat). */
    static long[] cpuTicks() throws IOException {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return new long[] {Long.parseLong(f[11]), Long.parseLong(f[12])}; // fields 14 and 15
    }

    static void writer(List<URI> uris, double rate, int durationS, long firstI, long count) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        // Warm this JVM's HTTP client (class loading, the connections) with a few reads first:
        // its first request costs a cold JVM some 100 ms, which is the writer's, not Weft's.
        for (URI uri : uris) {
            for (int k = 0; k < 5; k++) {
                var warm = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET();
                if (!AUTH.isEmpty()) warm.header("Authorization", AUTH);
                http.send(warm.build(), HttpResponse.BodyHandlers.discarding());
            }
        }
        long total = count >= 0 ? count : Math.round(rate * durationS);
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
            long i = firstI + k;
            var b = HttpRequest.newBuilder(uris.get((int) (i % uris.size()))).timeout(Duration.ofSeconds(10))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"sentAt\":" + sent + ",\"i\":" + i + "}"));
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
