package io.jtick.lab.readthroughput;

import io.jtick.core.wire.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.ReferenceCountUtil;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The loopback limit the replay runs against, measured the way a replay sends: a server on
 * {@code serverThreads} event-loop threads writes one shared 256 KiB buffer (retained duplicates,
 * no copy) to N client connections, each client on its own event-loop thread with the same socket
 * settings as a replay consumer, as fast as they read; the clients count and drop what they receive.
 * Bytes received per second, all clients together, after a warm-up second.
 */
public final class LoopbackProbe {
    private static final int CHUNK = 256 * 1024;

    private LoopbackProbe() {
    }

    /** Bytes per second N clients receive together over loopback in {@code millis} (after a warm-up of {@code warmupMillis}). */
    public static double bytesPerSecond(final int clients, final int serverThreads, final long warmupMillis, final long millis)
        throws InterruptedException {
        final EventLoopGroup serverGroup = Transport.newGroup(serverThreads, "loopback-probe-server");
        final List<EventLoopGroup> clientGroups = new ArrayList<>();
        final ByteBuf chunk = PooledByteBufAllocator.DEFAULT.directBuffer(CHUNK, CHUNK);
        chunk.writeZero(CHUNK);
        final AtomicLong received = new AtomicLong();
        final List<Channel> channels = new ArrayList<>();
        try {
            final Channel server = new ServerBootstrap().group(serverGroup).channel(Transport.serverChannel())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_SNDBUF, 1 << 20)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(1 << 20, 4 << 20))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(final SocketChannel ch) {
                        ch.pipeline().addLast(new Sender(chunk));
                    }
                }).bind("127.0.0.1", 0).sync().channel();
            channels.add(server);
            final int port = ((InetSocketAddress) server.localAddress()).getPort();
            for (int i = 0; i < clients; i++) {
                final EventLoopGroup g = Transport.newGroup(1, "loopback-probe-client-" + i);
                clientGroups.add(g);
                channels.add(new Bootstrap().group(g).channel(Transport.socketChannel(g))
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.SO_RCVBUF, 1 << 20)
                    .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(256 * 1024))
                    .handler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
                            received.addAndGet(((ByteBuf) msg).readableBytes());
                            ReferenceCountUtil.release(msg);
                        }
                    }).connect("127.0.0.1", port).sync().channel());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(warmupMillis));
            final long b0 = received.get();
            final long t0 = System.nanoTime();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
            final long b1 = received.get();
            final long t1 = System.nanoTime();
            return (b1 - b0) * 1e9 / (t1 - t0);
        } finally {
            for (final Channel c : channels) {
                c.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
            }
            for (final EventLoopGroup g : clientGroups) {
                g.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
            }
            serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
            chunk.release();
        }
    }

    /** Writes duplicates of the shared chunk while the connection takes them. */
    private static final class Sender extends ChannelInboundHandlerAdapter {
        private final ByteBuf chunk;

        Sender(final ByteBuf chunk) {
            this.chunk = chunk;
        }

        @Override
        public void channelActive(final ChannelHandlerContext ctx) {
            pump(ctx);
            ctx.fireChannelActive();
        }

        @Override
        public void channelWritabilityChanged(final ChannelHandlerContext ctx) {
            pump(ctx);
            ctx.fireChannelWritabilityChanged();
        }

        private void pump(final ChannelHandlerContext ctx) {
            final Channel ch = ctx.channel();
            while (ch.isActive() && ch.isWritable()) {
                ch.writeAndFlush(chunk.retainedDuplicate(), ch.voidPromise());
            }
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            ctx.close();
        }
    }
}
