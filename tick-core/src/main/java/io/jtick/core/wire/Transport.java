package io.jtick.core.wire;

import io.jtick.core.wire.LeaderHint.Address;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.net.SocketAddress;

/**
 * Picks native epoll when it loads (Linux), NIO otherwise; {@code -Djtick.transport=nio} forces NIO. Unix domain
 * sockets ({@link Address#unix}) need epoll: between processes of one machine they skip the TCP stack.
 */
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

    /** The listening channel of a unix domain socket; refused without epoll. */
    public static Class<? extends ServerChannel> unixServerChannel() {
        requireUnix("listen on a unix socket");
        return EpollServerDomainSocketChannel.class;
    }

    /**
     * A client's bootstrap on {@code group} for {@code to}: a TCP socket with Nagle off, or a unix domain socket (which has
     * no such option); the caller adds its own options and handler, then {@link #connect}s.
     */
    public static Bootstrap client(final EventLoopGroup group, final Address to) {
        final Bootstrap b = new Bootstrap().group(group);
        if (to.isUnix()) {
            requireUnix("connect to " + to);
            return b.channel(EpollDomainSocketChannel.class);
        }
        return b.channel(socketChannel(group)).option(ChannelOption.TCP_NODELAY, true);
    }

    /** Connects a {@link #client} bootstrap to {@code to}. */
    public static ChannelFuture connect(final Bootstrap b, final Address to) {
        return to.isUnix() ? b.connect(new DomainSocketAddress(to.path())) : b.connect(to.host(), to.port());
    }

    /**
     * Who is at the other end of {@code ch}, for logs and status: its remote address, or for a unix socket's client (whose
     * socket has no name) {@code unix:<path>} of the socket it came in on.
     */
    public static String remote(final Channel ch) {
        final SocketAddress remote = ch.remoteAddress();
        if (remote instanceof DomainSocketAddress d && d.path().isEmpty() && ch.localAddress() instanceof DomainSocketAddress local) {
            return Address.UNIX + local.path();
        }
        return String.valueOf(remote);
    }

    /** Refuses ({@link IllegalStateException}, saying to {@code what}) where unix sockets are not available: without epoll. */
    public static void requireUnix(final String what) {
        if (!EPOLL) {
            throw new IllegalStateException("cannot " + what + ": unix sockets need the native epoll transport (Linux, without"
                + " -Djtick.transport=nio)");
        }
    }
}
