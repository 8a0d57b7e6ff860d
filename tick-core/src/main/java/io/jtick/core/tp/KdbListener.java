package io.jtick.core.tp;

import io.jtick.core.kdb.KdbAccess;
import io.jtick.core.kdb.KdbSettings;
import io.jtick.core.wire.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;

/**
 * The tickerplant's kdb+ port (docs/kdb-ipc.md): its own listening socket, on the tickerplant's
 * thread like every other connection, each connection a {@link KdbAdapter}.
 */
final class KdbListener {
    private static final Logger LOG = LoggerFactory.getLogger(KdbListener.class);

    private KdbListener() {
    }

    /** Binds {@code host}:{@code settings.port()}; every connection joins {@code connections} (closed with the TP). */
    static Channel bind(final EventLoopGroup group, final Tickerplant tp, final String host, final KdbSettings settings,
                        final ChannelGroup connections) throws IOException {
        final KdbAccess access = KdbAccess.of(settings, InetAddress.getByName(host));
        final ServerBootstrap b = new ServerBootstrap()
            .group(group)
            .channel(Transport.serverChannel())
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.SO_RCVBUF, 1 << 20)
            .childOption(ChannelOption.SO_SNDBUF, 1 << 20)
            .childOption(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(256 * 1024))
            .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(1 << 20, 4 << 20))
            .childHandler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(final SocketChannel ch) {
                    tp.counters().connectionOpened();
                    connections.add(ch);
                    KdbAdapter.install(ch.pipeline(), tp, access);
                }
            });
        final Channel channel;
        try {
            channel = b.bind(host, settings.port()).sync().channel();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        } catch (final Exception e) {
            throw new IOException("cannot listen for kdb+ clients [host=" + host + ", port=" + settings.port() + "]: " + e.getMessage(), e);
        }
        LOG.info("kdb+ port listening [address={}, logins={}]", channel.localAddress(), access.describe());
        return channel;
    }
}
