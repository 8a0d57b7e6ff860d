package io.jtick.core.client;

import io.jtick.core.wire.Transport;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.time.NanoClock;
import io.jtick.core.tls.TlsClient;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.FramePipeline;
import io.jtick.core.wire.LeaderHint.Address;
import io.jtick.core.wire.MessageType;
import io.jtick.core.wire.UpdateDecoder;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.SimpleChannelInboundHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A subscriber connection to a tickerplant ({@code .u.sub}): sends hello and subscribe, decodes
 * what comes back and calls a {@link TickListener} on its event-loop thread. On disconnect it
 * reconnects and subscribes again from {@code fromSequence.getAsLong()}, so a listener that
 * tracks its last sequence gets no gap and no duplicate across TP restarts.
 *
 * <p>With several tickerplants ({@link Settings#addresses}: the members of a TP cluster, whose
 * journals hold the same entries under the same sequence numbers; any member serves subscribers)
 * each drop or failed connect moves the client to the next address, at once the first time after
 * a subscription was lost, then every {@code reconnectDelay}. It subscribes there from the same
 * {@code fromSequence}, so it continues with no gap; and should that node not have applied the
 * last entries the listener already holds (a follower a little behind), their updates are dropped
 * here, counted in {@link #duplicatesDropped()}, so the listener sees no duplicate either.
 *
 * <p>The same client consumes an HDB replay ({@link #replay}): it sends REPLAY instead of
 * SUBSCRIBE, hears the same SUBSCRIBED and UPDATE frames, then {@link TickListener#onReplayDone};
 * a replay is one-shot, so it never reconnects.
 */
public final class TickClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TickClient.class);

    /**
     * Connection settings. {@code tables}/{@code syms} empty mean all.
     *
     * @param addresses the tickerplants, in the order tried: one, or every member of a TP cluster (a replay: the HDB's
     *                  replay port, the first only)
     * @param token     the API token to present in HELLO (protocol 2) where the port asks for it; null or empty: none
     */
    public record Settings(List<Address> addresses, String name, List<String> tables, List<String> syms,
                           Duration reconnectDelay, int maxFrameLength, String token) {
        public Settings {
            addresses = TickerplantAddresses.check("subscriber " + name, addresses);
            tables = List.copyOf(tables);
            syms = List.copyOf(syms);
            token = token == null || token.isEmpty() ? null : token;
        }

        /** One tickerplant at {@code host:port}. */
        public Settings(final String host, final int port, final String name, final List<String> tables, final List<String> syms,
                        final Duration reconnectDelay, final int maxFrameLength, final String token) {
            this(List.of(new Address(host, port)), name, tables, syms, reconnectDelay, maxFrameLength, token);
        }

        public static Settings of(final String host, final int port, final String name) {
            return of(List.of(new Address(host, port)), name);
        }

        /** {@link #of(String, int, String)} for the tickerplants at {@code addresses} (a TP cluster). */
        public static Settings of(final List<Address> addresses, final String name) {
            return new Settings(addresses, name, List.of(), List.of(), Duration.ofMillis(500), FrameDescriptor.DEFAULT_MAX_FRAME_LENGTH,
                null);
        }

        public Settings withTables(final List<String> t) {
            return new Settings(addresses, name, t, syms, reconnectDelay, maxFrameLength, token);
        }

        public Settings withSyms(final List<String> s) {
            return new Settings(addresses, name, tables, s, reconnectDelay, maxFrameLength, token);
        }

        public Settings withToken(final String t) {
            return new Settings(addresses, name, tables, syms, reconnectDelay, maxFrameLength, t);
        }

        public Settings withAddresses(final List<Address> a) {
            return new Settings(a, name, tables, syms, reconnectDelay, maxFrameLength, token);
        }

        /** Never shows the token. */
        @Override
        public String toString() {
            return "Settings[addresses=" + TickerplantAddresses.format(addresses) + ", name=" + name + ", tables=" + tables + ", syms="
                + syms + ", reconnectDelay=" + reconnectDelay + ", maxFrameLength=" + maxFrameLength + ", token="
                + (token == null ? "(none)" : "(set)") + "]";
        }
    }

    private final Settings settings;
    private final TickListener listener;
    private final LongSupplier fromSequence;
    private final EventLoopGroup group;
    private final boolean ownGroup;
    private final NanoClock clock;
    private final ControlFrames.Replay replay;
    private volatile Channel channel;
    private volatile boolean closed;
    private volatile boolean subscribed;
    /** The tickerplant connected to, or tried next. */
    private volatile Address target;
    /** Event loop only: position of {@code target} in the addresses. */
    private int index;
    /** Event loop only: the next connect goes at once (a subscription was just lost and there is another address). */
    private boolean atOnce;
    /** Event loop only: updates at or below this sequence are ones the listener holds (the subscribe's from); 0: none. */
    private long holds;
    private volatile long duplicatesDropped;
    private volatile long tpChanges;
    /** access-denied answers since the last SUBSCRIBED: each doubles the wait before reconnecting, up to 64×. */
    private volatile int refusals;
    private TlsClient tls = TlsClient.OFF;

    /**
     * @param group event loop to run on (the caller's, e.g. a chained TP's own thread) or null for a private one
     */
    public TickClient(final Settings settings, final TickListener listener, final LongSupplier fromSequence,
                      final EventLoopGroup group, final NanoClock clock) {
        this(settings, listener, fromSequence, group, clock, null);
    }

    private TickClient(final Settings settings, final TickListener listener, final LongSupplier fromSequence,
                       final EventLoopGroup group, final NanoClock clock, final ControlFrames.Replay replay) {
        this.replay = replay;
        this.settings = settings;
        this.listener = listener;
        this.fromSequence = fromSequence;
        this.ownGroup = group == null;
        this.group = group == null ? Transport.newGroup(1, "tick-client-" + settings.name()) : group;
        this.clock = clock;
        this.target = settings.addresses().get(0);
    }

    /**
     * A consumer of an HDB replay at the first of {@code settings.addresses()} (the HDB's replay port);
     * {@code settings.tables()} and {@code syms()} are not used, the request says what to replay.
     * Call {@link #start()}; the connection closes after REPLAY_DONE and is not reopened.
     */
    public static TickClient replay(final Settings settings, final ControlFrames.Replay request, final TickListener listener,
                                    final EventLoopGroup group, final NanoClock clock) {
        return new TickClient(settings, listener, () -> -1, group, clock, request);
    }

    /** Connects with TLS (before {@link #start}): the tickerplant's (or replay port's) certificate and host name verified. */
    public TickClient tls(final TlsClient client) {
        this.tls = client;
        return this;
    }

    public void start() {
        connect();
    }

    public boolean isConnected() {
        final Channel ch = channel;
        return ch != null && ch.isActive();
    }

    /** True once the TP has answered the current connection's subscribe. */
    public boolean isSubscribed() {
        return subscribed && isConnected();
    }

    public Settings settings() {
        return settings;
    }

    /** The tickerplant connected to, or the one tried next. */
    public Address tickerplant() {
        return target;
    }

    /** Moves to another of the addresses (a node lost, not reachable). */
    public long tickerplantChanges() {
        return tpChanges;
    }

    /** Updates dropped because the listener already held them (a node behind the one before it). */
    public long duplicatesDropped() {
        return duplicatesDropped;
    }

    private void connect() {
        if (closed) {
            return;
        }
        final Address to = target;
        final Bootstrap b = Transport.client(group, to)
            .option(ChannelOption.SO_RCVBUF, 1 << 20)
            .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(256 * 1024))
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 2000)
            .handler(new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(final Channel ch) {
                    if (!to.isUnix()) {
                        tls.install(ch.pipeline(), to.host(), to.port());
                    }
                    FramePipeline.install(ch.pipeline(), settings.maxFrameLength());
                    ch.pipeline().addLast(new Handler());
                }
            });
        Transport.connect(b, to).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                if (replay == null) {
                    next("not reachable: " + f.cause());
                    scheduleReconnect();
                } else {
                    listener.onError(ErrorCode.NONE, "cannot connect [tp=" + to + "]: " + f.cause());
                    listener.onDisconnected();
                }
                return;
            }
            final Channel ch = f.channel();
            channel = ch;
            if (closed) {
                // close() ran while this connect was in flight and may have read the channel before it was set:
                // set first, checked after (both volatile), so either close() or this closes it
                ch.close();
                return;
            }
            ch.closeFuture().addListener(cf -> {
                final boolean wasSubscribed = subscribed;
                subscribed = false;
                listener.onDisconnected();
                if (replay == null) {
                    atOnce = wasSubscribed && settings.addresses().size() > 1;
                    next("connection lost");
                    scheduleReconnect();
                }
            });
            ch.write(ControlFrames.clientHello(ch.alloc(), ControlFrames.ROLE_SUBSCRIBER, settings.name(), 0, settings.token()));
            if (replay != null) {
                ch.writeAndFlush(ControlFrames.replay(ch.alloc(), replay));
            } else {
                final long from = fromSequence.getAsLong();
                holds = Math.max(0, from);
                ch.writeAndFlush(ControlFrames.subscribe(ch.alloc(), from, settings.tables(), settings.syms()));
            }
        });
    }

    /** Event loop: the next connect goes to the next address (the same one when there is one). */
    private void next(final String why) {
        final List<Address> all = settings.addresses();
        if (all.size() == 1 || closed) {
            return;
        }
        final Address from = target;
        index = (index + 1) % all.size();
        target = all.get(index);
        tpChanges++;
        LOG.info("subscriber goes on to another tickerplant [client={}, from={}, to={}, why={}, fromSequence={}]", settings.name(), from,
            target, why, fromSequence.getAsLong());
    }

    /**
     * After {@code reconnectDelay}; a tickerplant that refused the token ({@code access-denied}) will
     * refuse it again until someone changes a setting, so each refusal in a row doubles the wait (at
     * most 64 × {@code reconnectDelay}) instead of knocking every {@code reconnectDelay}.
     */
    private void scheduleReconnect() {
        if (closed || group.isShuttingDown()) {
            return;
        }
        if (atOnce) {
            atOnce = false;
            group.execute(this::connect);
        } else {
            group.schedule(this::connect, reconnectMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** The wait before the next connection attempt. */
    long reconnectMillis() {
        return settings.reconnectDelay().toMillis() << Math.min(refusals, 6);
    }

    @Override
    public void close() {
        closed = true;
        final Channel ch = channel;
        if (ch != null) {
            ch.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        if (ownGroup) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    private final class Handler extends SimpleChannelInboundHandler<ByteBuf> {
        private final UpdateDecoder decoder = new UpdateDecoder();
        private Map<String, TableSchema> schemas = new HashMap<>();
        private TableSchema[] lastSchemas = new TableSchema[0];

        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final ByteBuf frame) {
            final long now = clock.epochNanos();
            final int type = ControlFrames.type(frame, frame.readerIndex());
            switch (type) {
                case MessageType.UPDATE:
                    decoder.wrap(frame, frame.readerIndex());
                    if (holds > 0) {
                        final long sequence = decoder.sequence();
                        if (sequence > 0 && sequence <= holds) {
                            duplicatesDropped++;
                            return;
                        }
                        holds = 0;
                    }
                    final TableSchema schema = schemaOf(frame);
                    if (schema == null) {
                        LOG.warn("update for a table the TP did not announce [table={}]", decoder.tableName());
                        return;
                    }
                    listener.onUpdate(schema, decoder, now);
                    break;
                case MessageType.SUBSCRIBED:
                    final ControlFrames.Subscribed s = ControlFrames.readSubscribed(frame);
                    schemas = new HashMap<>(s.schemas());
                    lastSchemas = s.schemas().values().toArray(new TableSchema[0]);
                    subscribed = true;
                    refusals = 0;
                    listener.onSubscribed(s);
                    break;
                case MessageType.CATCH_UP_DONE:
                    listener.onCatchUpDone(ControlFrames.readSequence(frame));
                    break;
                case MessageType.END_OF_DAY:
                    final ControlFrames.EndOfDay eod = ControlFrames.readEndOfDay(frame);
                    holds = 0;
                    listener.onEndOfDay(eod.epochDay(), eod.sequence());
                    break;
                case MessageType.ERROR:
                    final ControlFrames.Error e = ControlFrames.readError(frame);
                    if (e.code() == ErrorCode.ACCESS_DENIED) {
                        refusals++;
                    }
                    LOG.warn("tickerplant error [client={}, code={}]: {}", settings.name(), e.code().tag(), e.message());
                    listener.onError(e.code(), e.message());
                    break;
                case MessageType.REPLAY_DONE:
                    listener.onReplayDone(ControlFrames.readReplayDone(frame));
                    break;
                case MessageType.HEARTBEAT:
                    break;
                default:
                    LOG.warn("unexpected frame from tickerplant [type={}]", MessageType.name(type));
            }
        }

        private TableSchema schemaOf(final ByteBuf frame) {
            final int nameOffset = decoder.tableNameOffset();
            final int nameLength = decoder.tableNameLength();
            for (final TableSchema s : lastSchemas) {
                final byte[] n = s.nameBytes();
                if (n.length == nameLength && frame.getByte(nameOffset) == n[0]
                    && sameName(frame, nameOffset, n)) {
                    return s;
                }
            }
            return schemas.get(decoder.tableName());
        }

        private boolean sameName(final ByteBuf frame, final int offset, final byte[] n) {
            for (int i = 1; i < n.length; i++) {
                if (frame.getByte(offset + i) != n[i]) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            LOG.warn("subscriber connection failed [client={}]: {}", settings.name(), cause.toString());
            ctx.close();
        }
    }
}
