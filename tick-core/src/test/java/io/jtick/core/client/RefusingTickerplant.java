package io.jtick.core.client;

import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.FramePipeline;
import io.jtick.core.wire.LeaderHint;
import io.jtick.core.wire.MessageType;
import io.jtick.core.wire.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A TP cluster member that takes no feeds, as the wire contract has it: a numbered feed is refused at
 * its HELLO, a protocol 1 feed at its first UPDATE, with ERROR {@code code} and the reason the test
 * supplies (a follower's {@link LeaderHint#reason}, or no-quorum's). It leaves the connection open:
 * closing it is the client's part. Plain Netty on loopback, a port of its own.
 */
final class RefusingTickerplant implements AutoCloseable {
    private final EventLoopGroup group = Transport.newGroup(1, "refusing-tp");
    private final Channel server;
    private final ErrorCode code;
    private final Supplier<String> reason;
    private final AtomicInteger hellos = new AtomicInteger();
    private final AtomicInteger refusals = new AtomicInteger();

    /** A follower naming the leader {@code reason} gives (a {@link LeaderHint#reason}). */
    static RefusingTickerplant follower(final Supplier<String> reason) {
        return new RefusingTickerplant(ErrorCode.NOT_LEADER, reason);
    }

    /** A node without a majority. */
    static RefusingTickerplant withoutQuorum() {
        return new RefusingTickerplant(ErrorCode.NO_QUORUM, () -> "no quorum: this node cannot commit [members=3, reachable=1]");
    }

    private RefusingTickerplant(final ErrorCode code, final Supplier<String> reason) {
        this.code = code;
        this.reason = reason;
        server = new ServerBootstrap()
            .group(group)
            .channel(Transport.serverChannel())
            .childHandler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(final SocketChannel ch) {
                    FramePipeline.install(ch.pipeline(), 1 << 20);
                    ch.pipeline().addLast(new Refuser());
                }
            })
            .bind("127.0.0.1", 0).syncUninterruptibly().channel();
    }

    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    LeaderHint.Address address() {
        return new LeaderHint.Address("127.0.0.1", port());
    }

    /** HELLOs received. */
    int hellos() {
        return hellos.get();
    }

    /** Feeds refused. */
    int refusals() {
        return refusals.get();
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private final class Refuser extends SimpleChannelInboundHandler<ByteBuf> {
        private boolean refused;

        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final ByteBuf frame) {
            final int type = ControlFrames.type(frame, frame.readerIndex());
            if (type == MessageType.HELLO) {
                hellos.incrementAndGet();
                if ((ControlFrames.readHello(frame).flags() & FrameDescriptor.HELLO_FLAG_NUMBERED) != 0) {
                    refuse(ctx);
                }
            } else if (type == MessageType.UPDATE) {
                refuse(ctx);
            }
        }

        private void refuse(final ChannelHandlerContext ctx) {
            if (!refused) {
                refused = true;
                refusals.incrementAndGet();
                ctx.writeAndFlush(ControlFrames.error(ctx.alloc(), code, reason.get()));
            }
        }
    }
}
