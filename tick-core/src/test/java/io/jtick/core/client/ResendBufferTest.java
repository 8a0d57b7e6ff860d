package io.jtick.core.client;

import io.jtick.core.testing.LeakCheck;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.MessageType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ExtendWith(LeakCheck.class)
class ResendBufferTest {
    private static final int FRAME = FrameDescriptor.TABLE_NAME_OFFSET + 8;

    /** {@code n} minimal UPDATE frames of {@code FRAME} bytes each, in one buffer that fits them. */
    private static ByteBuf frames(final int n) {
        final ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(n * FRAME, n * FRAME);
        for (int k = 0; k < n; k++) {
            final int at = b.writerIndex();
            b.writeZero(FRAME);
            b.setIntLE(at, FRAME);
            b.setByte(at + FrameDescriptor.TYPE_OFFSET, MessageType.UPDATE);
        }
        return b;
    }

    private static long sequence(final ByteBuf b, final int frame) {
        return b.getLongLE(b.readerIndex() + frame * FRAME + FrameDescriptor.SEQUENCE_OFFSET);
    }

    @Test
    void shouldWaitForTheNumberingBeforeTakingAnything() {
        final ResendBuffer buffer = new ResendBuffer(1 << 20);
        assertFalse(buffer.hasRoom(FRAME));
        assertFalse(buffer.belowLimit());
        assertTrue(buffer.helloAnswered(0));
        assertTrue(buffer.hasRoom(FRAME));
        assertTrue(buffer.belowLimit());
    }

    @Test
    void shouldNumberFramesAndFreeWhatAnAckCovers() {
        final ResendBuffer buffer = new ResendBuffer(1 << 20);
        buffer.helloAnswered(0);
        final ByteBuf a = frames(2);
        final ByteBuf b = frames(1);
        buffer.add(a, 2);
        buffer.add(b, 1);
        assertEquals(1, sequence(a, 0));
        assertEquals(2, sequence(a, 1));
        assertEquals(3, sequence(b, 0));
        assertEquals(3, buffer.lastNumber());
        assertEquals(3, buffer.updates());
        assertEquals(3L * FRAME, buffer.bytes());
        assertEquals(1, buffer.oldest());

        assertFalse(buffer.acknowledge(0));
        assertTrue(buffer.acknowledge(1)); // covers part of the first chunk: nothing freed yet
        assertEquals(3, buffer.updates());
        assertTrue(buffer.acknowledge(2));
        assertEquals(0, a.refCnt());
        assertEquals(1, buffer.updates());
        assertEquals(FRAME, buffer.bytes());
        assertEquals(3, buffer.oldest());
        assertFalse(buffer.allAcknowledged());
        assertTrue(buffer.acknowledge(3));
        assertTrue(buffer.allAcknowledged());
        assertEquals(0, buffer.updates());
        assertEquals(0, buffer.bytes());
        assertEquals(0, buffer.oldest());
    }

    @Test
    void shouldResendOnlyWhatFollowsTheHelloAnswer() {
        final ResendBuffer buffer = new ResendBuffer(1 << 20);
        buffer.helloAnswered(0);
        for (int k = 0; k < 100; k++) { // past the ring's first capacity: it grows
            buffer.add(frames(3), 3);
        }
        final EmbeddedChannel ch = new EmbeddedChannel();
        try {
            assertTrue(buffer.helloAnswered(2)); // a reconnect: the TP holds 1..2
            assertEquals(298, buffer.resendAfter(ch, 2));
            ch.flush();
            final ByteBuf first = ch.readOutbound();
            assertEquals(FRAME, first.readableBytes()); // the rest of the first chunk: update 3
            assertEquals(3, first.getLongLE(first.readerIndex() + FrameDescriptor.SEQUENCE_OFFSET));
            first.release();
            for (int k = 1; k < 100; k++) {
                final ByteBuf next = ch.readOutbound();
                assertEquals(3 * FRAME, next.readableBytes());
                assertEquals(3L * k + 1, next.getLongLE(next.readerIndex() + FrameDescriptor.SEQUENCE_OFFSET));
                next.release();
            }
            assertNull(ch.readOutbound());
            assertEquals(2, buffer.acked());
            assertEquals(300, buffer.updates()); // counted from the oldest kept chunk, which holds 1..3
        } finally {
            ch.finishAndReleaseAll();
            buffer.clear();
        }
        assertEquals(0, buffer.bytes());
    }

    @Test
    void shouldStartNumberingAfterWhatTheTickerplantHolds() {
        final ResendBuffer buffer = new ResendBuffer(1 << 20);
        assertTrue(buffer.helloAnswered(41)); // a fresh feed of a name the journal knows
        final ByteBuf a = frames(1);
        buffer.add(a, 1);
        assertEquals(42, sequence(a, 0));
        assertFalse(buffer.helloAnswered(50)); // the TP holds more than this feed sent
        assertTrue(buffer.helloAnswered(42));
        buffer.clear();
    }

    @Test
    void shouldBoundTheBufferButTakeOneLargeSendWhenEmpty() {
        final ResendBuffer buffer = new ResendBuffer(1024);
        buffer.helloAnswered(0);
        final int n = 2048 / FRAME + 1;
        assertTrue(buffer.hasRoom(n * FRAME));
        buffer.add(frames(n), n);
        assertFalse(buffer.hasRoom(FRAME));
        assertFalse(buffer.belowLimit());
        buffer.acknowledge(n);
        assertTrue(buffer.hasRoom(FRAME));
        buffer.clear();
    }

    @Test
    void shouldCountWholeUpdateFramesOnly() {
        final ByteBuf ok = frames(3);
        assertEquals(3, ResendBuffer.countFrames(ok));
        ok.setByte(FRAME + FrameDescriptor.TYPE_OFFSET, MessageType.HEARTBEAT);
        assertThrows(IllegalArgumentException.class, () -> ResendBuffer.countFrames(ok));
        ok.release();
        final ByteBuf cut = frames(1).capacity(FRAME - 1);
        assertThrows(IllegalArgumentException.class, () -> ResendBuffer.countFrames(cut));
        cut.release();
    }

    @Test
    void shouldCompactOnlyABufferMuchLargerThanItsFrames() {
        final ByteBuf fits = frames(2);
        assertSame(fits, ResendBuffer.compact(fits));
        fits.release();
        final ByteBuf roomy = PooledByteBufAllocator.DEFAULT.directBuffer(1 << 16);
        final ByteBuf one = frames(1);
        roomy.writeBytes(one);
        one.release();
        final ByteBuf kept = ResendBuffer.compact(roomy);
        assertEquals(0, roomy.refCnt());
        assertEquals(FRAME, kept.capacity());
        assertEquals(1, ResendBuffer.countFrames(kept));
        kept.release();
    }
}
