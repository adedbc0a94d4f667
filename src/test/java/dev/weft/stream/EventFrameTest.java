package dev.weft.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The whole WebSocket frames an event is written as (RFC 6455 section 5.2, as a server sends them). */
class EventFrameTest {

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    private static byte[] header(int payloadLength) {
        byte[] json = new byte[payloadLength];
        Arrays.fill(json, (byte) 'x');
        byte[] frame = bytes(new EventFrame("t", json).webSocketText());
        assertThat(frame.length).isGreaterThan(payloadLength);
        assertThat(Arrays.copyOfRange(frame, frame.length - payloadLength, frame.length)).isEqualTo(json);
        return Arrays.copyOf(frame, frame.length - payloadLength);
    }

    @Test
    void theLengthTakesSevenSixteenOrSixtyFourBitsAsTheRfcSays() {
        assertThat(header(0)).containsExactly(0x81, 0);
        assertThat(header(125)).containsExactly(0x81, 125);
        assertThat(header(126)).containsExactly(0x81, 126, 0, 126);
        assertThat(header(65535)).containsExactly(0x81, 126, 0xff, 0xff);
        assertThat(header(65536)).containsExactly(0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0);
    }

    @Test
    void everyWriteGetsItsOwnPositionOverTheSameBytes() {
        EventFrame frame = new EventFrame("t", "{\"a\":1}".getBytes());
        ByteBuffer first = frame.webSocketText();
        first.position(first.limit()); // as a finished write leaves it
        assertThat(bytes(frame.webSocketText())).containsExactly(0x81, 7, '{', '"', 'a', '"', ':', '1', '}');
    }

    @Test
    void controlFramesCarryTheirOpcode() {
        assertThat(bytes(EventFrame.webSocketFrame(0x9, new byte[0]))).containsExactly(0x89, 0);
        assertThat(bytes(EventFrame.webSocketFrame(0xA, new byte[] {'p'}))).containsExactly(0x8A, 1, 'p');
    }

    @Test
    void aFrameWrittenManyTimesBecomesDirectWithTheSameBytes() {
        EventFrame frame = new EventFrame("t", "{\"a\":1}".getBytes());
        byte[] heap = bytes(frame.webSocketText());
        for (int i = 1; i < EventFrame.DIRECT_AFTER; i++) {
            assertThat(frame.webSocketText().isDirect()).isFalse();
        }
        ByteBuffer direct = frame.webSocketText();
        assertThat(direct.isDirect()).isTrue();
        assertThat(direct.isReadOnly()).isTrue();
        assertThat(bytes(direct)).isEqualTo(heap);
        assertThat(bytes(frame.webSocketText())).isEqualTo(heap); // its own position again
    }
}
