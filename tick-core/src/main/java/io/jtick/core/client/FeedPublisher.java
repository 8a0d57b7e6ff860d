package io.jtick.core.client;

import io.jtick.core.tls.TlsClient;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.LeaderHint.Address;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;

/**
 * A feed's connection to the tickerplant ({@code h(".u.upd";t;x)}), which survives the
 * tickerplant's restarts without losing an update: a numbered feed (protocol 2, the default).
 *
 * <p>{@link #send} takes whole UPDATE frames (ownership of the buffer), writes the feed's next numbers
 * into their sequence fields, keeps them in a buffer of unacknowledged updates bounded in bytes of
 * memory held ({@link Settings#bufferBytes}; a send's buffer much larger than its frames is copied
 * into one that fits them) and writes them to the tickerplant. FEED_ACK from the tickerplant
 * frees what it has journalled. When the connection drops, the publisher reconnects by itself with
 * bounded exponential backoff ({@link Settings#reconnectMin} doubling up to {@link Settings#reconnectMax}),
 * says HELLO, and the tickerplant answers with the last number it journalled: everything after it is
 * sent again (the tickerplant drops what it already has). Meanwhile {@code send} keeps buffering.
 *
 * <p>A TP cluster: {@link Settings#addresses} lists its members. Only the leader takes feeds; a
 * follower answers HELLO (protocol 1: the first UPDATE) with ERROR {@code not-leader} naming the
 * leader ({@link io.jtick.core.wire.LeaderHint}), and the feed connects there at once (the first
 * time in a row; after that with the backoff), or to the next address while the leader is unknown.
 * {@code no-quorum}, a drop or a failed connect move it to the next address with the backoff. The
 * new leader's answer to HELLO says what of this feed it holds (everything acknowledged was
 * committed on a majority, so it holds at least that), and the feed resends what follows, as after
 * any reconnect: nothing acknowledged is lost and nothing is journalled twice. {@link Stats#tp},
 * {@link Stats#tpChanges} and the log say where it went and why.
 *
 * <p>When the buffer is full the policy ({@link WhenFull}) decides, and the answer is the return
 * value, never an exception: {@code BLOCK} waits for acknowledgements up to {@link Settings#blockTimeout},
 * {@code FAIL} returns false at once. Backpressure from a slow tickerplant shows the same way, since
 * what it has not read stays unacknowledged.
 *
 * <p>Errors: an ERROR frame is counted and kept ({@link #lastError}); not-leader and no-quorum move
 * the feed to another tickerplant (above); journal-failure (the TP could
 * not journal an update, it closes the connection), internal-error (the TP failed on its side) and
 * feed-replaced are followed by a reconnect and a resend; any other code means the tickerplant will
 * never take what this feed sends (a bad frame, an unknown table, a chained TP, an unsupported
 * version), so the publisher stops: it does not reconnect and {@code send} returns false
 * ({@link #failure}).
 *
 * <p>{@link #close(Duration)} (and {@link #close()}, which waits up to {@link Settings#blockTimeout}, at least 1 s)
 * first waits for the tickerplant to acknowledge what was sent while the connection is up, as Kafka's
 * producer waits for its in-flight sends: sending then closing loses nothing while the tickerplant is there.
 *
 * <p>With {@link Settings#numbered} false it is a protocol 1 feed: no numbers, no buffer, no resend;
 * {@code send} returns false when not connected or when the socket is over its high-water mark, and
 * what was in flight when a connection dropped is lost.
 *
 * <p>Roles: {@link FeedConnector} the connection, HELLO and the reconnect backoff; {@link ResendBuffer}
 * the numbered updates not yet acknowledged; {@link BackPressure} the full buffer (or, protocol 1, the
 * socket's high-water mark) as a return value. This class is the API and the HELLO answer's resend.
 *
 * <p>Threads: any thread may call {@code send} (one at a time); the connection runs on an event loop.
 * State shared by both is guarded by this object's monitor: the {@link ResendBuffer} (the ring of
 * unacknowledged chunks, {@code nextNumber}, {@code acked}) and the connector's {@code ready} (the
 * current connection has its HELLO answer). Its own fields are volatile: {@code started},
 * {@code closed}, {@code failure}, {@code lastError}, {@code errors}, {@code resent}, {@code ackListener}.
 */
