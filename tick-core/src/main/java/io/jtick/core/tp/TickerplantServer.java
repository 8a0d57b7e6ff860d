package io.jtick.core.tp;

import io.jtick.core.client.TickClient;
import io.jtick.core.client.TickListener;
import io.jtick.core.wire.Transport;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.FramePipeline;
import io.jtick.core.wire.MessageType;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateValidator;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Runs a {@link Tickerplant} on one Netty event-loop thread (its agent): the listening socket for
 * feeds and subscribers, every connection, the publish timer, end-of-day checks, heartbeats and,
 * for a chained TP, the upstream subscription all run there. Other threads (REST) reach the
 * tickerplant only through {@link #call}.
 *
 * <p>Bad input policy: a frame that fails validation, an oversized frame, a malformed header or
 * an unexpected message type gets an ERROR frame naming the problem, is counted, and that
 * connection is closed; updates accepted before it stay journalled and published. A peer that
 * disconnects in the middle of a frame is counted as {@code truncated-frame}.
 */
public final class TickerplantServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TickerplantServer.class);

    private final TickerplantSettings settings;
    private final SchemaRegistry schemas;
    private final NanoClock clock;
    private final TickMetrics metrics;
    private final AtomicInteger feeds = new AtomicInteger();
    private final AtomicLong connections;
    private EventLoopGroup group;
    private EventLoop loop;
    private Channel serverChannel;
    private ChannelGroup connectionsOpen;
    private Tickerplant tp;
    private TickClient upstream;
    private ScheduledFuture<?> timerTask;
    private ScheduledFuture<?> housekeeping;
    private boolean catchUpScheduled;
    private boolean flushScheduled;
    private long lastHeartbeat;

    public TickerplantServer(final TickerplantSettings settings, final SchemaRegistry schemas, final NanoClock clock,
                             final TickMetrics metrics) {
        this.settings = settings.validate();
        this.schemas = schemas;
        this.clock = clock;
        this.metrics = metrics;
        this.connections = metrics.counter("tick.tp.connections");
        metrics.gauge("tick.tp.feeds", feeds::get);
    }

    /** Opens the journal, binds the port, starts the timers and (chained) the upstream subscription. */
    public TickerplantServer start() throws IOException {
        group = Transport.newGroup(1, "tickerplant");
        loop = group.next();
        connectionsOpen = new DefaultChannelGroup("tickerplant-connections", loop);
        try {
            tp = loop.submit(() -> new Tickerplant(settings, schemas, clock, PooledByteBufAllocator.DEFAULT, metrics)).get();
        } catch (final ExecutionException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IOException(e.getCause());
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        tp.catchUpScheduler(this::scheduleCatchUp);
        metrics.gauge("tick.tp.subscriber.backlog.bytes", this::totalBacklog);
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
                    connections.incrementAndGet();
                    connectionsOpen.add(ch);
                    ch.pipeline().addLast(FramePipeline.FRAME_DECODER, new TpFrameDecoder(settings.maxFrameLength()));
                    ch.pipeline().addLast(new ConnectionHandler());
                }
            });
        try {
            serverChannel = b.bind(settings.host(), settings.port()).sync().channel();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        } catch (final Exception e) {
            close();
            throw new IOException("cannot listen [host=" + settings.host() + ", port=" + settings.port() + "]: " + e.getMessage(), e);
        }
        scheduleTimer(tp.timerNanos());
        housekeeping = loop.scheduleAtFixedRate(this::housekeeping, 50, 50, TimeUnit.MILLISECONDS);
        if (settings.chained()) {
            startUpstream();
        }
        LOG.info("tickerplant listening [address={}, transport={}, chained={}]", serverChannel.localAddress(),
            Transport.isEpoll() ? "epoll" : "nio", settings.chained() ? settings.upstreamHost() + ":" + settings.upstreamPort() : "no");
        return this;
    }

    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /** Runs {@code f} on the tickerplant thread and returns its result (REST and tests). */
    public <T> T call(final Function<Tickerplant, T> f) {
        if (loop.inEventLoop()) {
            return f.apply(tp);
        }
        try {
            return loop.submit(() -> f.apply(tp)).get(10, TimeUnit.SECONDS);
        } catch (final ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(e.getCause());
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (final TimeoutException e) {
            throw new IllegalStateException("tickerplant thread did not answer within 10 s", e);
        }
    }

    public TickerplantStatus status() {
        return call(t -> t.status(feeds.get(), upstream == null ? null
            : new TickerplantStatus.Upstream(settings.upstreamHost(), settings.upstreamPort(), upstream.isConnected())));
    }

    /** Switches the publish mode and timer at run time. */
    public void setMode(final PublishMode mode, final Duration timer) {
        if (timer.toMillis() < 1) {
            throw new IllegalArgumentException("timer must be at least 1 ms [timer=" + timer + "]");
        }
        call(t -> {
            t.setMode(mode, timer.toNanos());
            scheduleTimer(timer.toNanos());
            return null;
        });
    }

    /** End of day now ({@code POST /api/eod}). */
    public void endOfDay() {
        call(t -> {
            t.onEndOfDay();
            return null;
        });
    }

    public Tickerplant tickerplant() {
        return tp;
    }

    private long totalBacklog() {
        if (loop == null || loop.isShuttingDown()) {
            return 0;
        }
        return call(Tickerplant::totalBacklogBytes);
    }

    private void scheduleTimer(final long nanos) {
        if (timerTask != null) {
            timerTask.cancel(false);
        }
        timerTask = loop.scheduleAtFixedRate(() -> tp.onTimer(), nanos, nanos, TimeUnit.NANOSECONDS);
    }

    private void housekeeping() {
        try {
            tp.checkEndOfDay();
            final long now = System.nanoTime();
            if (now - lastHeartbeat >= settings.heartbeat().toNanos()) {
                lastHeartbeat = now;
                tp.heartbeat();
            }
        } catch (final RuntimeException e) {
            LOG.error("tickerplant housekeeping failed", e);
        }
    }

    private void scheduleCatchUp() {
        if (!catchUpScheduled) {
            catchUpScheduled = true;
            loop.execute(() -> {
                catchUpScheduled = false;
                tp.catchUpTurn();
            });
        }
    }

    private void scheduleFlush() {
        if (!flushScheduled) {
            flushScheduled = true;
            loop.execute(() -> {
                flushScheduled = false;
                tp.flush();
            });
        }
    }

    private void startUpstream() {
        final TickClient.Settings s = new TickClient.Settings(settings.upstreamHost(), settings.upstreamPort(),
            settings.name() + "-chained", java.util.List.of(), java.util.List.of(), Duration.ofMillis(500), settings.maxFrameLength());
        upstream = new TickClient(s, new UpstreamListener(), () -> tp.journalSequence(), group, clock);
        upstream.start();
    }

    @Override
    public void close() {
        if (upstream != null) {
            upstream.close();
        }
        if (serverChannel != null) {
            serverChannel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        if (connectionsOpen != null) {
            // every feed and subscriber sees the close; event-loop shutdown alone does not promise it
            connectionsOpen.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        if (loop != null && tp != null) {
            try {
                loop.submit(() -> {
                    if (timerTask != null) {
                        timerTask.cancel(false);
                    }
                    if (housekeeping != null) {
                        housekeeping.cancel(false);
                    }
                    tp.close();
                }).get(10, TimeUnit.SECONDS);
            } catch (final Exception e) {
                LOG.warn("tickerplant close failed: {}", e.toString());
            }
        }
        if (group != null) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
    }

    /** Splits frames; counts a peer that vanished with part of a frame unread. */
    private final class TpFrameDecoder extends LengthFieldBasedFrameDecoder {
        TpFrameDecoder(final int maxFrameLength) {
            super(java.nio.ByteOrder.LITTLE_ENDIAN, maxFrameLength, 0, 4, -4, 0, true);
        }

        @Override
        public void channelInactive(final ChannelHandlerContext ctx) throws Exception {
            if (actualReadableBytes() > 0) {
                tp.countError(ErrorCode.TRUNCATED_FRAME);
                LOG.warn("connection closed in the middle of a frame [remote={}, bytes={}]", ctx.channel().remoteAddress(),
                    actualReadableBytes());
            }
            super.channelInactive(ctx);
        }
    }

    /** One feed or subscriber connection; runs on the tickerplant thread. */
    private final class ConnectionHandler extends ChannelInboundHandlerAdapter {
        private String name = "anonymous";
        private boolean feed;
        private boolean rejected;

        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
            final ByteBuf frame = (ByteBuf) msg;
            try {
                if (rejected) {
                    return;
                }
                final int offset = frame.readerIndex();
                final int length = frame.readableBytes();
                final String headerProblem = UpdateValidator.checkHeader(frame, offset, length);
                if (headerProblem != null) {
                    reject(ctx, ErrorCode.MALFORMED_FRAME, headerProblem);
                    return;
                }
                final int type = ControlFrames.type(frame, offset);
                switch (type) {
                    case MessageType.UPDATE:
                        if (!feed) {
                            feed = true;
                            feeds.incrementAndGet();
                        }
                        if (settings.chained()) {
                            reject(ctx, ErrorCode.UNEXPECTED_MESSAGE, "this tickerplant is chained and takes no feeds [upstream="
                                + settings.upstreamHost() + ":" + settings.upstreamPort() + "]");
                            return;
                        }
                        final ErrorCode code = tp.onUpdate(frame, offset, length);
                        if (code != ErrorCode.NONE) {
                            rejectCounted(ctx, code, tp.lastError());
                        }
                        break;
                    case MessageType.HELLO:
                        final ControlFrames.Hello hello = ControlFrames.readHello(frame);
                        name = hello.name();
                        if (hello.protocolVersion() != io.jtick.core.wire.FrameDescriptor.VERSION) {
                            reject(ctx, ErrorCode.UNSUPPORTED_VERSION, "unsupported protocol version [version="
                                + hello.protocolVersion() + "]");
                        }
                        break;
                    case MessageType.SUBSCRIBE:
                        final String problem = tp.onSubscribe(ctx.channel(), name, ControlFrames.readSubscribe(frame));
                        if (problem != null) {
                            rejectCounted(ctx, ErrorCode.BAD_SUBSCRIPTION, problem);
                        }
                        break;
                    case MessageType.HEARTBEAT:
                        break;
                    default:
                        reject(ctx, ErrorCode.UNEXPECTED_MESSAGE, "unexpected message from a client [type=" + MessageType.name(type) + "]");
                }
            } catch (final IndexOutOfBoundsException | IllegalArgumentException e) {
                reject(ctx, ErrorCode.MALFORMED_FRAME, "malformed frame: " + e.getMessage());
            } finally {
                frame.release();
            }
        }

        @Override
        public void channelReadComplete(final ChannelHandlerContext ctx) {
            tp.flush();
        }

        @Override
        public void channelWritabilityChanged(final ChannelHandlerContext ctx) {
            if (ctx.channel().isWritable()) {
                tp.onWritable(ctx.channel());
            }
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void channelInactive(final ChannelHandlerContext ctx) {
            if (feed) {
                feeds.decrementAndGet();
            }
            tp.onDisconnect(ctx.channel());
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            if (cause instanceof TooLongFrameException) {
                reject(ctx, ErrorCode.OVERSIZED_FRAME, "frame larger than the limit [limit=" + settings.maxFrameLength() + "]: "
                    + cause.getMessage());
            } else if (cause instanceof DecoderException) {
                reject(ctx, ErrorCode.MALFORMED_FRAME, "cannot split frames: " + cause.getMessage());
            } else if (cause instanceof IOException) {
                LOG.debug("connection error [remote={}, name={}]: {}", ctx.channel().remoteAddress(), name, cause.toString());
                ctx.close();
            } else {
                LOG.error("unexpected error on connection [remote={}, name={}]", ctx.channel().remoteAddress(), name, cause);
                reject(ctx, ErrorCode.MALFORMED_FRAME, "internal error handling this connection: " + cause);
            }
        }

        private void reject(final ChannelHandlerContext ctx, final ErrorCode code, final String reason) {
            if (!rejected) {
                tp.countError(code);
            }
            rejectCounted(ctx, code, reason);
        }

        /** Sends the error and closes; the tickerplant has already counted it. */
        private void rejectCounted(final ChannelHandlerContext ctx, final ErrorCode code, final String reason) {
            if (rejected) {
                return;
            }
            rejected = true;
            LOG.warn("rejected input, closing connection [remote={}, name={}, code={}]: {}", ctx.channel().remoteAddress(), name,
                code.tag(), reason);
            ctx.channel().config().setAutoRead(false);
            ctx.writeAndFlush(ControlFrames.error(ctx.alloc(), code, reason)).addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** Chained TP: the upstream TP's stream, on this TP's own thread. */
    private final class UpstreamListener implements TickListener {
        @Override
        public void onUpdate(final TableSchema schema, final UpdateDecoder update, final long receiveNanos) {
            final ErrorCode code = tp.onUpstreamUpdate(update.buffer(), update.offset(), update.frameLength());
            if (code != ErrorCode.NONE) {
                LOG.warn("update from upstream refused [code={}]: {}", code.tag(), tp.lastError());
            }
            scheduleFlush();
        }

        @Override
        public void onEndOfDay(final int epochDay, final long sequence) {
            tp.onEndOfDay();
        }
    }
}
