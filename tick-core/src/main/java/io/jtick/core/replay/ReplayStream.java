package io.jtick.core.replay;

import io.netty.buffer.ByteBufAllocator;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * One replay shared by every consumer that asked for the same thing (tables, dates, syms, window,
 * pace, rows per update) while its first frame was still held: one {@link ReplayReader} reads and
 * encodes each frame once, and the frames stay in a ring of {@code sharedFrames} from which each consumer's
 * session writes a retained duplicate (Netty's serialize-once broadcast, as the tickerplant does).
 *
 * <p>The reader runs on a reader thread of the server ({@code hdb-replay-reader-*}), not on the
 * consumers' event loops, and reads ahead of the fastest consumer by up to half the ring, so that
 * reading and encoding overlap with the event loops' socket writes. A consumer that needs a frame not
 * yet read waits and is woken when it is in the ring. When the ring is full and the oldest frame is
 * still wanted, the reader waits for the slowest consumer as long as that one keeps taking frames
 * (it took one in the last {@link ReplaySettings#stallMillis}), so consumers that merely run at different speeds
 * stay on the one stream and every frame is read and encoded once; a consumer that has taken nothing
 * for that long (TCP back-pressure holds it) is left behind: the oldest frame goes, and it leaves the
 * stream and reads on its own from where it stands ({@link ReplayFrame#next()}), so it slows the
 * others by at most that pause. While it waits the reader holds no thread: its task ends, and the
 * slowest consumer's next take, a consumer leaving, or a timer on a waiting consumer's event loop at
 * the end of the pause starts it again, so the server's reader threads go on serving other streams.
 * Memory: the ring's frames (at most {@code sharedFrames} × one frame of {@code rowsPerUpdate} rows)
 * plus the reader's window buffers, once per stream. Closed with its last consumer.
 */
final class ReplayStream {
    static final int FRAME = 0;
    static final int WAIT = 1;
    static final int DETACHED = 2;
    static final int END = 3;
    static final int FAILED = 4;
    final long id;
    final ReplayPlan plan;
    private final ReplayReader reader;
    private final ReplayCounters counters;
    private final Executor readers;
    private final ByteBufAllocator alloc;
    private final Runnable onClose;
    private final Consumer<RuntimeException> readFailed;
    private final ReplayFrame[] ring;
    private final int readAhead;
    private final List<ReplaySession> sessions = new ArrayList<>();
    private final List<ReplaySession> waiters = new ArrayList<>();
    private long base;
    private long produced;
    /** One past the furthest frame any consumer has taken. */
    private long taken;
    private boolean producing;
    private boolean ended;
    private String failure;
    private boolean closed;
    private boolean released;
    /** The slowest consumer's position when the reader last looked, and when it last moved. */
    private long slowestSeen = -1;
    private long slowestMoved;
    /** How long the reader waits for the slowest consumer of a full ring before leaving it behind. */
    private final long stallNanos;
    /** The reader stopped to wait for the slowest consumer; a take, a leave or {@link #retry} starts it again. */
    private boolean parked;
    /** A {@link #retry} is scheduled on a waiting consumer's event loop. */
    private boolean retryPending;

    ReplayStream(final long id, final ReplayPlan plan, final ReplayCounters counters, final Executor readers,
                 final ByteBufAllocator alloc, final Runnable onClose, final Consumer<RuntimeException> readFailed) {
        this.id = id;
        this.plan = plan;
        this.reader = new ReplayReader(plan, counters.window, readers).seek(ReplayFrame.Cursor.START);
        this.counters = counters;
        this.readers = readers;
        this.alloc = alloc;
        this.onClose = onClose;
        this.readFailed = readFailed;
        this.ring = new ReplayFrame[plan.settings.sharedFrames()];
        this.readAhead = Math.max(1, ring.length / 2);
        this.stallNanos = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(plan.settings.stallMillis());
    }

    /** Adds a consumer at the first frame; false when that frame has left the ring (start another stream). */
    synchronized boolean join(final ReplaySession s) {
        if (closed || base > 0) {
            return false;
        }
        sessions.add(s);
        return true;
    }

    synchronized String failure() {
        return failure;
    }

    /**
     * The frame at the session's position: {@link #FRAME} (handed to {@link ReplaySession#take}),
     * {@link #WAIT} (not read yet; the session is woken when it is), {@link #DETACHED} (it left the
     * ring: read on your own), {@link #END} or {@link #FAILED}.
     */
    synchronized int next(final ReplaySession s) {
        final long k = s.position();
        if (k < base) {
            return DETACHED;
        }
        if (k < produced) {
            s.take(ring[(int) (k % ring.length)], true);
            if (k + 1 > taken) {
                taken = k + 1;
            }
            if (parked || produced - taken < readAhead) {
                parked = false;
                readOn();
            }
            return FRAME;
        }
        if (failure != null) {
            return FAILED;
        }
        if (ended || closed) {
            return END;
        }
        if (!waiters.contains(s)) {
            waiters.add(s);
        }
        readOn();
        return WAIT;
    }

    /** Starts the reader task unless it runs (lock held). */
    private void readOn() {
        if (!producing && !ended && failure == null && !closed) {
            producing = true;
            readers.execute(this::read);
        }
    }

    /**
     * The reader task. It reads while a consumer waits for the next frame, or, ahead of time, while it
     * is less than {@code readAhead} frames ahead of the fastest consumer and the ring still holds
     * every frame the slowest has not taken. When a consumer waits but the next frame would push out
     * one the slowest has not taken, it waits for the slowest ({@link #stalled}), then reads on.
     */
    private void read() {
        while (true) {
            boolean release = false;
            synchronized (this) {
                if (!closed && !ended && failure == null && !waiters.isEmpty() && produced - slowest() >= ring.length && !stalled()) {
                    park();
                    return;
                }
                if (closed || ended || failure != null
                    || waiters.isEmpty() && (produced - taken >= readAhead || produced - slowest() >= ring.length)) {
                    producing = false;
                    release = closed && !released;
                    released |= release;
                    if (!release) {
                        return;
                    }
                }
            }
            if (release) {
                release();
                return;
            }
            ReplayFrame f = null;
            String fail = null;
            final long t0 = System.nanoTime();
            try {
                f = reader.next(alloc);
            } catch (final RuntimeException e) {
                readFailed.accept(e);
                fail = describe(e);
            }
            if (f != null) {
                counters.encode.record(System.nanoTime() - t0);
                counters.encodedFrames.incrementAndGet();
                counters.encodedRows.addAndGet(f.rows());
            }
            final List<ReplaySession> wake;
            synchronized (this) {
                if (fail != null) {
                    failure = fail;
                } else if (f == null) {
                    ended = true;
                } else if (closed) {
                    f.buf().release();
                } else {
                    if (produced - base == ring.length) {
                        final int slot = (int) (base % ring.length);
                        ring[slot].buf().release();
                        ring[slot] = null;
                        base++;
                    }
                    ring[(int) (produced % ring.length)] = f;
                    produced++;
                }
                wake = waiters.isEmpty() ? List.of() : new ArrayList<>(waiters);
                waiters.clear();
            }
            for (final ReplaySession w : wake) {
                w.wake();
            }
        }
    }

    /**
     * Ends the reader task to wait for the slowest consumer without holding a reader thread (lock held):
     * its next take or a leave starts the reader again, and so does a timer at the end of the pause, on
     * the event loop of a consumer that waits for the next frame.
     */
    private void park() {
        producing = false;
        parked = true;
        if (!retryPending) {
            retryPending = true;
            waiters.get(0).schedule(this::retry, stallNanos - (System.nanoTime() - slowestMoved));
        }
    }

    /** The pause is over (a waiting consumer's event loop): the reader looks again and leaves the slowest behind if it has not moved. */
    private synchronized void retry() {
        retryPending = false;
        if (parked) {
            parked = false;
            readOn();
        }
    }

    /** Position of the slowest consumer still in the ring (lock held); one behind it reads on its own already. */
    private long slowest() {
        long min = taken;
        for (final ReplaySession s : sessions) {
            final long p = s.position();
            if (p >= base) {
                min = Math.min(min, p);
            }
        }
        return min;
    }

    /** True when the slowest consumer has taken no frame for {@code stallNanos} (lock held). */
    private boolean stalled() {
        final long slow = slowest();
        final long now = System.nanoTime();
        if (slow != slowestSeen) {
            slowestSeen = slow;
            slowestMoved = now;
        }
        return now - slowestMoved >= stallNanos;
    }

    /** A read of this stream's plan failed (a consumer reading on its own tells it too): counted by the HDB when a block was corrupt. */
    void readFailed(final RuntimeException e) {
        readFailed.accept(e);
    }

    static String describe(final RuntimeException e) {
        final Throwable cause = e.getCause() != null ? e.getCause() : e;
        return "replay could not read the HDB: " + cause.getMessage();
    }

    /** Bytes this stream holds: ring frames and reader buffers. */
    synchronized long heldBytes() {
        long n = reader.bufferBytes();
        for (final ReplayFrame f : ring) {
            n += f == null ? 0 : f.buf().capacity();
        }
        return n;
    }

    /** A consumer is gone; the last one closes the stream (frames, reader, plan; at once, or when the reader task ends). */
    void leave(final ReplaySession s) {
        synchronized (this) {
            sessions.remove(s);
            waiters.remove(s);
            if (!sessions.isEmpty() || closed) {
                if (parked && !closed) {
                    parked = false;
                    readOn();
                }
                return;
            }
            closed = true;
            for (int i = 0; i < ring.length; i++) {
                if (ring[i] != null) {
                    ring[i].buf().release();
                    ring[i] = null;
                }
            }
            if (producing || released) {
                return;
            }
            released = true;
        }
        release();
    }

    /** Closes the reader and the plan (once: the caller set {@code released}, and no reader task runs). */
    private void release() {
        reader.close();
        plan.release();
        onClose.run();
    }
}
