package io.jtick.core.client;

import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.FramePipeline;
import io.jtick.core.wire.MessageType;
import io.jtick.core.wire.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
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
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

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
 * <p>When the buffer is full the policy ({@link WhenFull}) decides, and the answer is the return
 * value, never an exception: {@code BLOCK} waits for acknowledgements up to {@link Settings#blockTimeout},
 * {@code FAIL} returns false at once. Backpressure from a slow tickerplant shows the same way, since
 * what it has not read stays unacknowledged.
 *
 * <p>Errors: an ERROR frame is counted and kept ({@link #lastError}); journal-failure (the TP could
 * not journal an update, it closes the connection), internal-error (the TP failed on its side) and
 * feed-replaced are followed by a reconnect and a resend; any other code means the tickerplant will
 * never take what this feed sends (a bad frame, an unknown table, a chained TP, an unsupported
 * version), so the publisher stops: it does not reconnect and {@code send} returns false
 * ({@link #failure}).
 *
 * <p>With {@link Settings#numbered} false it is a protocol 1 feed: no numbers, no buffer, no resend;
 * {@code send} returns false when not connected or when the socket is over its high-water mark, and
 * what was in flight when a connection dropped is lost.
 *
 * <p>Threads: any thread may call {@code send} (one at a time); the connection runs on an event loop.
 * State shared by both is guarded by this object's monitor: the ring of unacknowledged chunks
 * ({@code ring}, {@code first[]}, {@code last[]}, {@code head}, {@code size}, {@code bufferedBytes}),
 * {@code nextNumber}, {@code acked}, {@code ready} (the current connection has its HELLO answer).
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
     * @param numbered     protocol 2 numbered feed (buffer, acknowledgements, resend); false: protocol 1
     * @param bufferBytes  bytes of unacknowledged updates kept for resending (a single send larger than it is
     *                     taken when the buffer is empty)
     * @param whenFull     what {@code send} does when they do not fit
     * @param blockTimeout longest a {@code BLOCK} send waits
     * @param reconnectMin first wait before reconnecting; doubles after each failed attempt...
     * @param reconnectMax ...up to this
     * @param token        the API token to present in HELLO (protocol 2) where the port asks for it; null or empty: none
     */
    public record Settings(String host, int port, String name, boolean numbered, long bufferBytes, WhenFull whenFull,
                           Duration blockTimeout, Duration reconnectMin, Duration reconnectMax, String token) {
        public Settings {
            token = token == null || token.isEmpty() ? null : token;
            if (name == null || name.isEmpty() || name.length() > 255) {
                throw new IllegalArgumentException("feed name must be 1..255 characters [name=" + name + "]");
            }
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

        /** A numbered feed: 64 MiB buffer, BLOCK up to 1 s, reconnect after 100 ms doubling up to 5 s. */
        public static Settings of(final String host, final int port, final String name) {
            return new Settings(host, port, name, true, 64L << 20, WhenFull.BLOCK, Duration.ofSeconds(1), Duration.ofMillis(100),
                Duration.ofSeconds(5), null);
        }

        public Settings withNumbered(final boolean n) {
            return new Settings(host, port, name, n, bufferBytes, whenFull, blockTimeout, reconnectMin, reconnectMax, token);
        }

        public Settings withBuffer(final long bytes, final WhenFull policy, final Duration block) {
            return new Settings(host, port, name, numbered, bytes, policy, block, reconnectMin, reconnectMax, token);
        }

        public Settings withReconnect(final Duration min, final Duration max) {
            return new Settings(host, port, name, numbered, bufferBytes, whenFull, blockTimeout, min, max, token);
        }

        public Settings withToken(final String t) {
            return new Settings(host, port, name, numbered, bufferBytes, whenFull, blockTimeout, reconnectMin, reconnectMax, t);
        }

        /** Never shows the token. */
        @Override
        public String toString() {
            return "Settings[host=" + host + ", port=" + port + ", name=" + name + ", numbered=" + numbered + ", bufferBytes=" + bufferBytes
                + ", whenFull=" + whenFull + ", blockTimeout=" + blockTimeout + ", reconnectMin=" + reconnectMin + ", reconnectMax="
                + reconnectMax + ", token=" + (token == null ? "(none)" : "(set)") + "]";
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
     */
    public record Stats(boolean connected, long connects, long reconnects, long connectAttempts, long lastNumber, long acked,
                        long bufferedUpdates, long bufferedBytes, long resentUpdates, long refusedFull, long errors, String lastError,
                        String failure) {
    }

    private final Settings settings;
    private final EventLoopGroup group;
    private final boolean ownGroup;

    private ByteBuf[] ring = new ByteBuf[64];
    private long[] first = new long[64];
    private long[] last = new long[64];
    private int head;
    private int size;
    private long bufferedBytes;
    private long nextNumber = 1;
    private long acked;
    private boolean ready;
    private boolean numberingKnown;

    private volatile Channel channel;
    private volatile boolean started;
    private volatile boolean closed;
    private volatile String failure;
    private volatile String lastError;
    private volatile long errors;
    private volatile long connects;
    private volatile long connectAttempts;
    private volatile long resent;
    private volatile long refusedFull;
    private int backoffStep;

    /** A numbered feed with the default buffer and backoff ({@link Settings#of}). */
    public FeedPublisher(final String host, final int port, final String name, final EventLoopGroup group) {
        this(Settings.of(host, port, name), group);
    }

    /** @param group the event loop to run on, or null for a private one */
    public FeedPublisher(final Settings settings, final EventLoopGroup group) {
        this.settings = settings;
        this.ownGroup = group == null;
        this.group = group == null ? Transport.newGroup(1, "feed-" + settings.name()) : group;
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
            throw new IOException("cannot connect to tickerplant [host=" + settings.host() + ", port=" + settings.port() + ", feed="
                + settings.name() + "]" + (why == null ? "" : ": " + why));
        }
        return this;
    }

    /** Starts connecting in the background; returns at once. */
    public FeedPublisher start() {
        if (!started) {
            started = true;
            group.execute(this::connectNow);
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
        final Channel ch = channel;
        if (ch == null || !ch.isActive()) {
            return false;
        }
        synchronized (this) {
            return ready;
        }
    }

    /** Closed, or stopped for good by an error the tickerplant will not get over ({@link #failure}). */
    public boolean isClosed() {
        return closed || failure != null;
    }

    /** Allocator for frame buffers (pooled, direct). */
    public ByteBufAllocator alloc() {
        final Channel ch = channel;
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
            count = countFrames(given);
        } catch (final RuntimeException e) {
            given.release();
            throw e;
        }
        final ByteBuf frames = compact(given);
        final int bytes = frames.capacity();
        synchronized (this) {
            if (!waitForRoom(bytes)) {
                frames.release();
                return false;
            }
            final long number = nextNumber;
            for (int off = frames.readerIndex(), end = frames.writerIndex(); off < end; off += frames.getIntLE(off)) {
                frames.setLongLE(off + FrameDescriptor.SEQUENCE_OFFSET, nextNumber++);
            }
            if (size == ring.length) {
                grow();
            }
            final int at = (head + size) % ring.length;
            ring[at] = frames;
            first[at] = number;
            last[at] = number + count - 1;
            size++;
            bufferedBytes += bytes;
            final Channel ch = channel;
            if (ready && ch != null) {
                ch.writeAndFlush(frames.retainedDuplicate(), ch.voidPromise());
            }
        }
        return true;
    }

    /**
     * What is kept is what memory it holds: a buffer much larger than its frames (a caller's generous
     * initial capacity) is copied into one that fits them, once, before it is kept.
     */
    private static ByteBuf compact(final ByteBuf frames) {
        final int readable = frames.readableBytes();
        if (frames.capacity() - readable <= Math.max(4096, readable)) {
            return frames;
        }
        final ByteBuf fit = frames.alloc().directBuffer(readable, readable);
        fit.writeBytes(frames, frames.readerIndex(), readable);
        frames.release();
        return fit;
    }

    /**
     * Caller holds the monitor. Waits for room (and, before the first connection, for the numbering)
     * under the policy; false when the frames must be refused.
     */
    private boolean waitForRoom(final int bytes) {
        long deadline = 0;
        while (true) {
            if (closed || failure != null) {
                return false;
            }
            if (numberingKnown && (size == 0 || bufferedBytes + bytes <= settings.bufferBytes())) {
                return true;
            }
            if (settings.whenFull() == WhenFull.FAIL) {
                if (numberingKnown) {
                    refusedFull++;
                }
                return false;
            }
            final long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + settings.blockTimeout().toNanos();
            }
            if (now >= deadline) {
                if (numberingKnown) {
                    refusedFull++;
                }
                return false;
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, deadline - now);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    private static int countFrames(final ByteBuf frames) {
        int n = 0;
        final int end = frames.writerIndex();
        int off = frames.readerIndex();
        while (off < end) {
            final int len = end - off >= 4 ? frames.getIntLE(off) : -1;
            if (len < FrameDescriptor.TABLE_NAME_OFFSET || off + len > end
                || frames.getUnsignedByte(off + FrameDescriptor.TYPE_OFFSET) != MessageType.UPDATE) {
                throw new IllegalArgumentException("not whole UPDATE frames [offset=" + (off - frames.readerIndex()) + ", length=" + len
                    + ", bytes=" + frames.readableBytes() + "]");
            }
            off += len;
            n++;
        }
        return n;
    }

    private void grow() {
        final int n = ring.length * 2;
        final ByteBuf[] r = new ByteBuf[n];
        final long[] f = new long[n];
        final long[] l = new long[n];
        for (int k = 0; k < size; k++) {
            final int from = (head + k) % ring.length;
            r[k] = ring[from];
            f[k] = first[from];
            l[k] = last[from];
        }
        ring = r;
        first = f;
        last = l;
        head = 0;
    }

    private boolean sendUnnumbered(final ByteBuf frames) {
        final Channel ch = channel;
        if (closed || failure != null || ch == null || !ch.isActive() || !ch.isWritable()) {
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
        final long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            if (isClosed()) {
                return false;
            }
            if (settings.numbered()) {
                synchronized (this) {
                    if (numberingKnown && (size == 0 || bufferedBytes < settings.bufferBytes())) {
                        return true;
                    }
                }
            } else {
                final Channel ch = channel;
                if (ch == null || !ch.isActive()) {
                    return false;
                }
                if (ch.isWritable()) {
                    return true;
                }
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            LockSupport.parkNanos(50_000);
        }
    }

    /** Numbered: waits until every update sent so far is acknowledged (journalled by the tickerplant); false on timeout. */
    public boolean awaitAcknowledged(final long timeoutNanos) {
        final long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            synchronized (this) {
                if (acked >= nextNumber - 1) {
                    return true;
                }
            }
            if (isClosed() || System.nanoTime() > deadline) {
                return false;
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    /** Blocks until everything written so far on the current connection has been handed to the socket. */
    public void flushAndWait() {
        final Channel ch = channel;
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
            final long c = connects;
            return new Stats(isConnectedLocked(), c, Math.max(0, c - 1), connectAttempts, nextNumber - 1, acked,
                size == 0 ? 0 : nextNumber - first[head], bufferedBytes, resent, refusedFull, errors, lastError, failure);
        }
    }

    private boolean isConnectedLocked() {
        final Channel ch = channel;
        return ch != null && ch.isActive() && ready;
    }

    @Override
    public void close() {
        closed = true;
        synchronized (this) {
            notifyAll();
        }
        final Channel ch = channel;
        if (ch != null) {
            ch.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        if (ownGroup) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        synchronized (this) {
            while (size > 0) {
                ring[head].release();
                ring[head] = null;
                head = (head + 1) % ring.length;
                size--;
            }
            bufferedBytes = 0;
        }
    }

    // ---------------------------------------------------------------- event loop

    private void connectNow() {
        if (closed || failure != null || group.isShuttingDown()) {
            return;
        }
        connectAttempts++;
        final Bootstrap b = new Bootstrap()
            .group(group)
            .channel(Transport.socketChannel(group))
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.SO_SNDBUF, 1 << 20)
            .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(4 << 20, 16 << 20))
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
        if (closed) {
            ch.close();
            return;
        }
        synchronized (this) {
            ready = false;
            channel = ch;
        }
        ch.closeFuture().addListener(cf -> onDisconnected(ch));
        ch.writeAndFlush(ControlFrames.clientHello(ch.alloc(), ControlFrames.ROLE_FEED, settings.name(),
            settings.numbered() ? FrameDescriptor.HELLO_FLAG_NUMBERED : 0, settings.token()));
        if (!settings.numbered()) {
            synchronized (this) {
                ready = true;
                numberingKnown = true;
            }
            connected();
        }
    }

    /** A connection is up; the backoff starts again from its minimum once the tickerplant acknowledges progress on it. */
    private void connected() {
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
        synchronized (this) {
            if (channel == ch) {
                ready = false;
            }
        }
        if (!closed && failure == null) {
            LOG.warn("feed connection to the tickerplant lost, reconnecting [host={}, port={}, feed={}, unacknowledged={}]",
                settings.host(), settings.port(), settings.name(), stats().bufferedUpdates());
        }
        scheduleReconnect();
    }

    private void scheduleReconnect() {
        if (closed || failure != null || group.isShuttingDown()) {
            return;
        }
        final long min = settings.reconnectMin().toMillis();
        final long delay = Math.min(settings.reconnectMax().toMillis(), min << Math.min(backoffStep, 20));
        backoffStep++;
        group.schedule(this::connectNow, delay, TimeUnit.MILLISECONDS);
    }

    /** FEED_ACK: the first on a connection answers HELLO (resend what follows it); later ones free what they cover. */
    private void onAck(final Channel ch, final long n) {
        final boolean first;
        synchronized (this) {
            if (channel != ch) {
                return;
            }
            first = !ready;
            if (first) {
                answerHello(ch, n);
            } else if (n > acked) {
                acked = n;
                free(n);
                backoffStep = 0;
            }
            notifyAll();
        }
        if (first) {
            connected();
        }
    }

    /** Caller holds the monitor: the HELLO answer {@code n}; resends every kept update after it, then turns live. */
    private void answerHello(final Channel ch, final long n) {
        if (!numberingKnown) {
            numberingKnown = true;
            if (n >= nextNumber) {
                if (nextNumber > 1) {
                    LOG.warn("the tickerplant holds more of this feed than it sent; is another process using its name? [feed={}, "
                        + "journalled={}, lastSent={}]", settings.name(), n, nextNumber - 1);
                }
                nextNumber = n + 1;
            }
        } else if (n >= nextNumber) {
            LOG.warn("the tickerplant holds more of this feed than it sent; is another process using its name? [feed={}, journalled={}, "
                + "lastSent={}]", settings.name(), n, nextNumber - 1);
        }
        if (size > 0 && n + 1 < first[head]) {
            LOG.error("the tickerplant lacks updates this feed no longer keeps (journal lost or repaired?) [feed={}, journalled={}, "
                + "oldestKept={}]", settings.name(), n, first[head]);
        }
        acked = n;
        free(n);
        long sent = 0;
        for (int k = 0; k < size; k++) {
            final int at = (head + k) % ring.length;
            final ByteBuf buf = ring[at];
            if (first[at] > n) {
                ch.write(buf.retainedDuplicate(), ch.voidPromise());
                sent += last[at] - first[at] + 1;
            } else {
                int off = buf.readerIndex();
                for (long num = first[at]; num <= n; num++) {
                    off += buf.getIntLE(off);
                }
                ch.write(buf.retainedSlice(off, buf.writerIndex() - off), ch.voidPromise());
                sent += last[at] - n;
            }
        }
        ch.flush();
        ready = true;
        resent += sent;
        if (sent > 0) {
            LOG.info("feed resent updates after connecting [feed={}, from={}, updates={}]", settings.name(), n + 1, sent);
        }
    }

    /** Caller holds the monitor: releases every chunk whose updates are all at or below {@code n}. */
    private void free(final long n) {
        while (size > 0 && last[head] <= n) {
            bufferedBytes -= ring[head].capacity();
            ring[head].release();
            ring[head] = null;
            head = (head + 1) % ring.length;
            size--;
        }
    }

    private void onError(final ControlFrames.Error e) {
        lastError = e.code().tag() + ": " + e.message();
        errors++; // after lastError: whoever sees the count sees the message
        final ErrorCode c = e.code();
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

    private final class Handler extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final ByteBuf frame) {
            final int type = ControlFrames.type(frame, frame.readerIndex());
            if (type == MessageType.FEED_ACK) {
                onAck(ctx.channel(), ControlFrames.readSequence(frame));
            } else if (type == MessageType.ERROR) {
                onError(ControlFrames.readError(frame));
            }
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            LOG.warn("feed connection failed [feed={}]: {}", settings.name(), cause.toString());
            ctx.close();
        }
    }
}
