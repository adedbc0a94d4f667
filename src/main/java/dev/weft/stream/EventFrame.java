package dev.weft.stream;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * One event as sent: its resume token and its JSON, rendered once and shared by every subscriber
 * that receives it unchanged (a WebSocket text frame's payload is the JSON bytes as they are);
 * the SSE form and the string form are derived lazily and cached. Immutable once built, except for those caches (a
 * benign race: it computes equal values), so any thread may write it.
 */
public final class EventFrame {
    static final EventFrame HEARTBEAT = new EventFrame("", new byte[0]);

    private final String token;
    private final byte[] json;
    private final ByteBuffer payload;
    // made at most a few times by the first subscribers' threads at once, and read by all: volatile,
    // so that no thread sees an array or buffer before its contents
    private volatile byte[] sse;
    private String text;
    private volatile ByteBuffer webSocketText;
    /** Writes of {@link #webSocketText} so far, counted only until it is made direct (benignly racy). */
    private int writes;
    /** Writes of one frame after which it is copied to a direct buffer ({@link #webSocketText}). */
    static final int DIRECT_AFTER = 16;

    EventFrame(String token, byte[] json) {
        this.token = token;
        this.json = json;
        this.payload = ByteBuffer.wrap(json).asReadOnlyBuffer();
    }

    /** The frame that asks the outlet for a heartbeat (a WebSocket ping, an SSE comment). */
    public static EventFrame heartbeat() {
        return HEARTBEAT;
    }

    public boolean isHeartbeat() {
        return this == HEARTBEAT;
    }

    /** The resume token (the {@code _data} of the event's {@code _id}). */
    public String token() {
        return token;
    }

    /** The event's JSON (callers must not modify the array). */
    public byte[] json() {
        return json;
    }

    /** The event's JSON as a read-only buffer of its own (a write moves its position), sharing the bytes. */
    public ByteBuffer payload() {
        return payload.duplicate();
    }

    /** The event's JSON as a string, for writers that take one (made once, shared like the bytes). */
    public String text() {
        String t = text;
        if (t == null) {
            t = new String(json, StandardCharsets.UTF_8);
            text = t;
        }
        return t;
    }

    /**
     * The whole WebSocket text frame as a server sends it (unmasked, final, no extension bits):
     * header then JSON, made once and shared by every WebSocket subscriber, so a write is one
     * buffer and one system call with nothing framed per client. Each call returns a buffer of
     * its own (a write moves its position). From the {@link #DIRECT_AFTER}th write on, the frame
     * is a direct buffer: the JDK writes a heap buffer by first copying it into a direct one of
     * its own, once per client; an event that reaches a few clients only is not worth the
     * direct allocation.
     */
    public ByteBuffer webSocketText() {
        ByteBuffer f = webSocketText;
        if (f == null) {
            f = webSocketFrame(0x1, json);
            webSocketText = f;
        } else if (!f.isDirect() && ++writes >= DIRECT_AFTER) { // a racy count: a lost update only delays the copy
            f = ByteBuffer.allocateDirect(f.remaining()).put(f.duplicate()).flip().asReadOnlyBuffer();
            webSocketText = f;
        }
        return f.duplicate();
    }

    /**
     * A whole unmasked WebSocket frame of {@code opcode} with FIN set: RFC 6455 section 5.2
     * (7-bit length, or 126 and 16 bits, or 127 and 64 bits). Read-only; on the heap, since
     * frames made for one subscriber (projections, stages) are as common as shared ones.
     */
    public static ByteBuffer webSocketFrame(int opcode, byte[] payload) {
        int n = payload.length;
        int header = n < 126 ? 2 : n < 65536 ? 4 : 10;
        ByteBuffer f = ByteBuffer.allocate(header + n);
        f.put((byte) (0x80 | opcode));
        if (n < 126) {
            f.put((byte) n);
        } else if (n < 65536) {
            f.put((byte) 126).putShort((short) n);
        } else {
            f.put((byte) 127).putLong(n);
        }
        return f.put(payload).flip().asReadOnlyBuffer();
    }

    /** The SSE form: {@code id: <token>}, {@code data: <json>}, blank line; a comment for a heartbeat. */
    public byte[] sse() {
        byte[] s = sse;
        if (s == null) {
            if (isHeartbeat()) {
                s = ": heartbeat\n\n".getBytes(StandardCharsets.US_ASCII);
            } else {
                byte[] head = ("id: " + token + "\ndata: ").getBytes(StandardCharsets.US_ASCII);
                s = new byte[head.length + json.length + 2];
                System.arraycopy(head, 0, s, 0, head.length);
                System.arraycopy(json, 0, s, head.length, json.length);
                s[s.length - 2] = '\n';
                s[s.length - 1] = '\n';
            }
            sse = s;
        }
        return s;
    }
}
