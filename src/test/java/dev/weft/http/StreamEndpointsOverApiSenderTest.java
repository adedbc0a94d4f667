package dev.weft.http;

import org.junit.jupiter.api.BeforeAll;

/**
 * Every test of {@link StreamEndpointsTest}, on a server whose WebSocket frames are written
 * through Jetty's public API ({@link ApiSessionSender}), the fallback start-up picks on another
 * Jetty version: the fallback must deliver the same events, in the same order, with the same
 * closes.
 */
class StreamEndpointsOverApiSenderTest extends StreamEndpointsTest {

    @BeforeAll
    static void start() throws Exception { // hides StreamEndpointsTest.start
        weft = SlowWebSocketReaderTest.serverWith(WebSocketSender.Kind.API);
        weft.createCollection("db", "s");
    }
}
