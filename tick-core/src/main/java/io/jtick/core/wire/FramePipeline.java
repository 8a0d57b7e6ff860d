package io.jtick.core.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

import java.nio.ByteOrder;

/**
 * The frame splitter every jtick connection uses: little-endian int32 length that includes itself.
 * It rejects a frame over the limit as soon as its length is read ({@link io.netty.handler.codec.TooLongFrameException})
 * and reports a connection that closes with part of a frame unread ({@link TruncatedFrameException}),
 * both through {@code exceptionCaught}.
 *
 * <p>A read that ends inside a frame leaves that frame's first bytes behind. When the next read holds
 * the rest of it, the splitter copies only that frame into a pooled buffer of its size and cuts every
 * later frame from the read where it lies; otherwise (the frame goes on past this read too, or its
 * length field itself was split) the read is joined to the bytes left by {@link #JOIN}: one pooled
 * buffer of exactly those bytes plus the read. Joining every such read copied each byte received a
 * second time, on the tickerplant's thread and on every subscriber's, since nearly every 256 KB read
 * ends inside a frame. Netty's own cumulator appends to the previous read's buffer instead and grows
 * it while the frames sliced from it are still held (by subscribers' outbound buffers until the flush
 * at the end of the read), so at hundreds of MB/s it reallocated multi-megabyte buffers outside the
 * pool, each zeroed page by page: 110,000–145,000 page faults a second on the tickerplant thread, 70%
 * of its CPU in the kernel.
 */
public final class FramePipeline {
    public static final String FRAME_DECODER = "frames";

    /**
     * Joins what is left of the previous read (the start of a frame) and the next read in one pooled
     * buffer of their size; a read that starts on a frame boundary is used as it is. The kdb+ splitter
     * uses it too.
     */
    public static final ByteToMessageDecoder.Cumulator JOIN = (final ByteBufAllocator alloc, final ByteBuf cumulation,
                                                               final ByteBuf in) -> {
        if (!cumulation.isReadable() && in.isContiguous()) {
            cumulation.release();
            return in;
        }
        try {
            final int left = cumulation.readableBytes();
            final int added = in.readableBytes();
            final ByteBuf joined = PooledByteBufAllocator.DEFAULT.directBuffer(left + added);
            joined.writeBytes(cumulation, cumulation.readerIndex(), left).writeBytes(in, in.readerIndex(), added);
            return joined;
        } finally {
            cumulation.release();
            in.release();
        }
    };

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
        private final int maxFrameLength;
        /** In {@link #channelRead} (a read fired from inside it is queued by the decoder, not split here). */
        private boolean reading;

        Splitter(final int maxFrameLength) {
            super(ByteOrder.LITTLE_ENDIAN, maxFrameLength, 0, 4, -4, 0, true);
            this.maxFrameLength = maxFrameLength;
            setCumulator(JOIN);
        }

        /**
         * A read that completes the frame whose start the last read left: that frame alone is copied
         * and split as a read of its own, then the rest of this read is split where it lies (the left
         * bytes are gone, so {@link #JOIN} takes the read as it is).
         */
        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg) throws Exception {
            final ByteBuf left = internalBuffer();
            final int have = left.readableBytes();
            if (reading || have < Integer.BYTES || !(msg instanceof ByteBuf in)) {
                super.channelRead(ctx, msg);
                return;
            }
            final long frameLength = left.getUnsignedIntLE(left.readerIndex());
            final long need = frameLength - have;
            if (frameLength > maxFrameLength || need <= 0 || in.readableBytes() < need) {
                super.channelRead(ctx, msg);
                return;
            }
            reading = true;
            boolean split = false;
            try {
                final ByteBuf head = PooledByteBufAllocator.DEFAULT.directBuffer((int) frameLength);
                head.writeBytes(left, left.readerIndex(), have).writeBytes(in, in.readerIndex(), (int) need);
                left.skipBytes(have);
                in.skipBytes((int) need);
                super.channelRead(ctx, head);
                split = true;
                if (ctx.isRemoved()) {
                    ctx.fireChannelRead(in);
                } else {
                    super.channelRead(ctx, in);
                }
            } finally {
                reading = false;
                if (!split) {
                    in.release();
                }
            }
        }

        /** The 4-byte length field read as it is (Netty's own goes through {@code order(LITTLE_ENDIAN)}: a swapped view per frame). */
        @Override
        protected long getUnadjustedFrameLength(final ByteBuf buf, final int offset, final int length, final ByteOrder order) {
            return buf.getUnsignedIntLE(offset);
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
