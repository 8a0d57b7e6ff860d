package io.jtick.core.client;

import io.jtick.core.wire.Transport;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.FramePipeline;
import io.jtick.core.wire.MessageType;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A feed's connection to the tickerplant ({@code h(".u.upd";t;x)}): sends hello, then UPDATE frames
 * built by the caller. {@link #send} takes ownership of the buffer (any number of whole frames) and
 * returns false instead of blocking when the connection is gone or the TP is not draining: back
 * pressure is a return value. Error frames from the TP are counted and kept.
 */
public final class FeedPublisher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FeedPublisher.class);

    private final String host;
    private final int port;
    private final String name;
    private final EventLoopGroup group;
    private final boolean ownGroup;
    private final AtomicLong errors = new AtomicLong();
    private volatile String lastError;
    private volatile Channel channel;

    public FeedPublisher(final String host, final int port, final String name, final EventLoopGroup group) {
        this.host = host;
        this.port = port;
        this.name = name;
        this.ownGroup = group == null;
        this.group = group == null ? Transport.newGroup(1, "feed-" + name) : group;
    }

    /** Connects and sends hello; throws if the TP is not there within the timeout. */
    public FeedPublisher connect(final long timeoutMillis) throws IOException {
        final Bootstrap b = new Bootstrap()
            .group(group)
            .channel(Transport.socketChannel(group))
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.SO_SNDBUF, 1 << 20)
            .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(4 << 20, 16 << 20))
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, timeoutMillis))
            .handler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(final SocketChannel ch) {
                    FramePipeline.install(ch.pipeline(), 1 << 20);
                    ch.pipeline().addLast(new ErrorHandler());
                }
            });
        final var f = b.connect(host, port).awaitUninterruptibly();
        if (!f.isSuccess()) {
            throw new IOException("cannot connect to tickerplant [host=" + host + ", port=" + port + "]", f.cause());
        }
        channel = f.channel();
        channel.writeAndFlush(ControlFrames.hello(channel.alloc(), ControlFrames.ROLE_FEED, name));
        return this;
    }

    public boolean isConnected() {
        final Channel ch = channel;
        return ch != null && ch.isActive();
    }

    /** Allocator for frame buffers (pooled, direct). */
    public ByteBufAllocator alloc() {
        final Channel ch = channel;
        return ch != null ? ch.alloc() : PooledByteBufAllocator.DEFAULT;
    }

    /**
     * Sends whole frames; takes ownership of {@code frames}. Returns false (and releases it) when
     * not connected or when the outbound buffer is over its high-water mark.
     */
    public boolean send(final ByteBuf frames) {
        final Channel ch = channel;
        if (ch == null || !ch.isActive() || !ch.isWritable()) {
            frames.release();
            return false;
        }
        ch.writeAndFlush(frames, ch.voidPromise());
        return true;
    }

    /** Waits (parking) until the connection can take more, or the timeout passes; false if closed or timed out. */
    public boolean awaitWritable(final long timeoutNanos) {
        final long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            final Channel ch = channel;
            if (ch == null || !ch.isActive()) {
                return false;
            }
            if (ch.isWritable()) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            LockSupport.parkNanos(50_000);
        }
    }

    /** Blocks until everything written so far has been handed to the socket. */
    public void flushAndWait() {
        final Channel ch = channel;
        if (ch != null && ch.isActive()) {
            ch.writeAndFlush(ch.alloc().buffer(0)).awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
    }

    public long errorsReceived() {
        return errors.get();
    }

    public String lastError() {
        return lastError;
    }

    @Override
    public void close() {
        final Channel ch = channel;
        if (ch != null) {
            ch.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        if (ownGroup) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    private final class ErrorHandler extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final ByteBuf frame) {
            if (ControlFrames.type(frame, frame.readerIndex()) == MessageType.ERROR) {
                final ControlFrames.Error e = ControlFrames.readError(frame);
                lastError = e.code().tag() + ": " + e.message();
                errors.incrementAndGet(); // after lastError: whoever sees the count sees the message
                LOG.warn("tickerplant rejected feed input [feed={}, code={}]: {}", name, e.code().tag(), e.message());
            }
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            LOG.warn("feed connection failed [feed={}]: {}", name, cause.toString());
            ctx.close();
        }
    }
}
