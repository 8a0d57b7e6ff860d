package io.jtick.core.feed;

import io.jtick.core.client.FeedPublisher;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs one {@link TickSource} into a {@link FeedPublisher} on its own thread ({@link #start}).
 * Every timer tick, on a fixed-rate schedule (tick k starts at start + k*t; a late tick runs at
 * once and the lateness is reported, the schedule does not drift), it writes the tick's frames
 * back to back into one buffer and sends them. A refused send (back pressure, or a full buffer of
 * unacknowledged updates while the tickerplant is away) is counted, waited out with
 * {@link FeedPublisher#awaitWritable} and retried, so no row is dropped; except with a numbered
 * publisher whose policy is {@link FeedPublisher.WhenFull#FAIL}: then the tick's rows are dropped and
 * counted ({@code rowsDropped}) and the schedule goes on. A numbered publisher reconnects and resends
 * by itself, so a tickerplant restart does not end the run. It ends at the row limit, the duration,
 * the end of the source, {@link #stop()}, when the publisher stops for good (the tickerplant rejected
 * the feed), or, for a protocol 1 publisher, a lost connection; and closes the source.
 *
 * <p>State, written only by the runner thread and read by anyone: {@code state}, {@code stopReason},
 * {@code rows}, {@code updates}, {@code bytes}, {@code waits}, {@code dropped}, {@code behind}, {@code maxBehind},
 * {@code startNanos}, {@code endNanos}, {@code error}.
 */
public final class FeedRunner implements Runnable {
    private static final long WRITABLE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final int SEND_BYTES = 1 << 20;
    private static final int INITIAL_BUFFER = 1 << 16;

    private final TickSource source;
    private final FeedPublisher publisher;
    private final RunSettings settings;
    private final NanoClock clock;
    private final FeedCounters totals;
    private final CountDownLatch ended = new CountDownLatch(1);
    private final UpdateEncoder encoder = new UpdateEncoder();

    private volatile Thread thread;
    private volatile boolean stopRequested;
    private volatile String state = "created";
    private volatile String stopReason;
    private volatile String error;
    private volatile long rows;
    private volatile long updates;
    private volatile long bytes;
    private volatile long waits;
    private volatile long dropped;
    private volatile long behind;
    private volatile long maxBehind;
    private volatile long startNanos;
    private volatile long endNanos;
    private long pendingRows;
    private long pendingUpdates;

    public FeedRunner(final TickSource source, final FeedPublisher publisher, final RunSettings settings, final NanoClock clock,
                      final FeedCounters totals) {
        if (settings.pace() == Pace.RECORDED && source.nextEventTime() == TickSource.NO_TIME) {
            throw new IllegalArgumentException("recorded pace needs a replay source [table=" + source.schema().name() + "]");
        }
        this.source = source;
        this.publisher = publisher;
        this.settings = settings;
        this.clock = clock;
        this.totals = totals == null ? FeedCounters.unregistered() : totals;
    }

    /** Starts the runner thread. */
    public FeedRunner start() {
        final Thread t = new Thread(this, "feed-runner-" + source.schema().name());
        t.setDaemon(true);
        thread = t;
        t.start();
        return this;
    }

    /** Asks the runner to end after the current send; returns at once. */
    public void stop() {
        stopRequested = true;
        final Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Waits for the runner to end; true if it did within the timeout. */
    public boolean awaitEnd(final long timeout, final TimeUnit unit) throws InterruptedException {
        return ended.await(timeout, unit);
    }

    public RunSettings settings() {
        return settings;
    }

    public FeedStatus status() {
        final long start = startNanos;
        final long end = endNanos;
        final long elapsed = start == 0 ? 0 : (end != 0 ? end : System.nanoTime()) - start;
        final long r = rows;
        final String tpError = publisher.lastError();
        return new FeedStatus(state, stopReason, r, updates, bytes, elapsed > 0 ? r * 1e9 / elapsed : 0, waits,
            TimeUnit.NANOSECONDS.toMillis(behind), TimeUnit.NANOSECONDS.toMillis(maxBehind), TimeUnit.NANOSECONDS.toMillis(elapsed),
            publisher.errorsReceived(), error != null ? error : tpError, dropped, publisher.stats());
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        startNanos = System.nanoTime();
        state = "running";
        try {
            loop();
        } catch (final RuntimeException | Error e) {
            error = e.toString();
            end("failed", "runner failed: " + e);
        } finally {
            try {
                source.close();
            } finally {
                endNanos = System.nanoTime();
                ended.countDown();
            }
        }
    }

    private void loop() {
        final long tickNanos = TimeUnit.MILLISECONDS.toNanos(settings.timerMillis());
        final long durationNanos = TimeUnit.MILLISECONDS.toNanos(settings.maxDurationMillis());
        final Pace pace = settings.pace();
        final long replayBase = pace == Pace.RECORDED ? source.nextEventTime() : 0;
        long nextTick = startNanos;
        while (true) {
            final long now = System.nanoTime();
            if (stopRequested) {
                end("stopped", "stop requested");
                return;
            }
            if (settings.maxRows() > 0 && rows >= settings.maxRows()) {
                end("finished", "row limit reached");
                return;
            }
            if (durationNanos > 0 && now - startNanos >= durationNanos) {
                end("finished", "duration reached");
                return;
            }
            if (source.nextEventTime() == TickSource.END) {
                end("finished", "end of data");
                return;
            }
            if (pace != Pace.MAX) {
                if (now < nextTick) {
                    LockSupport.parkNanos(this, nextTick - now);
                    continue;
                }
                final long late = now - nextTick;
                behind = late;
                if (late > maxBehind) {
                    maxBehind = late;
                }
                nextTick += tickNanos;
            }
            if (!tick(pace, replayBase, now)) {
                return;
            }
        }
    }

    /** Encodes and sends one tick's frames; false when the run must end. */
    private boolean tick(final Pace pace, final long replayBase, final long now) {
        ByteBuf buf = publisher.alloc().directBuffer(INITIAL_BUFFER);
        try {
            final long feedTime = clock.epochNanos();
            final long dueBefore = pace == Pace.RECORDED
                ? replayBase + (long) ((now - startNanos) * settings.speed()) + 1 : Long.MAX_VALUE;
            final int maxUpdates = pace == Pace.RECORDED ? Integer.MAX_VALUE : settings.updatesPerTick();
            for (int i = 0; i < maxUpdates; i++) {
                final int limit = rowLimit();
                if (limit == 0) {
                    break;
                }
                final int n = source.encodeUpdate(encoder, buf, limit, dueBefore, feedTime);
                if (n == 0) {
                    break;
                }
                pendingRows += n;
                pendingUpdates++;
                if (buf.readableBytes() >= SEND_BYTES && i + 1 < maxUpdates) {
                    final ByteBuf full = buf;
                    buf = null;
                    if (!send(full)) {
                        return false;
                    }
                    buf = publisher.alloc().directBuffer(INITIAL_BUFFER);
                }
            }
            if (buf.isReadable()) {
                final ByteBuf full = buf;
                buf = null;
                return send(full);
            }
            return true;
        } finally {
            if (buf != null) {
                buf.release();
            }
        }
    }

    private int rowLimit() {
        if (settings.maxRows() == 0) {
            return settings.rowsPerUpdate();
        }
        return (int) Math.min(settings.rowsPerUpdate(), Math.max(0, settings.maxRows() - rows - pendingRows));
    }

    /** Sends (takes ownership of) the frames, waiting out back pressure; false when the run must end. */
    private boolean send(final ByteBuf frames) {
        final int length = frames.readableBytes();
        final FeedPublisher.Settings ps = publisher.settings();
        try {
            while (true) {
                frames.retain();
                if (publisher.send(frames)) {
                    rows += pendingRows;
                    updates += pendingUpdates;
                    bytes += length;
                    totals.rows().addAndGet(pendingRows);
                    totals.updates().addAndGet(pendingUpdates);
                    totals.bytes().addAndGet(length);
                    pendingRows = 0;
                    pendingUpdates = 0;
                    return true;
                }
                if (publisher.isClosed()) {
                    return lost();
                }
                if (ps.numbered() && ps.whenFull() == FeedPublisher.WhenFull.FAIL) {
                    dropped += pendingRows;
                    totals.rowsDropped().addAndGet(pendingRows);
                    pendingRows = 0;
                    pendingUpdates = 0;
                    return true;
                }
                waits++;
                totals.backPressureWaits().incrementAndGet();
                while (!publisher.awaitWritable(WRITABLE_WAIT_NANOS)) {
                    if (publisher.isClosed() || !ps.numbered() && !publisher.isConnected()) {
                        return lost();
                    }
                    if (stopRequested) {
                        end("stopped", "stop requested while back-pressured [unsentRows=" + pendingRows + "]");
                        return false;
                    }
                }
            }
        } finally {
            frames.release();
        }
    }

    /** The publisher stopped for good, or a protocol 1 connection dropped: the run fails. */
    private boolean lost() {
        final String why = publisher.failure() != null ? "the tickerplant rejected the feed: " + publisher.failure()
            : "connection to the tickerplant lost";
        error = why;
        end("failed", why + " [unsentRows=" + pendingRows + "]");
        return false;
    }

    private void end(final String newState, final String reason) {
        stopReason = reason;
        state = newState;
    }
}
