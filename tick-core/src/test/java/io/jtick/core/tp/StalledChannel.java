package io.jtick.core.tp;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.embedded.EmbeddedChannel;

import java.nio.channels.ClosedChannelException;

/**
 * A subscriber that stopped reading: everything written to it stays queued in its outbound buffer.
 * When it is closed, the queued writes fail with {@link ClosedChannelException}, which is expected
 * here (the tickerplant writes with void promises), so it is not rethrown as an embedded channel would.
 */
final class StalledChannel extends EmbeddedChannel {
    StalledChannel() {
        super(new ChannelInboundHandlerAdapter() {
            @Override
            public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
                if (!(cause instanceof ClosedChannelException)) {
                    ctx.fireExceptionCaught(cause);
                }
            }
        });
    }

    @Override
    protected void doWrite(final ChannelOutboundBuffer in) {
        // the peer reads nothing, so nothing leaves the outbound buffer
    }
}