public final class FeedPublisher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FeedPublisher.class);

    /** What {@link #send} does when the buffer of unacknowledged updates is full. */
    public enum WhenFull {
        /** Wait for acknowledgements (up to the block timeout); then false. Nothing is dropped. */
        BLOCK,
        /** Return false at once; the caller keeps (or drops) the frames. */
        FAIL
    }

    /**
     * @param addresses    the tickerplants, in the order tried: one, or every member of a TP cluster (the feed
     *                     follows the leader, see the class comment)
     * @param numbered     protocol 2 numbered feed (buffer, acknowledgements, resend); false: protocol 1
     * @param bufferBytes  bytes of unacknowledged updates kept for resending (a single send larger than it is
     *                     taken when the buffer is empty)
     * @param whenFull     what {@code send} does when they do not fit
     * @param blockTimeout longest a {@code BLOCK} send waits
     * @param reconnectMin first wait before reconnecting; doubles after each failed attempt...
     * @param reconnectMax ...up to this
     * @param token        the API token to present in HELLO (protocol 2) where the port asks for it; null or empty: none
     */
    public record Settings(List<Address> addresses, String name, boolean numbered, long bufferBytes, WhenFull whenFull,
                           Duration blockTimeout, Duration reconnectMin, Duration reconnectMax, String token) {
        public Settings {
            token = token == null || token.isEmpty() ? null : token;
            if (name == null || name.isEmpty() || name.length() > 255) {
                throw new IllegalArgumentException("feed name must be 1..255 characters [name=" + name + "]");
            }
            addresses = TickerplantAddresses.check("feed " + name, addresses);
            if (bufferBytes < 1024) {
                throw new IllegalArgumentException("bufferBytes must be at least 1 KiB [bufferBytes=" + bufferBytes + "]");
            }
            if (whenFull == null || blockTimeout == null || blockTimeout.isNegative()) {
                throw new IllegalArgumentException("whenFull and a non-negative blockTimeout are required [blockTimeout=" + blockTimeout
                    + "]");
            }
            if (reconnectMin == null || reconnectMax == null || reconnectMin.toMillis() < 1 || reconnectMax.compareTo(reconnectMin) < 0) {
                throw new IllegalArgumentException("need 1 ms <= reconnectMin <= reconnectMax [reconnectMin=" + reconnectMin
                    + ", reconnectMax=" + reconnectMax + "]");
            }
        }

        /** One tickerplant at {@code host:port}. */
        public Settings(final String host, final int port, final String name, final boolean numbered, final long bufferBytes,
                        final WhenFull whenFull, final Duration blockTimeout, final Duration reconnectMin, final Duration reconnectMax,
                        final String token) {
            this(List.of(new Address(host, port)), name, numbered, bufferBytes, whenFull, blockTimeout, reconnectMin, reconnectMax,
                token);
        }

        /** A numbered feed: 64 MiB buffer, BLOCK up to 1 s, reconnect after 100 ms doubling up to 5 s. */
        public static Settings of(final String host, final int port, final String name) {
            return of(List.of(new Address(host, port)), name);
        }

        /** {@link #of(String, int, String)} for the tickerplants at {@code addresses} (a TP cluster). */
        public static Settings of(final List<Address> addresses, final String name) {
            return new Settings(addresses, name, true, 64L << 20, WhenFull.BLOCK, Duration.ofSeconds(1), Duration.ofMillis(100),
                Duration.ofSeconds(5), null);
        }

        public Settings withNumbered(final boolean n) {
            return new Settings(addresses, name, n, bufferBytes, whenFull, blockTimeout, reconnectMin, reconnectMax, token);
        }

        public Settings withBuffer(final long bytes, final WhenFull policy, final Duration block) {
            return new Settings(addresses, name, numbered, bytes, policy, block, reconnectMin, reconnectMax, token);
        }

        public Settings withReconnect(final Duration min, final Duration max) {
            return new Settings(addresses, name, numbered, bufferBytes, whenFull, blockTimeout, min, max, token);
        }

        public Settings withToken(final String t) {
            return new Settings(addresses, name, numbered, bufferBytes, whenFull, blockTimeout, reconnectMin, reconnectMax, t);
        }

        public Settings withAddresses(final List<Address> a) {
            return new Settings(a, name, numbered, bufferBytes, whenFull, blockTimeout, reconnectMin, reconnectMax, token);
        }

        /** Never shows the token. */
        @Override
        public String toString() {
            return "Settings[addresses=" + TickerplantAddresses.format(addresses) + ", name=" + name + ", numbered=" + numbered
                + ", bufferBytes=" + bufferBytes + ", whenFull=" + whenFull + ", blockTimeout=" + blockTimeout + ", reconnectMin="
                + reconnectMin + ", reconnectMax=" + reconnectMax + ", token=" + (token == null ? "(none)" : "(set)") + "]";
        }
    }

    /**
     * A snapshot.
     *
     * @param connected       the current connection is up (and, numbered, has its HELLO answer)
     * @param connects        connections made (HELLO answered, numbered), the first included
     * @param reconnects      connections made after a drop
     * @param connectAttempts connection attempts, failed ones included
     * @param lastNumber      the last number given to an update (numbered)
     * @param acked           the last number the tickerplant acknowledged
     * @param bufferedUpdates updates kept unacknowledged
     * @param bufferedBytes   their bytes
     * @param resentUpdates   updates sent again after reconnects
     * @param refusedFull     sends refused because the buffer stayed full
     * @param errors          ERROR frames received
     * @param lastError       the last one ({@code code: message}), or null
     * @param failure         why the publisher stopped for good, or null
     * @param tp              the tickerplant connected to, or being tried ({@code host:port})
     * @param tpChanges       moves to another of the feed's tickerplants (a cluster's leader moved, a node was lost)
     * @param lastTpChange    the last of them, {@code from -> to (why)}, or null
     */
    public record Stats(boolean connected, long connects, long reconnects, long connectAttempts, long lastNumber, long acked,
                        long bufferedUpdates, long bufferedBytes, long resentUpdates, long refusedFull, long errors, String lastError,
                        String failure, String tp, long tpChanges, String lastTpChange) {
    }

    /** The least {@link #close()} waits for acknowledgements (a FAIL feed's block timeout is often zero). */
    public static final Duration CLOSE_WAIT_MIN = Duration.ofSeconds(1);

    private final Settings settings;
    private final ResendBuffer buffer;
    private final BackPressure backPressure;
    private final FeedConnector connector;

    private volatile boolean started;
    private volatile boolean closed;
    private volatile String failure;
    private volatile String lastError;
    private volatile long errors;
    private volatile long resent;
    private volatile LongConsumer ackListener;

    /** A numbered feed with the default buffer and backoff ({@link Settings#of}). */
    public FeedPublisher(final String host, final int port, final String name, final EventLoopGroup group) {
        this(Settings.of(host, port, name), group);
    }

    /** @param group the event loop to run on, or null for a private one */
    public FeedPublisher(final Settings settings, final EventLoopGroup group) {
        this.settings = settings;
        this.buffer = new ResendBuffer(settings.bufferBytes());
        this.backPressure = new BackPressure(settings);
        this.connector = new FeedConnector(this, group);
    }

    public Settings settings() {
        return settings;
    }

    /**
     * Starts connecting (and reconnecting, for as long as it is open) and waits up to
     * {@code timeoutMillis} for the first connection (numbered: for the tickerplant's HELLO answer).
     *
     * @throws IOException not connected in time (it goes on trying in the background until closed)
     */
    public FeedPublisher connect(final long timeoutMillis) throws IOException {
        start();
        if (!awaitConnected(TimeUnit.MILLISECONDS.toNanos(timeoutMillis))) {
            final String why = failure != null ? failure : lastError;
            throw new IOException("cannot connect to tickerplant [tp=" + TickerplantAddresses.format(settings.addresses()) + ", feed="
                + settings.name() + "]" + (why == null ? "" : ": " + why));
        }
        return this;
    }

    /** Connects with TLS (before {@link #start}): the tickerplant's certificate and host name verified. */
    public FeedPublisher tls(final TlsClient client) {
        connector.tls = client;
        return this;
    }

    /** Starts connecting in the background; returns at once. */
    public FeedPublisher start() {
        if (!started) {
            started = true;
            connector.start();
        }
        return this;
    }

    /** Waits until connected (numbered: HELLO answered); false on timeout, close or failure. */
    public boolean awaitConnected(final long timeoutNanos) {
        final long deadline = System.nanoTime() + timeoutNanos;
        while (!isConnected()) {
            if (closed || failure != null || System.nanoTime() > deadline) {
                return false;
            }
            LockSupport.parkNanos(1_000_000);
        }
        return true;
    }

    /** Connected, and (numbered) the tickerplant has answered HELLO. */
    public boolean isConnected() {
        final Channel ch = connector.channel();
        if (ch == null || !ch.isActive()) {
            return false;
        }
        synchronized (this) {
            return connector.ready();
        }
    }

    /** Closed, or stopped for good by an error the tickerplant will not get over ({@link #failure}). */
    public boolean isClosed() {
        return closed || failure != null;
    }

    /** Allocator for frame buffers (pooled, direct). */
    public ByteBufAllocator alloc() {
        final Channel ch = connector.channel();
        return ch != null ? ch.alloc() : PooledByteBufAllocator.DEFAULT;
    }

    /**
     * Sends whole UPDATE frames; takes ownership of {@code frames}. Numbered: numbers them, keeps them
     * until acknowledged and writes them when connected; false (frames released) when the buffer stays
     * full ({@link WhenFull}), before the first connection, or once closed or failed. Protocol 1: false
     * when not connected or the socket is over its high-water mark.
     *
     * @throws IllegalArgumentException the buffer does not hold whole frames
     */
    public boolean send(final ByteBuf given) {
        if (!settings.numbered()) {
            return sendUnnumbered(given);
        }
        final int count;
        try {
            count = ResendBuffer.countFrames(given);
        } catch (final RuntimeException e) {
            given.release();
            throw e;
        }
        final ByteBuf frames = ResendBuffer.compact(given);
        synchronized (this) {
            if (!backPressure.waitForRoom(this, buffer, frames.capacity())) {
                frames.release();
                return false;
            }
            buffer.add(frames, count);
            final Channel ch = connector.channel();
            if (connector.ready() && ch != null) {
                ch.writeAndFlush(frames.retainedDuplicate(), ch.voidPromise());
            }
        }
        return true;
    }

    private boolean sendUnnumbered(final ByteBuf frames) {
        final Channel ch = connector.channel();
        if (closed || failure != null || !BackPressure.writable(ch)) {
            frames.release();
            return false;
        }
        ch.writeAndFlush(frames, ch.voidPromise());
        return true;
    }

    /**
     * Waits (parking) until a send could be taken: numbered, until the buffer has room (and the
     * numbering is known); protocol 1, until connected and writable. False on timeout, close or failure.
     */
    public boolean awaitWritable(final long timeoutNanos) {
        return backPressure.awaitWritable(this, buffer, timeoutNanos);
    }

    /**
     * Numbered: tells {@code listener} the feed's last acknowledged number each time it advances (a
     * FEED_ACK, or a HELLO answer that covers updates sent before it), on the connection's event loop
     * and outside this object's monitor; it must not block. For measuring how long acknowledgements
     * take (feed → acknowledgement latency); null removes it.
     */
    public FeedPublisher onAcknowledged(final LongConsumer listener) {
        this.ackListener = listener;
        return this;
    }

    /**
     * Numbered: waits until every update sent so far is acknowledged (journalled by the tickerplant), across
     * reconnects; false on timeout, close, failure or interrupt (the interrupt is kept).
     */
    public boolean awaitAcknowledged(final long timeoutNanos) {
        return awaitAcknowledged(timeoutNanos, false);
    }

    /** {@link #awaitAcknowledged(long)}; with {@code whileConnected}, false as soon as the connection is down too. */
    private boolean awaitAcknowledged(final long timeoutNanos, final boolean whileConnected) {
        final long start = System.nanoTime();
        synchronized (this) {
            while (!buffer.allAcknowledged()) {
                final long left = timeoutNanos - (System.nanoTime() - start);
                if (left <= 0 || isClosed() || whileConnected && !isConnectedLocked()) {
                    return false;
                }
                try {
                    // FEED_ACK notifies; a dropped connection or a reconnect does not, so the wait is sliced
                    wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 10)));
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }
    }

    /** Blocks until everything written so far on the current connection has been handed to the socket. */
    public void flushAndWait() {
        final Channel ch = connector.channel();
        if (ch != null && ch.isActive()) {
            ch.writeAndFlush(ch.alloc().buffer(0)).awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
    }

    public long errorsReceived() {
        return errors;
    }

    /** The last ERROR from the tickerplant ({@code code: message}), or null. */
    public String lastError() {
        return lastError;
    }

    /** Why the publisher stopped for good, or null. */
    public String failure() {
        return failure;
    }

    public Stats stats() {
        synchronized (this) {
            final long c = connector.connects();
            return new Stats(isConnectedLocked(), c, Math.max(0, c - 1), connector.connectAttempts(), buffer.lastNumber(), buffer.acked(),
                buffer.updates(), buffer.bytes(), resent, backPressure.refusedFull(), errors, lastError, failure,
                connector.target().toString(), connector.nodeChanges(), connector.lastNodeChange());
        }
    }

    private boolean isConnectedLocked() {
        final Channel ch = connector.channel();
        return ch != null && ch.isActive() && connector.ready();
    }

    /** {@link #close(Duration)} waiting up to {@link Settings#blockTimeout}, and at least {@link #CLOSE_WAIT_MIN}. */
    @Override
    public void close() {
        close(settings.blockTimeout().compareTo(CLOSE_WAIT_MIN) < 0 ? CLOSE_WAIT_MIN : settings.blockTimeout());
    }

    /**
     * Closes; a numbered feed first waits, up to {@code wait}, until the tickerplant has acknowledged
     * (journalled) every update sent, as long as the connection stays up: {@code send} then close loses
     * nothing while the tickerplant is there. Closing at once could also lose updates already written to
     * the socket: closed with FEED_ACKs still unread in it, the socket is reset rather than ended, and the
     * reset discards what this side's kernel had not transmitted yet (the last writes). The tickerplant
     * acknowledges every {@code feedAckUpdates} updates or, for the last ones, once {@code feedAckInterval}
     * has passed (it looks every 50 ms), so the wait for them is up to about 150 ms with the defaults.
     *
     * <p>No wait when the connection is down (a reconnect is not waited for), when the publisher failed, for
     * protocol 1, when called on the connection's own event loop (which is what would deliver the
     * acknowledgements), or on an interrupted thread (the interrupt is kept). What is still unacknowledged then
     * is dropped and logged. Closing the connection and a private event loop takes up to a few seconds more.
     *
     * @return true when nothing sent was left unacknowledged (always, protocol 1, which keeps nothing)
     */
    public boolean close(final Duration wait) {
        boolean drained = false;
        long unacknowledged = 0;
        try {
            drained = drain(wait);
        } finally {
            closed = true;
            synchronized (this) {
                notifyAll();
            }
            connector.close();
            synchronized (this) {
                if (settings.numbered() && buffer.updates() > 0) {
                    // numbers, not updates(): that counts whole sends, the acknowledged part of the oldest included
                    unacknowledged = Math.max(0, buffer.lastNumber() - buffer.acked());
                }
                buffer.clear();
            }
        }
        if (!drained && unacknowledged > 0) {
            LOG.warn("feed closed with updates the tickerplant has not acknowledged; they are dropped [feed={}, unacknowledged={}]",
                settings.name(), unacknowledged);
        }
        return drained || unacknowledged == 0;
    }

    /** Numbered: waits as {@link #close(Duration)} says; true when every update sent is acknowledged. */
    private boolean drain(final Duration wait) {
        final Channel ch = connector.channel();
        if (!settings.numbered() || ch != null && ch.eventLoop().inEventLoop()) {
            return false;
        }
        // TimeUnit.convert saturates where Duration.toNanos throws (a Duration of centuries)
        return awaitAcknowledged(TimeUnit.NANOSECONDS.convert(wait), true);
    }

    // ---------------------------------------------------------------- event loop (from the connector)

    /** The channel of the current connection, or null. */
    Channel channel() {
        return connector.channel();
    }

    /** {@link #close} was called (a connection made since is closed at once). */
    boolean closing() {
        return closed;
    }

    /** A protocol 1 connection is up: ready at once, there is no numbering to wait for. */
    void unnumberedUp() {
        synchronized (this) {
            connector.ready(true);
            buffer.unnumbered();
        }
    }

    /** FEED_ACK: the first on a connection answers HELLO (resend what follows it); later ones free what they cover. */
    void onAck(final Channel ch, final long n) {
        final boolean first;
        final long before;
        final long after;
        synchronized (this) {
            if (connector.channel() != ch) {
                return;
            }
            before = buffer.acked();
            first = !connector.ready();
            if (first) {
                answerHello(ch, n);
            } else if (buffer.acknowledge(n)) {
                connector.progress();
            }
            after = buffer.acked();
            notifyAll();
        }
        if (first) {
            connector.connected();
        }
        final LongConsumer listener = ackListener;
        if (listener != null && after > before) {
            listener.accept(after);
        }
    }

    /** Caller holds the monitor: the HELLO answer {@code n}; resends every kept update after it, then turns live. */
    private void answerHello(final Channel ch, final long n) {
        final long lastSent = buffer.lastNumber();
        if (!buffer.helloAnswered(n)) {
            LOG.warn("the tickerplant holds more of this feed than it sent; is another process using its name? [feed={}, journalled={}, "
                + "lastSent={}]", settings.name(), n, lastSent);
        }
        final long oldest = buffer.oldest();
        if (oldest > 0 && n + 1 < oldest) {
            LOG.error("the tickerplant lacks updates this feed no longer keeps (journal lost or repaired?) [feed={}, journalled={}, "
                + "oldestKept={}]", settings.name(), n, oldest);
        }
        final long sent = buffer.resendAfter(ch, n);
        ch.flush();
        connector.ready(true);
        resent += sent;
        if (sent > 0) {
            LOG.info("feed resent updates after connecting [feed={}, from={}, updates={}]", settings.name(), n + 1, sent);
        }
    }

    void onError(final Channel ch, final ControlFrames.Error e) {
        lastError = e.code().tag() + ": " + e.message();
        errors++; // after lastError: whoever sees the count sees the message
        final ErrorCode c = e.code();
        if (c == ErrorCode.NOT_LEADER || c == ErrorCode.NO_QUORUM) {
            LOG.warn("tickerplant cannot take this feed, going on to another [feed={}, tp={}, code={}]: {}", settings.name(),
                connector.target(), c.tag(), e.message());
            connector.refused(ch, c, e.message());
            return;
        }
        final boolean transientError = c == ErrorCode.JOURNAL_FAILURE || c == ErrorCode.FEED_REPLACED || c == ErrorCode.SHUTTING_DOWN
            || c == ErrorCode.INTERNAL_ERROR;
        if (settings.numbered() && transientError) {
            LOG.warn("tickerplant refused feed input, will reconnect and resend [feed={}, code={}]: {}", settings.name(), c.tag(),
                e.message());
        } else {
            failure = lastError;
            LOG.error("tickerplant rejected feed input; the feed stops [feed={}, code={}]: {}", settings.name(), c.tag(), e.message());
            synchronized (this) {
                notifyAll();
            }
        }
    }
}
