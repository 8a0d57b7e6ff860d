package io.jtick.core.wire;

import io.jtick.core.testing.LeakCheck;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.TooLongFrameException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(LeakCheck.class)
class FramePipelineTest {
    private final List<Throwable> errors = new ArrayList<>();
    private final EmbeddedChannel ch = new EmbeddedChannel();

    FramePipelineTest() {
        FramePipeline.install(ch.pipeline(), 1024);
        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
                errors.add(cause);
            }
        });
    }

    @AfterEach
    void release() {
        ch.finishAndReleaseAll();
    }

    private static ByteBuf frames(final long... sequences) {
        final ByteBuf b = PooledByteBufAllocator.DEFAULT.buffer();
        for (final long s : sequences) {
            final ByteBuf f = ControlFrames.catchUpDone(PooledByteBufAllocator.DEFAULT, s);
            b.writeBytes(f);
            f.release();
        }
        return b;
    }

    private List<Long> read() {
        final List<Long> out = new ArrayList<>();
        for (ByteBuf f = ch.readInbound(); f != null; f = ch.readInbound()) {
            out.add(ControlFrames.readSequence(f));
            assertThat(f.readableBytes()).isEqualTo(f.getIntLE(f.readerIndex()));
            f.release();
        }
        return out;
    }

    @Test
    void shouldCutWholeFramesWhateverTheReadsLookLike() {
        ch.writeInbound(frames(1, 2, 3));
        assertThat(read()).containsExactly(1L, 2L, 3L);
        final ByteBuf two = frames(4, 5);
        ch.writeInbound(two.retainedSlice(0, 3));
        ch.writeInbound(two.retainedSlice(3, 20));
        assertThat(read()).containsExactly(4L);
        ch.writeInbound(two.retainedSlice(23, two.readableBytes() - 23));
        two.release();
        assertThat(read()).containsExactly(5L);
        ch.close();
        assertThat(errors).as("a clean close between frames").isEmpty();
    }

    @Test
    void shouldCutFramesRightAcrossManyReadsWhileEveryFrameIsStillHeld() {
        final long n = 500;
        final long[] all = new long[(int) n];
        for (int k = 0; k < n; k++) {
            all[k] = k + 1;
        }
        final ByteBuf stream = frames(all);
        final List<ByteBuf> held = new ArrayList<>();
        final List<Long> seen = new ArrayList<>();
        for (int at = 0; at < stream.readableBytes(); at += 37) {
            ch.writeInbound(stream.retainedSlice(at, Math.min(37, stream.readableBytes() - at)));
            for (ByteBuf f = ch.readInbound(); f != null; f = ch.readInbound()) {
                held.add(f);
            }
        }
        for (final ByteBuf f : held) {
            seen.add(ControlFrames.readSequence(f));
            f.release();
        }
        stream.release();
        assertThat(seen).hasSize((int) n).isSorted().first().isEqualTo(1L);
        assertThat(seen.get(seen.size() - 1)).isEqualTo(n);
    }

    @Test
    void shouldCopyOnlyTheFrameAReadCompletesAndCutTheRestWhereItLies() {
        final ByteBuf built = frames(1, 2, 3, 4);
        final ByteBuf stream = PooledByteBufAllocator.DEFAULT.directBuffer(built.readableBytes()).writeBytes(built);
        built.release();
        final long base = stream.memoryAddress();
        ch.writeInbound(stream.retainedSlice(0, 16 + 4));
        ch.writeInbound(stream.retainedSlice(16 + 4, stream.readableBytes() - 16 - 4));
        final List<ByteBuf> held = new ArrayList<>();
        for (ByteBuf f = ch.readInbound(); f != null; f = ch.readInbound()) {
            held.add(f);
        }
        try {
            assertThat(held).extracting(ControlFrames::readSequence).containsExactly(1L, 2L, 3L, 4L);
            assertThat(held.get(0).memoryAddress()).as("frame 1 where the first read has it").isEqualTo(base);
            final long two = held.get(1).memoryAddress();
            assertThat(two < base || two >= base + stream.readableBytes()).as("frame 2, split between the reads, copied out").isTrue();
            assertThat(held.get(2).memoryAddress()).as("frame 3 where the second read has it, not copied").isEqualTo(base + 32);
            assertThat(held.get(3).memoryAddress()).isEqualTo(base + 48);
        } finally {
            held.forEach(ByteBuf::release);
            stream.release();
        }
    }

    @Test
    void shouldCutTheSameFramesWhateverSizeTheReadsAre() {
        final long[] all = new long[40];
        for (int k = 0; k < all.length; k++) {
            all[k] = k + 1;
        }
        final ByteBuf stream = frames(all);
        for (int size = 1; size <= 40; size++) {
            final List<Long> seen = new ArrayList<>();
            for (int at = 0; at < stream.readableBytes(); at += size) {
                ch.writeInbound(stream.retainedSlice(at, Math.min(size, stream.readableBytes() - at)));
                seen.addAll(read());
            }
            assertThat(seen).as("reads of %d bytes", size).hasSize(all.length).isSorted().first().isEqualTo(1L);
        }
        stream.release();
        assertThat(errors).isEmpty();
    }

    @Test
    void shouldJoinWhatIsLeftAndTheNextReadInOneBufferOfTheirSize() {
        final ByteBuf previous = PooledByteBufAllocator.DEFAULT.directBuffer(64).writeBytes(new byte[] {1, 2, 3, 4, 5, 6, 7});
        previous.readerIndex(4);
        final ByteBuf held = previous.retainedSlice(0, 4);
        final ByteBuf next = PooledByteBufAllocator.DEFAULT.directBuffer(16).writeBytes(new byte[] {8, 9});
        final ByteBuf joined = FramePipeline.JOIN.cumulate(PooledByteBufAllocator.DEFAULT, previous, next);
        try {
            assertThat(joined.capacity()).as("what was left (3) and the read (2), not a grown copy of the old buffer").isEqualTo(5);
            final byte[] bytes = new byte[joined.readableBytes()];
            joined.getBytes(joined.readerIndex(), bytes);
            assertThat(bytes).containsExactly(5, 6, 7, 8, 9);
            assertThat(next.refCnt()).isZero();
            assertThat(held.getByte(3)).as("a frame still held keeps the old buffer").isEqualTo((byte) 4);
        } finally {
            held.release();
            joined.release();
        }
        assertThat(previous.refCnt()).isZero();

        final ByteBuf empty = PooledByteBufAllocator.DEFAULT.directBuffer(8);
        final ByteBuf aligned = PooledByteBufAllocator.DEFAULT.directBuffer(8).writeLong(42);
        assertThat(FramePipeline.JOIN.cumulate(PooledByteBufAllocator.DEFAULT, empty, aligned))
            .as("a read on a frame boundary is used as is").isSameAs(aligned);
        assertThat(empty.refCnt()).isZero();
        aligned.release();
    }

    @Test
    void shouldReportAFrameOverTheLimitAsSoonAsItsLengthIsRead() {
        ch.writeInbound(PooledByteBufAllocator.DEFAULT.buffer().writeIntLE(1 << 20).writeZero(4));
        assertThat(errors).singleElement().isInstanceOf(TooLongFrameException.class);
        assertThat(read()).isEmpty();
    }

    @Test
    void shouldReportAConnectionThatClosesInTheMiddleOfAFrame() {
        final ByteBuf one = frames(1, 2);
        ch.writeInbound(one.readRetainedSlice(16 + 5));
        one.release();
        assertThat(read()).containsExactly(1L);
        ch.close();
        assertThat(errors).singleElement().isInstanceOf(TruncatedFrameException.class).extracting(Throwable::getMessage).asString()
            .contains("bytesLeft=5");
    }
}
