package io.jtick.core.wire;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/** Picks native epoll when it loads (Linux), NIO otherwise; {@code -Djtick.transport=nio} forces NIO. */
public final class Transport {
    private static final boolean EPOLL = !"nio".equals(System.getProperty("jtick.transport")) && Epoll.isAvailable();

    private Transport() {
    }

    public static boolean isEpoll() {
        return EPOLL;
    }

    public static EventLoopGroup newGroup(final int threads, final String name) {
        return newGroup(threads, name, 0);
    }

    /**
     * Event loops that, with epoll, poll for up to {@code spinNanos} after each batch of work before they
     * block ({@link SpinningEpoll}): less latency for a steady stream, at the cost of that CPU; 0 blocks at once
     * (Netty's default). NIO loops always block at once.
     */
    public static EventLoopGroup newGroup(final int threads, final String name, final long spinNanos) {
        if (spinNanos < 0) {
            throw new IllegalArgumentException("spin must not be negative [spinNanos=" + spinNanos + "]");
        }
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true),
            !EPOLL ? NioIoHandler.newFactory() : spinNanos > 0 ? SpinningEpoll.factory(spinNanos) : EpollIoHandler.newFactory());
    }

    public static Class<? extends SocketChannel> socketChannel(final EventLoopGroup group) {
        return EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    public static Class<? extends ServerSocketChannel> serverChannel() {
        return EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }
}
