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
