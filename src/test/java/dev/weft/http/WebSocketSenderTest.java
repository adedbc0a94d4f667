package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.stream.EventFrame;
import java.nio.ByteBuffer;
import java.nio.channels.WritePendingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.util.Jetty;
import org.junit.jupiter.api.Test;

/** The WebSocket writer: which one start-up picks, and the bound on unsent frames. */
class WebSocketSenderTest {

    /**
     * Pins the Jetty version: {@link CoreSessionSender} uses Jetty internals written against one
     * version. When the pom moves to another, this fails, so that someone checks the internals
     * (enqueueFrame, OutgoingEntry, the flusher letting go of an entry before its callback) and
     * then moves {@link CoreSessionSender#WRITTEN_FOR}; until then start-up uses the public API.
     */
    @Test
    void theJettyInUseIsThePomsAndTheOneTheInternalWriterWasWrittenFor() throws Exception {
        Matcher m = Pattern.compile("<jetty.version>([^<]+)</jetty.version>").matcher(Files.readString(Path.of("pom.xml")));
        assertThat(m.find()).isTrue();
        assertThat(Jetty.VERSION).isEqualTo(m.group(1));
        assertThat(CoreSessionSender.WRITTEN_FOR).isEqualTo(Jetty.VERSION);
        assertThat(CoreSessionSender.internalsPresent()).isTrue();
    }

    @Test
    void startUpPicksTheInternalWriterOnItsJettyAndThePublicOneWhenForced() {
        String before = System.getProperty(WebSocketSender.Kind.PROPERTY);
        try {
            System.clearProperty(WebSocketSender.Kind.PROPERTY);
            assertThat(WebSocketSender.Kind.atStartup()).isEqualTo(WebSocketSender.Kind.CORE);
            System.setProperty(WebSocketSender.Kind.PROPERTY, "api");
            assertThat(WebSocketSender.Kind.atStartup()).isEqualTo(WebSocketSender.Kind.API);
        } finally {
            if (before == null) {
                System.clearProperty(WebSocketSender.Kind.PROPERTY);
            } else {
                System.setProperty(WebSocketSender.Kind.PROPERTY, before);
            }
        }
    }

    /** A writer whose writes complete only when the test says so (a client that does not read). */
    private static final class Stalled extends WebSocketSender {
        final List<Consumer<Throwable>> pending = new ArrayList<>();

        Stalled(int max) {
            super(max);
        }

        @Override
        void write(EventFrame frame, Consumer<Throwable> done) {
            pending.add(failure -> written(done, failure));
        }

        @Override
        void pong(java.nio.ByteBuffer payload) {
        }

        @Override
        void close(int code, String reason) {
        }
    }

    @Test
    void aWritePastMaxOutgoingFramesFailsAtOnceAndAFinishedWriteMakesRoom() {
        Stalled sender = new Stalled(3);
        AtomicReference<Throwable> refused = new AtomicReference<>();
        List<Throwable> results = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            sender.send(EventFrame.heartbeat(), results::add);
        }
        assertThat(results).isEmpty();
        assertThat(sender.outgoing()).isEqualTo(3);
        sender.send(EventFrame.heartbeat(), refused::set);
        assertThat(refused.get()).isInstanceOf(WritePendingException.class);
        assertThat(sender.outgoing()).isEqualTo(3);
        assertThat(sender.pending).hasSize(3);

        sender.pending.getFirst().accept(null);
        assertThat(results).containsExactly((Throwable) null);
        assertThat(sender.outgoing()).isEqualTo(2);
        refused.set(null);
        sender.send(EventFrame.heartbeat(), refused::set);
        assertThat(refused.get()).isNull();
        assertThat(sender.pending).hasSize(4);
        assertThat(sender.outgoing()).isEqualTo(3);
    }

    /** RFC 6455 section 5.5: a control frame carries 125 bytes at most; the reason is cut before a character that does not fit. */
    @Test
    void theCloseFrameCarriesTheCodeAndTheReasonCutToWholeCharactersIn123Bytes() {
        ByteBuffer shortOne = CoreSessionSender.closeFrame(1013, "slow consumer");
        assertThat(shortOne.get(0) & 0xff).isEqualTo(0x88); // FIN, opcode 8
        assertThat(shortOne.get(1)).isEqualTo((byte) (2 + 13));
        assertThat(shortOne.getShort(2)).isEqualTo((short) 1013);
        assertThat(StandardCharsets.UTF_8.decode(shortOne.slice(4, 13)).toString()).isEqualTo("slow consumer");

        ByteBuffer longOne = CoreSessionSender.closeFrame(1008, "\u00e9".repeat(100)); // 200 bytes of 2-byte characters
        assertThat(longOne.get(1)).isEqualTo((byte) (2 + 122)); // 61 whole characters: the 62nd would need byte 124
        assertThat(longOne.getShort(2)).isEqualTo((short) 1008);
        assertThat(StandardCharsets.UTF_8.decode(longOne.slice(4, 122)).toString()).isEqualTo("\u00e9".repeat(61));
    }
}
