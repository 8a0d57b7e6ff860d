package io.jtick.core.tp;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.util.ReferenceCountUtil;

/**
 * Drops what waits in a channel's outbound buffer, so that a frame written next is the next thing the
 * peer reads: the ERROR frame of a slow subscriber is not queued behind the backlog it is not reading.
 * The message at the head is kept (its remaining bytes, if the socket took part of it already; cutting
 * it would break the framing), everything behind it is released. Their promises complete as if written
 * (the tickerplant writes with void promises, and a failed void promise would fire an exception down the
 * pipeline, which closes the connection before the error can go). Event-loop thread only: it works on
 * Netty's {@link ChannelOutboundBuffer} directly.
 */
final class OutboundBacklog {
    private OutboundBacklog() {
    }

    /** Returns the bytes dropped. */
    static long dropAllButCurrent(final Channel channel) {
        final ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
        if (out == null) {
            return 0;
        }
        out.addFlush();
        final Object head = out.current();
        if (head == null) {
            return 0;
        }
        final long before = out.totalPendingWriteBytes();
        ReferenceCountUtil.retain(head);
        out.remove();
        while (out.current() != null) {
            out.remove();
        }
        channel.write(head, channel.voidPromise());
        return Math.max(0, before - sizeOf(head));
    }

    private static long sizeOf(final Object msg) {
        return msg instanceof io.netty.buffer.ByteBuf b ? b.readableBytes() : 0;
    }
}
