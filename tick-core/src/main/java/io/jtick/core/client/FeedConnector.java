package io.jtick.core.client;

import io.jtick.core.tls.TlsClient;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.FramePipeline;
import io.jtick.core.wire.LeaderHint;
import io.jtick.core.wire.LeaderHint.Address;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A feed's connection to the tickerplant and its backoff: connects, says HELLO, hands FEED_ACK and
 * ERROR frames to the {@link FeedPublisher}, and when the connection drops (or cannot be made)
 * connects again after a bounded exponential backoff ({@link FeedPublisher.Settings#reconnectMin}
 * doubling up to {@link FeedPublisher.Settings#reconnectMax}; with several addresses it doubles once per
 * round of the list, so that every member of a cluster is asked again soon while it elects a leader;
 * back to the minimum once the tickerplant acknowledges progress on a connection, or at once for a
 * protocol 1 feed).
 *
 * <p>Which tickerplant ({@link FeedPublisher.Settings#addresses}, tried in order): after a drop or a
 * failed connect, the next address of the list (the same one when there is one). A cluster follower's
 * refusal {@code not-leader} sends the feed to the leader it names (or, during an election, to the
 * next address), at once the first time in a row and with the backoff after (two nodes that name
 * each other while the leadership moves are not knocked on in a loop); while the leader is unknown the
 * next member is asked after the minimum wait, the backoff not growing (an election ends within
 * seconds); {@code no-quorum} to the next address, with the backoff. Every move is counted, logged and kept ({@link #lastNodeChange}).
 *
 * <p>State: {@code channel} (the current connection, volatile), {@code ready} (it has its HELLO answer;
 * guarded by the publisher's monitor), {@code connects}, {@code connectAttempts}, {@code target} (the
 * address being connected to or connected), {@code nodeChanges} and {@code lastNodeChange} (volatile,
 * written on the event loop), {@code backoffStep}, {@code index} (the list position last used),
 * {@code refusal} (where the refused current connection sends the feed next) and {@code refusalsInRow}
 * (event loop only).
 */
final class FeedConnector {
    /** The feed's lines under the feed's name. */
    private static final Logger LOG = LoggerFactory.getLogger(FeedPublisher.class);

    /** Where the next connection goes, and why: {@code atOnce} skips the backoff; {@code electing} waits the minimum, not growing it. */
    private record Move(Address to, String why, boolean atOnce, boolean electing) {
        Move(final Address to, final String why, final boolean atOnce) {
            this(to, why, atOnce, false);
        }
    }

    private final FeedPublisher publisher;
    private final FeedPublisher.Settings settings;
    private final List<Address> addresses;
    private final EventLoopGroup group;
    private final boolean ownGroup;
    private volatile Channel channel;
    private volatile long connects;
    private volatile long connectAttempts;
    private volatile Address target;
    private volatile long nodeChanges;
    private volatile String lastNodeChange;
    private boolean ready;
    private int backoffStep;
    private int index;
    private Move refusal;
    private int refusalsInRow;
    /** Set before {@link #start}: TLS to the tickerplant, or plaintext. */
    TlsClient tls = TlsClient.OFF;

    /** @param group the event loop to run on, or null for a private one */
    FeedConnector(final FeedPublisher publisher, final EventLoopGroup group) {
        this.publisher = publisher;
        this.settings = publisher.settings();
        this.addresses = settings.addresses();
        this.target = addresses.get(0);
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

    /** The tickerplant connected to, or being connected to. */
    Address target() {
        return target;
    }

    /** Moves to another tickerplant of the list (or named as leader). */
    long nodeChanges() {
        return nodeChanges;
    }

    /** The last move: {@code from -> to (why)}, or null. */
    String lastNodeChange() {
        return lastNodeChange;
    }

    /** The tickerplant acknowledged progress: the next reconnect waits the minimum again. */
    void progress() {
        backoffStep = 0;
    }

    /**
     * Event loop: the tickerplant on {@code ch} refused this feed because it cannot take it ({@code not-leader},
     * {@code no-quorum}): the connection is closed and the next one goes where the refusal says.
     */
    void refused(final Channel ch, final ErrorCode code, final String reason) {
        if (ch != channel) {
            return;
        }
        if (code == ErrorCode.NOT_LEADER) {
            refusalsInRow++;
            final Address leader = LeaderHint.leaderOf(reason);
            refusal = leader != null ? new Move(leader, "not-leader, leader " + leader, refusalsInRow == 1)
                : new Move(next(), "not-leader, leader unknown", refusalsInRow == 1, true);
        } else {
            refusal = new Move(next(), code.tag(), false);
        }
        ch.close();
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
        final Address to = target;
        final Bootstrap b = Transport.client(group, to)
            .option(ChannelOption.SO_SNDBUF, 1 << 20)
            .option(ChannelOption.WRITE_BUFFER_WATER_MARK, BackPressure.WATER_MARK)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 2_000)
            .handler(new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(final Channel ch) {
                    if (!to.isUnix()) {
                        tls.install(ch.pipeline(), to.host(), to.port());
                    }
                    FramePipeline.install(ch.pipeline(), 1 << 20);
                    ch.pipeline().addLast(new Handler());
                }
            });
        Transport.connect(b, to).addListener((ChannelFutureListener) this::onConnect);
    }

    private void onConnect(final ChannelFuture f) {
        if (!f.isSuccess()) {
            if (connectAttempts == 1 || connectAttempts % 20 == 0 || addresses.size() > 1) {
                LOG.info("tickerplant not reachable, retrying [tp={}, feed={}, attempts={}]: {}", target, settings.name(),
                    connectAttempts, f.cause() == null ? "" : f.cause().toString());
            }
            moveTo(next(), "unreachable");
            scheduleReconnect(false, false);
            return;
        }
        final Channel ch = f.channel();
        synchronized (publisher) {
            ready = false;
            channel = ch;
        }
        if (publisher.closing()) {
            // set first, checked after (both volatile): a close() that read the old channel is seen here
            ch.close();
            return;
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
        if (settings.numbered()) {
            refusalsInRow = 0; // a numbered feed is refused at HELLO: answered, it is taken
        } else {
            backoffStep = 0;
        }
        if (connects > 1) {
            LOG.info("feed reconnected [tp={}, feed={}, reconnects={}]", target, settings.name(), connects - 1);
        }
    }

    private void onDisconnected(final Channel ch) {
        synchronized (publisher) {
            if (channel == ch) {
                ready = false;
            }
        }
        Move m = refusal;
        refusal = null;
        if (m == null) {
            refusalsInRow = 0;
            m = new Move(next(), "connection lost", false);
            if (!publisher.isClosed()) {
                LOG.warn("feed connection to the tickerplant lost, reconnecting [tp={}, feed={}, unacknowledged={}]", target,
                    settings.name(), publisher.stats().bufferedUpdates());
            }
        }
        moveTo(m.to(), m.why());
        scheduleReconnect(m.atOnce(), m.electing());
    }

    /** The address after the one last used from the list (the same one when the list has one). */
    private Address next() {
        return addresses.get((index + 1) % addresses.size());
    }

    /** The next connection goes to {@code to}: counted and logged when it is another tickerplant. */
    private void moveTo(final Address to, final String why) {
        final int at = addresses.indexOf(to);
        if (at >= 0) {
            index = at;
        }
        final Address from = target;
        if (to.equals(from) || publisher.isClosed()) {
            return;
        }
        target = to;
        lastNodeChange = from + " -> " + to + " (" + why + ")";
        nodeChanges++;
        LOG.info("feed goes on to another tickerplant [feed={}, from={}, to={}, why={}]", settings.name(), from, to, why);
    }

    private void scheduleReconnect(final boolean atOnce, final boolean electing) {
        if (publisher.isClosed() || group.isShuttingDown()) {
            return;
        }
        if (atOnce) {
            group.execute(this::connectNow);
            return;
        }
        if (electing) {
            // the cluster is electing (a member said the leader is unknown): the next member after the
            // minimum wait, without growing the backoff, so the new leader is found soon after it is elected
            group.schedule(this::connectNow, settings.reconnectMin().toMillis(), TimeUnit.MILLISECONDS);
            return;
        }
        final long min = settings.reconnectMin().toMillis();
        // with several tickerplants the wait doubles once per round of the list, not per attempt: while a
        // cluster elects, every member is asked again soon, and the feed finds the new leader within a wait
        final int doublings = Math.min(backoffStep / addresses.size(), 20);
        final long delay = Math.min(settings.reconnectMax().toMillis(), min << doublings);
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
                publisher.onError(ctx.channel(), ControlFrames.readError(frame));
            }
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            // once per connection: every write still queued on a broken connection fails with the same cause
            if (ctx.channel().isOpen()) {
                LOG.warn("feed connection failed [feed={}]: {}", settings.name(), cause.toString());
                ctx.close();
            }
        }
    }
}
