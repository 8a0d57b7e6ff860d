package io.jtick.core.replay;

import io.jtick.core.metrics.LatencyStats;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Reads a {@link ReplayPlan} in time order and encodes it as UPDATE frames: a {@link WindowLoader}
 * reads, decodes and orders one time window at a time into a {@link ReplayWindow}, and this reader
 * cuts each window into frames of consecutive rows of one table, at most {@code rowsPerUpdate} each
 * (and, at recorded pace, spanning at most the pace quantum × speed of recorded time), which
 * {@link WindowEncoder} encodes by copying.
 *
 * <p>Decode ahead: given an executor, the loader runs there, filling up to {@link #AHEAD} windows
 * ahead of the one being framed (a bounded queue of decoded windows, each read once), so reading,
 * decoding and ordering the next windows overlap with encoding and sending this one. When no window
 * is ready the framing thread loads the next itself, or waits for the load in progress; so a loader
 * task queued behind busy threads never stalls it. Loads are serialised by {@code loadLock} (the
 * loader's state is sequential); the queues ({@code ready}, {@code free}), {@code scheduled},
 * {@code ended}, {@code failure} and {@code closed} are guarded by this object's monitor. Without
 * an executor (a consumer that reads on its own) every load is inline, as before.
 *
 * <p>Memory: the loader's buffers plus up to {@code AHEAD + 1} windows of about 2 × windowRows rows.
 * Framing state ({@code current}, {@code offset}, {@code next}, {@code rowsDone}) belongs to one
 * thread at a time (a stream passes its reader between threads under its lock).
 */
final class ReplayReader implements AutoCloseable {
    /** Windows decoded ahead of the one being framed. */
    static final int AHEAD = 2;

    private final ReplayPlan plan;
    private final long quantumSpan;
    private final WindowLoader loader;
    private final WindowEncoder encoder;
    private final Executor ahead;
    private final ReentrantLock loadLock = new ReentrantLock();
    private final ArrayDeque<ReplayWindow> ready = new ArrayDeque<>();
    private final ArrayDeque<ReplayWindow> free = new ArrayDeque<>();
    private int windows;
    private boolean scheduled;
    private boolean ended;
    private RuntimeException failure;
    private boolean closed;

    private ReplayWindow current;
    private int offset;
    /** Per table: index of its next row in the current window's columns. */
    private final int[] next;
    private long rowsDone;

    /**
     * @param windowTimes where the time to read and order each window is recorded
     * @param ahead       where windows are decoded ahead (null: only when asked for, on the framing thread)
     */
    ReplayReader(final ReplayPlan plan, final LatencyStats windowTimes, final Executor ahead) {
        this.plan = plan;
        this.quantumSpan = plan.paced ? (long) Math.max(1, Math.min(Long.MAX_VALUE / 2, plan.settings.paceQuantumNanos() * plan.speed))
            : Long.MAX_VALUE;
        this.loader = new WindowLoader(plan, windowTimes);
        this.encoder = new WindowEncoder(plan.schemas.size());
        this.ahead = ahead;
        this.next = new int[plan.schemas.size()];
    }

    /** Positions the reader at {@code c} (a stream's start, or where a consumer that leaves the stream stands). */
    ReplayReader seek(final ReplayFrame.Cursor c) {
        rowsDone = c.rowsDone();
        final ReplayWindow w = window();
        if (!loader.seek(c, w)) {
            release(w);
            return this;
        }
        current = w;
        offset = c.offset();
        java.util.Arrays.fill(next, 0);
        if (w.tableAt == null) {
            next[0] = offset;
        } else {
            for (int i = 0; i < offset; i++) {
                next[w.tableAt[i]]++;
            }
        }
        schedule();
        return this;
    }

    /** The next frame, or null when the replay has no rows left. */
    ReplayFrame next(final ByteBufAllocator alloc) {
        while (current == null || offset >= current.rows) {
            if (current != null) {
                release(current);
                current = null;
            }
            final ReplayWindow w = take();
            if (w == null) {
                return null;
            }
            current = w;
            offset = 0;
            java.util.Arrays.fill(next, 0);
        }
        final ReplayWindow w = current;
        final int t = w.tableAt == null ? 0 : w.tableAt[offset];
        final int from = next[t];
        final long[] times = (long[]) w.columns[t][io.jtick.core.schema.TableSchema.TIME];
        final int limit = Math.min(plan.rowsPerUpdate, w.rows - offset);
        final long firstTime = times[from];
        int n = 1;
        if (w.tableAt == null) {
            if (quantumSpan == Long.MAX_VALUE) {
                n = limit;
            } else {
                while (n < limit && times[from + n] - firstTime <= quantumSpan) {
                    n++;
                }
            }
        } else {
            while (n < limit && w.tableAt[offset + n] == t && times[from + n] - firstTime <= quantumSpan) {
                n++;
            }
        }
        final ByteBuf buf = encoder.encode(alloc, plan.schemas.get(t), t, w.day[t], w.columns[t], from, n, rowsDone + n);
        offset += n;
        next[t] += n;
        rowsDone += n;
        return new ReplayFrame(buf, t, n, firstTime, w.date, new ReplayFrame.Cursor(w.date, w.start, w.end, w.span, offset, rowsDone));
    }

    // ------------------------------------------------------------------ decode ahead

    /** The next window in order: one decoded ahead, else loaded here (or by the load in progress). */
    private ReplayWindow take() {
        synchronized (this) {
            final ReplayWindow w = poll();
            if (w != null || ended) {
                return w;
            }
        }
        loadLock.lock();
        try {
            final ReplayWindow w;
            synchronized (this) {
                final ReplayWindow got = poll();
                if (got != null || ended) {
                    return got;
                }
                w = window();
            }
            if (loader.load(w)) {
                return w;
            }
            synchronized (this) {
                ended = true;
                free.add(w);
            }
            return null;
        } finally {
            loadLock.unlock();
            schedule();
        }
    }

    /** A ready window, or null; rethrows a failure of the loader task (lock held). */
    private ReplayWindow poll() {
        final ReplayWindow w = ready.poll();
        if (w == null && failure != null) {
            throw failure;
        }
        return w;
    }

    /** A free window, or a new one while fewer than {@code AHEAD + 1} exist (lock held). */
    private synchronized ReplayWindow window() {
        final ReplayWindow w = free.poll();
        if (w != null) {
            return w;
        }
        windows++;
        return new ReplayWindow(plan.schemas);
    }

    private void release(final ReplayWindow w) {
        synchronized (this) {
            free.add(w);
        }
        schedule();
    }

    /** Starts the loader task when there is room ahead and it is not running. */
    private void schedule() {
        synchronized (this) {
            if (ahead == null || scheduled || closed || ended || failure != null || !roomAhead()) {
                return;
            }
            scheduled = true;
        }
        try {
            ahead.execute(this::loadAhead);
        } catch (final RejectedExecutionException e) {
            synchronized (this) {
                scheduled = false;
            }
        }
    }

    private boolean roomAhead() {
        return ready.size() < AHEAD && (!free.isEmpty() || windows < AHEAD + 1);
    }

    /** The loader task: fills windows until {@code AHEAD} are ready, the replay ends or the reader closes. */
    private void loadAhead() {
        while (true) {
            loadLock.lock();
            try {
                final ReplayWindow w;
                synchronized (this) {
                    if (closed || ended || failure != null || !roomAhead()) {
                        scheduled = false;
                        return;
                    }
                    w = window();
                }
                boolean got = false;
                RuntimeException fail = null;
                try {
                    got = loader.load(w);
                } catch (final RuntimeException e) {
                    fail = e;
                }
                synchronized (this) {
                    if (got) {
                        ready.add(w);
                    } else {
                        free.add(w);
                        if (fail != null) {
                            failure = fail;
                        } else {
                            ended = true;
                        }
                    }
                }
            } finally {
                loadLock.unlock();
            }
        }
    }

    /** Bytes of buffers this reader holds (for the memory figures of {@code GET /api/replays}). */
    long bufferBytes() {
        long n;
        loadLock.lock();
        try {
            n = loader.bufferBytes();
        } finally {
            loadLock.unlock();
        }
        synchronized (this) {
            for (final ReplayWindow w : ready) {
                n += w.bytes();
            }
            for (final ReplayWindow w : free) {
                n += w.bytes();
            }
        }
        final ReplayWindow w = current;
        return n + (w == null ? 0 : w.bytes());
    }

    /** Closes the loader (after the load in progress, if any); a loader task queued later finds it closed. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            ready.clear();
            free.clear();
        }
        loadLock.lock();
        try {
            loader.close();
        } finally {
            loadLock.unlock();
        }
    }
}
