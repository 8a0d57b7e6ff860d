package io.jtick.core.wire;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

import java.nio.ByteOrder;

/**
 * The frame splitter every jtick connection uses: little-endian int32 length that includes itself.
 * It rejects a frame over the limit as soon as its length is read ({@link io.netty.handler.codec.TooLongFrameException})
 * and reports a connection that closes with part of a frame unread ({@link TruncatedFrameException}),
 * both through {@code exceptionCaught}.
 */
public final class FramePipeline {
    public static final String FRAME_DECODER = "frames";

    private FramePipeline() {
    }

    /** A splitter for frames of at most {@code maxFrameLength} bytes. */
    public static LengthFieldBasedFrameDecoder frameDecoder(final int maxFrameLength) {
        return new Splitter(maxFrameLength);
    }

    public static void install(final ChannelPipeline pipeline, final int maxFrameLength) {
        pipeline.addLast(FRAME_DECODER, frameDecoder(maxFrameLength));
    }

    private static final class Splitter extends LengthFieldBasedFrameDecoder {
        Splitter(final int maxFrameLength) {
            super(ByteOrder.LITTLE_ENDIAN, maxFrameLength, 0, 4, -4, 0, true);
        }

        @Override
        public void channelInactive(final ChannelHandlerContext ctx) throws Exception {
            final int left = actualReadableBytes();
            if (left > 0) {
                ctx.fireExceptionCaught(new TruncatedFrameException(left));
            }
            super.channelInactive(ctx);
        }
    }
}
