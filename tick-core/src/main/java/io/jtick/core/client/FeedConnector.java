package io.jtick.core.client;

import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.FramePipeline;
import io.jtick.core.wire.MessageType;
import io.jtick.core.wire.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;

/**
 * A feed's connection to the tickerplant and its backoff: connects, says HELLO, hands FEED_ACK and
 * ERROR frames to the {@link FeedPublisher}, and when the connection drops (or cannot be made)
 * connects again after a bounded exponential backoff ({@link FeedPublisher.Settings#reconnectMin}
 * doubling up to {@link FeedPublisher.Settings#reconnectMax}; back to the minimum once the tickerplant
 * acknowledges progress on a connection, or at once for a protocol 1 feed).
 *
 * <p>State: {@code channel} (the current connection, volatile), {@code ready} (it has its HELLO answer;
 * guarded by the publisher's monitor), {@code connects} and {@code connectAttempts} (volatile, written
 * on the event loop), {@code backoffStep} (event loop only).
 */
final class FeedConnector {
    /** The feed's lines under the feed's name. */
    private static final Logger LOG = LoggerFactory.getLogger(FeedPublisher.class);

    private final FeedPublisher publisher;
    private final FeedPublisher.Settings settings;
    private final EventLoopGroup group;
    private final boolean ownGroup;
    private volatile Channel channel;
    private volatile long connects;
    private volatile long connectAttempts;
    private boolean ready;
    private int backoffStep;

    /** @param group the event loop to run on, or null for a private one */
    FeedConnector(final FeedPublisher publisher, final EventLoopGroup group) {
        this.publisher = publisher;
        this.settings = publisher.settings();
        this.ownGroup = group == null;
        this.group = group == null ? Transport.newGroup(1, "feed-" + settings.name()) : group;
    }

    /** Connects in the background (and again after each drop, until the publisher is closed or fails). */
    void start() {
        group.execute(this::connectNow);
    }

    Channel channel() {
        return channel;
    }

    /** Caller holds the publisher's monitor: the current connection has its HELLO answer (protocol 1: is up). */
    boolean ready() {
        return ready;
    }

    /** Caller holds the publisher's monitor. */
    void ready(final boolean r) {
        ready = r;
    }

    long connects() {
        return connects;
    }

    long connectAttempts() {
        return connectAttempts;
    }

    /** The tickerplant acknowledged progress: the next reconnect waits the minimum again. */
    void progress() {
        backoffStep = 0;
    }

    /** Closes the connection, and the event loop when it is the connector's own. */
    void close() {
        final Channel ch = channel;
        if (ch != null) {
            ch.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        if (ownGroup) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    private void connectNow() {
        if (publisher.isClosed() || group.isShuttingDown()) {
            return;
        }
        connectAttempts++;
        final Bootstrap b = new Bootstrap()
            .group(group)
            .channel(Transport.socketChannel(group))
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.SO_SNDBUF, 1 << 20)
            .option(ChannelOption.WRITE_BUFFER_WATER_MARK, BackPressure.WATER_MARK)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 2_000)
            .handler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(final SocketChannel ch) {
                    FramePipeline.install(ch.pipeline(), 1 << 20);
                    ch.pipeline().addLast(new Handler());
                }
            });
        b.connect(settings.host(), settings.port()).addListener((ChannelFutureListener) this::onConnect);
    }

    private void onConnect(final ChannelFuture f) {
        if (!f.isSuccess()) {
            if (connectAttempts == 1 || connectAttempts % 20 == 0) {
                LOG.info("tickerplant not reachable, retrying [host={}, port={}, feed={}, attempts={}]: {}", settings.host(),
                    settings.port(), settings.name(), connectAttempts, f.cause() == null ? "" : f.cause().toString());
            }
            scheduleReconnect();
            return;
        }
        final Channel ch = f.channel();
        if (publisher.closing()) {
            ch.close();
            return;
        }
        synchronized (publisher) {
            ready = false;
            channel = ch;
        }
        ch.closeFuture().addListener(cf -> onDisconnected(ch));
        ch.writeAndFlush(ControlFrames.clientHello(ch.alloc(), ControlFrames.ROLE_FEED, settings.name(),
            settings.numbered() ? FrameDescriptor.HELLO_FLAG_NUMBERED : 0, settings.token()));
        if (!settings.numbered()) {
            publisher.unnumberedUp();
            connected();
        }
    }

    /** A connection is up; the backoff starts again from its minimum once the tickerplant acknowledges progress on it. */
    void connected() {
        connects++;
        if (!settings.numbered()) {
            backoffStep = 0;
        }
        if (connects > 1) {
            LOG.info("feed reconnected [host={}, port={}, feed={}, reconnects={}]", settings.host(), settings.port(), settings.name(),
                connects - 1);
        }
    }

    private void onDisconnected(final Channel ch) {
        synchronized (publisher) {
            if (channel == ch) {
                ready = false;
            }
        }
        if (!publisher.isClosed()) {
            LOG.warn("feed connection to the tickerplant lost, reconnecting [host={}, port={}, feed={}, unacknowledged={}]",
                settings.host(), settings.port(), settings.name(), publisher.stats().bufferedUpdates());
        }
        scheduleReconnect();
    }

    private void scheduleReconnect() {
        if (publisher.isClosed() || group.isShuttingDown()) {
            return;
        }
        final long min = settings.reconnectMin().toMillis();
        final long delay = Math.min(settings.reconnectMax().toMillis(), min << Math.min(backoffStep, 20));
        backoffStep++;
        group.schedule(this::connectNow, delay, TimeUnit.MILLISECONDS);
    }

    private final class Handler extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final ByteBuf frame) {
            final int type = ControlFrames.type(frame, frame.readerIndex());
            if (type == MessageType.FEED_ACK) {
                publisher.onAck(ctx.channel(), ControlFrames.readSequence(frame));
            } else if (type == MessageType.ERROR) {
                publisher.onError(ControlFrames.readError(frame));
            }
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            LOG.warn("feed connection failed [feed={}]: {}", settings.name(), cause.toString());
            ctx.close();
        }
    }
}
