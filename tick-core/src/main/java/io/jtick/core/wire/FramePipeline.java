package io.jtick.core.wire;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

import java.nio.ByteOrder;

/** Installs the frame splitter every jtick connection uses: little-endian int32 length that includes itself. */
public final class FramePipeline {
    public static final String FRAME_DECODER = "frames";

    private FramePipeline() {
    }

    /** A splitter that rejects frames over {@code maxFrameLength} as soon as their length is read. */
    public static LengthFieldBasedFrameDecoder frameDecoder(final int maxFrameLength) {
        return new LengthFieldBasedFrameDecoder(ByteOrder.LITTLE_ENDIAN, maxFrameLength, 0, 4, -4, 0, true);
    }

    public static void install(final ChannelPipeline pipeline, final int maxFrameLength) {
        pipeline.addLast(FRAME_DECODER, frameDecoder(maxFrameLength));
    }
}
