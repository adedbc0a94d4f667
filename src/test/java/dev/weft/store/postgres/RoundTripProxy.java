package dev.weft.store.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in front of the test PostgreSQL that counts round trips: on each connection, a
 * round trip begins whenever the client sends after the server answered everything it had asked
 * (one ReadyForQuery per Sync or Query message). It reads the server's
 * ReadyForQuery messages to know where each transaction ends, so a test can ask how many round
 * trips each transaction that wrote a document table took. The store must connect with
 * {@code sslmode=disable} (the server's stream is then framed from its first byte) and
 * {@code prepareThreshold=0} (every statement's text is sent, so transactions can be told apart).
 */
final class RoundTripProxy implements AutoCloseable {
    /** One transaction: its round trips and the statement texts the client sent in it. */
    record Transaction(int roundTrips, String sent) {}

    private final ServerSocket server;
    private final String host;
    private final int port;
    private final List<Link> links = new CopyOnWriteArrayList<>();

    RoundTripProxy(String pgUrl) throws IOException {
        URI uri = URI.create(pgUrl.replaceFirst("^postgresql:", "http:"));
        this.host = uri.getHost();
        this.port = uri.getPort();
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(this::accept);
    }

    /** The store URL of {@code schema} through this proxy. */
    String url(String schema) {
        String base = PgTesting.baseUrl();
        URI uri = URI.create(base.replaceFirst("^postgresql:", "http:"));
        return "postgresql://" + (uri.getUserInfo() == null ? "" : uri.getUserInfo() + "@") + "127.0.0.1:" + server.getLocalPort()
                + uri.getPath() + "?currentSchema=" + schema + "&sslmode=disable&prepareThreshold=0";
    }

    /** Forgets what was counted so far (transactions under way are counted from their next round trip). */
    void reset() {
        links.forEach(Link::reset);
    }

    /** The finished transactions, on every connection, whose statements match {@code regex}. */
    List<Transaction> transactions(String regex) {
        List<Transaction> out = new ArrayList<>();
        java.util.regex.Pattern p = java.util.regex.Pattern.compile(regex);
        for (Link l : links) {
            for (Transaction t : l.finished()) {
                if (p.matcher(t.sent()).find()) {
                    out.add(t);
                }
            }
        }
        return out;
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(host, port);
                // Relayed messages are written as they are read; Nagle's delay against the
                // peer's delayed ACK would add ~40 ms to every round trip.
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                Link link = new Link();
                links.add(link);
                Thread.ofVirtual().start(() -> pump(client, upstream, link));
                Thread.ofVirtual().start(() -> answers(upstream, client, link));
            } catch (IOException e) {
                return;
            }
        }
    }

    /** Receives each message of one direction: its type and body. */
    private interface Messages {
        void message(char type, byte[] body);
    }

    /** The client's messages: an untyped startup message, then type, length, body. */
    private static void pump(Socket from, Socket to, Link link) {
        relay(from, to, true, (type, body) -> link.sent(type, new String(body, StandardCharsets.ISO_8859_1)));
    }

    /** The server's messages, read for ReadyForQuery. */
    private static void answers(Socket from, Socket to, Link link) {
        relay(from, to, false, (type, body) -> {
            if (type == 'Z') {
                link.ready((char) body[0]);
            }
        });
    }

    private static void relay(Socket from, Socket to, boolean startup, Messages messages) {
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            if (startup) {
                byte[] startLength = in.readNBytes(4);
                out.write(startLength);
                out.write(in.readNBytes(int32(startLength, 0) - 4));
                out.flush();
            }
            byte[] header = new byte[5];
            while (in.readNBytes(header, 0, 5) == 5) {
                int length = int32(header, 1);
                byte[] body = in.readNBytes(length - 4);
                if (body.length < length - 4) {
                    return;
                }
                messages.message((char) header[0], body);
                out.write(header);
                out.write(body);
                out.flush();
            }
        } catch (IOException ignored) {
            // the connection ended
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static int int32(byte[] b, int at) {
        return ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing either way
        }
    }

    /**
     * One client connection: its current transaction and the finished ones. A round trip begins
     * when the client sends after a request it waits on (a Sync, or a Query) was answered, with
     * every earlier request answered too. pgjdbc sends BEGIN as a Query and goes on at once
     * without waiting for it, so that one Query does not end a round trip.
     */
    private static final class Link {
        private final List<Transaction> finished = new ArrayList<>();
        private int unanswered;
        private boolean waited = true;
        private int roundTrips;
        private StringBuilder sent = new StringBuilder();

        synchronized void sent(char type, String body) {
            if (waited && unanswered == 0 && type != 'X') {
                roundTrips++;
                sent.append("\n--- round trip ").append(roundTrips).append(" ---\n");
            }
            waited = false;
            if (type == 'S' || type == 'Q') {
                unanswered++;
                waited = !(type == 'Q' && body.startsWith("BEGIN"));
            }
            sent.append(type).append(body);
        }

        /** ReadyForQuery: a request is answered; status 'I' with nothing outstanding ends the transaction. */
        synchronized void ready(char status) {
            unanswered = Math.max(0, unanswered - 1);
            if (status == 'I' && unanswered == 0) {
                finished.add(new Transaction(roundTrips, sent.toString()));
                roundTrips = 0;
                sent = new StringBuilder();
            }
        }

        synchronized void reset() {
            finished.clear();
        }

        synchronized List<Transaction> finished() {
            return List.copyOf(finished);
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        links.clear();
    }
}
