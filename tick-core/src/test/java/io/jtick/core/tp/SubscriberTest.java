package io.jtick.core.tp;

import io.jtick.core.testing.LeakCheck;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A subscriber's pending run of shared frames: adjacent frames of one buffer go out as one write, in
 * order with everything else, and the run's hold on the buffer is given back whether it is written or
 * dropped. The read buffer is a wrapped direct one, which no leak tracker wraps (as most pooled reads are
 * in production; under paranoid detection every frame is tracked and written on its own).
 */
@ExtendWith(LeakCheck.class)
class SubscriberTest {
    private EmbeddedChannel ch;
    private Subscriber s;
    private ByteBuf read;

    @BeforeEach
    void start() {
        ch = new EmbeddedChannel();
        s = new Subscriber(1, ch, "rdb", new boolean[] {true}, null);
        read = Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(64));
        read.writerIndex(0);
        for (int i = 0; i < 64; i++) {
            read.writeByte(i);
        }
    }

    @AfterEach
    void close() {
        ch.finishAndReleaseAll();
        assertThat(read.refCnt()).as("the run's hold given back").isEqualTo(1);
        read.release();
    }

    @Test
    void shouldWriteAdjacentFramesOfOneBufferAsOneSlice() {
        final ByteBuf a = read.retainedSlice(0, 10);
        final ByteBuf b = read.retainedSlice(10, 6);
        final ByteBuf c = read.retainedSlice(14, 22);
        s.writeShared(a, 0, 10);
        s.writeShared(b, 0, 6);
        s.writeShared(c, 2, 20);
        a.release();
        b.release();
        c.release();
        assertThat(s.backlogBytes()).isEqualTo(36);
        ch.flush();
        assertThat((Object) ch.readOutbound()).as("nothing written before the run ends").isNull();
        s.writePending();
        ch.flush();
        final ByteBuf out = ch.readOutbound();
        assertThat(ByteBufUtil.getBytes(out)).isEqualTo(bytes(0, 36));
        out.release();
        assertThat((Object) ch.readOutbound()).isNull();
    }

    @Test
    void shouldStartANewRunAtAGapAndWriteTheRunBeforeAnythingElse() {
        final ByteBuf a = read.retainedSlice(0, 8);
        final ByteBuf b = read.retainedSlice(16, 8);
        s.writeShared(a, 0, 8);
        s.writeShared(b, 0, 8);
        a.release();
        b.release();
        s.writePending();
        ch.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {99}));
        final ByteBuf first = ch.readOutbound();
        final ByteBuf second = ch.readOutbound();
        final ByteBuf third = ch.readOutbound();
        assertThat(ByteBufUtil.getBytes(first)).isEqualTo(bytes(0, 8));
        assertThat(ByteBufUtil.getBytes(second)).isEqualTo(bytes(16, 24));
        assertThat(ByteBufUtil.getBytes(third)).containsExactly(99);
        first.release();
        second.release();
        third.release();
    }

    @Test
    void shouldGiveBackTheHoldOfADroppedRun() {
        final ByteBuf a = read.retainedSlice(0, 8);
        s.writeShared(a, 0, 8);
        a.release();
        assertThat(read.refCnt()).isEqualTo(2);
        assertThat(s.dropPending()).isEqualTo(8);
        assertThat(s.backlogBytes()).isZero();
        s.writePending();
        ch.flush();
        assertThat((Object) ch.readOutbound()).isNull();
    }

    @Test
    void shouldWriteAHeapFrameOnItsOwn() {
        final ByteBuf heap = Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4});
        s.writeShared(heap, 1, 2);
        heap.release();
        ch.flush();
        final ByteBuf out = ch.readOutbound();
        assertThat(ByteBufUtil.getBytes(out)).containsExactly(2, 3);
        out.release();
    }

    private static byte[] bytes(final int from, final int to) {
        final byte[] b = new byte[to - from];
        for (int i = from; i < to; i++) {
            b[i - from] = (byte) i;
        }
        return b;
    }
}
