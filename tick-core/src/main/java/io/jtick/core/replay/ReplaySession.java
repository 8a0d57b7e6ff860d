package io.jtick.core.replay;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.ControlFrames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.util.concurrent.ScheduledFuture;

import java.time.Instant;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One consumer's replay on its connection, run on the connection's event-loop thread: writes
 * SUBSCRIBED (the schemas; {@code journalSequence} = rows the replay will send), then the frames in
 * order while the channel is writable (TCP back-pressure: when the consumer does not read, its
 * outbound buffer passes the high water mark and nothing more is written until it drains), then
 * REPLAY_DONE with its counts and closes. At recorded pace a frame waits until its first row's
 * recorded offset from the first row of its date, divided by the speed, has passed since that date
 * began (a new date starts at once: the overnight gap is not replayed).
 *
 * <p>Frames come from the shared {@link ReplayStream} until this consumer falls behind its ring;
 * then from a reader of its own, started at the position after the last frame it sent. A disconnect
 * or cancel releases everything it holds: the frame waiting to be written, its place in the stream
 * (the last consumer closes the stream), its own reader and its pin on the partitions.
 *
 * <p>State read by other threads (REST): {@code rowsSent}, {@code framesSent}, {@code bytesSent},
 * {@code state}, {@code endNanos}, {@code ownReader}; everything else belongs to the event loop.
 */
final class ReplaySession {
    final long id;
    final Channel channel;
    final String consumer;
    final ReplayStream stream;
    final ReplayPlan plan;
    private final ReplayCounters counters;
    private final ByteBufAllocator alloc;
    private final Consumer<ReplaySession> onEnd;
    private final long[] rowsByTable;
    private final long startNanos = System.nanoTime();
    private final Instant startedAt = Instant.now();

    private long position;
    private ReplayFrame.Cursor resume = ReplayFrame.Cursor.START;
    private ReplayReader own;
    private ReplayFrame pending;
    private ByteBuf pendingBuf;
    private boolean finished;
    private boolean released;
    private int paceDate = -1;
    private long paceWall;
    private long paceTime;
    private ScheduledFuture<?> timer;

    private volatile long rowsSent;
    private volatile long framesSent;
    private volatile long bytesSent;
    private volatile String state = "running";
    private volatile String message = "";
    private volatile long endNanos;
    private volatile boolean ownReader;
    private volatile long ownBytes;

    ReplaySession(final long id, final Channel channel, final String consumer, final ReplayStream stream, final ReplayCounters counters,
                  final Consumer<ReplaySession> onEnd) {
        this.id = id;
        this.channel = channel;
        this.consumer = consumer;
        this.stream = stream;
        this.plan = stream.plan;
        this.counters = counters;
        this.alloc = channel.alloc();
        this.onEnd = onEnd;
        this.rowsByTable = new long[plan.schemas.size()];
    }

    /** Answers the request and starts sending (event loop). */
    void start() {
        counters.started.incrementAndGet();
        final List<TableSchema> schemas = plan.schemas;
        channel.write(ControlFrames.subscribed(alloc, 0, plan.totalRows, (int) plan.dates[0].toEpochDay(), schemas),
            channel.voidPromise());
        pump();
    }

    long position() {
        return position;
    }

    /** Holds the frame at this session's position and moves past it (called by the stream under its lock, or with a frame of its own). */
    void take(final ReplayFrame f, final boolean shared) {
        pending = f;
        pendingBuf = shared ? f.buf().retainedDuplicate() : f.buf();
        position++;
    }

    /** Another consumer encoded the frame this one waits for. */
    void wake() {
        try {
            channel.eventLoop().execute(this::pump);
        } catch (final java.util.concurrent.RejectedExecutionException e) {
            // the server is stopping: the connection closes with its event loop
        }
    }

    /** Runs {@code task} on this consumer's event loop after {@code nanos} (nothing when the server is stopping). */
    void schedule(final Runnable task, final long nanos) {
        try {
            channel.eventLoop().schedule(task, Math.max(0, nanos), java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (final java.util.concurrent.RejectedExecutionException e) {
            // the server is stopping: the stream closes with its consumers
        }
    }

    /** Writes frames while the consumer takes them (event loop); a failure ends the replay as failed, naming it. */
    void pump() {
        try {
            pumpFrames();
        } catch (final RuntimeException e) {
            finish(ControlFrames.REPLAY_FAILED, ReplayStream.describe(e));
        }
    }

    private void pumpFrames() {
        if (finished) {
            return;
        }
        if (!channel.isActive()) {
            closed();
            return;
        }
        while (channel.isWritable()) {
            if (pending == null) {
                final int r = own != null ? ownNext() : stream.next(this);
                if (r == ReplayStream.WAIT) {
                    return;
                }
                if (r == ReplayStream.DETACHED) {
                    detach();
                    continue;
                }
                if (r == ReplayStream.END) {
                    finish(ControlFrames.REPLAY_COMPLETE, "");
                    return;
                }
                if (r == ReplayStream.FAILED) {
                    finish(ControlFrames.REPLAY_FAILED, own != null ? message : stream.failure());
                    return;
                }
            }
            if (plan.paced && !due()) {
                return;
            }
            final ReplayFrame f = pending;
            final ByteBuf b = pendingBuf;
            pending = null;
            pendingBuf = null;
            final int bytes = b.readableBytes();
            channel.writeAndFlush(b, channel.voidPromise());
            resume = f.next();
            rowsByTable[f.table()] += f.rows();
            rowsSent = rowsSent + f.rows();
            framesSent = framesSent + 1;
            bytesSent = bytesSent + bytes;
            counters.rows.addAndGet(f.rows());
            counters.frames.incrementAndGet();
            counters.bytes.addAndGet(bytes);
        }
    }

    /** Recorded pace: true when the pending frame is due, else schedules the pump for when it is. */
    private boolean due() {
        final long now = System.nanoTime();
        if (pending.date() != paceDate) {
            paceDate = pending.date();
            paceWall = now;
            paceTime = pending.firstTime();
        }
        final long at = paceWall + (long) ((pending.firstTime() - paceTime) / plan.speed);
        if (at - now <= 0) {
            return true;
        }
        if (timer == null) {
            timer = channel.eventLoop().schedule(() -> {
                timer = null;
                pump();
            }, at - now, TimeUnit.NANOSECONDS);
        }
        return false;
    }

    private int ownNext() {
        final ReplayFrame f;
        final long t0 = System.nanoTime();
        try {
            f = own.next(alloc);
        } catch (final RuntimeException e) {
            stream.readFailed(e);
            message = ReplayStream.describe(e);
            return ReplayStream.FAILED;
        }
        if (f == null) {
            return ReplayStream.END;
        }
        counters.encode.record(System.nanoTime() - t0);
        counters.encodedFrames.incrementAndGet();
        counters.encodedRows.addAndGet(f.rows());
        take(f, false);
        ownBytes = own.bufferBytes();
        return ReplayStream.FRAME;
    }

    /** Fell behind the stream's ring: read on from where this consumer stands, with a reader of its own. */
    private void detach() {
        plan.retain();
        try {
            own = new ReplayReader(plan, counters.window, null).seek(resume);
        } catch (final RuntimeException e) {
            plan.release();
            throw e;
        }
        ownReader = true;
        counters.detached.incrementAndGet();
        stream.leave(this);
    }

    /** Stops the replay: REPLAY_DONE with {@code why}, then close ({@code DELETE /api/replays/{id}}, shutdown). */
    void cancel(final String why) {
        channel.eventLoop().execute(() -> finish(ControlFrames.REPLAY_CANCELLED, why));
    }

    private void finish(final int status, final String why) {
        if (finished) {
            return;
        }
        finished = true;
        message = why == null ? "" : why;
        state = status == ControlFrames.REPLAY_COMPLETE ? "complete" : status == ControlFrames.REPLAY_CANCELLED ? "cancelled" : "failed";
        (status == ControlFrames.REPLAY_COMPLETE ? counters.complete : status == ControlFrames.REPLAY_CANCELLED ? counters.cancelled
            : counters.failed).incrementAndGet();
        release();
        final Map<String, Long> byTable = new LinkedHashMap<>();
        for (int t = 0; t < rowsByTable.length; t++) {
            byTable.put(plan.schemas.get(t).name(), rowsByTable[t]);
        }
        if (channel.isActive()) {
            channel.writeAndFlush(ControlFrames.replayDone(alloc, new ControlFrames.ReplayDone(status, rowsSent, framesSent, bytesSent,
                byTable, message))).addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** The connection is gone (event loop). */
    void closed() {
        if (!finished) {
            finished = true;
            state = "disconnected";
            counters.disconnected.incrementAndGet();
        }
        release();
    }

    private void release() {
        if (released) {
            return;
        }
        released = true;
        endNanos = System.nanoTime();
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        if (pendingBuf != null) {
            pendingBuf.release();
            pendingBuf = null;
            pending = null;
        }
        if (own != null) {
            own.close();
            own = null;
            plan.release();
        } else {
            stream.leave(this);
        }
        onEnd.accept(this);
    }

    /** What {@code GET /api/replays} shows. */
    ReplayStatus status() {
        final long end = endNanos;
        final long elapsed = (end != 0 ? end : System.nanoTime()) - startNanos;
        final long rows = rowsSent;
        final long total = plan.totalRows;
        final ControlFrames.Replay r = plan.request;
        return new ReplayStatus(id, consumer, String.valueOf(channel.remoteAddress()), r.tables(), LocalDate.ofEpochDay(r.fromDay()),
            LocalDate.ofEpochDay(r.toDay()), r.syms().size(), plan.paced ? "recorded" : "max", plan.paced ? plan.speed : 0, state,
            message, rows, total, total == 0 ? 100.0 : Math.round(rows * 1000.0 / total) / 10.0,
            elapsed > 0 ? Math.round(rows * 1e9 / elapsed) : 0, bytesSent, framesSent, elapsed / 1_000_000, stream.id, !ownReader,
            end != 0 ? 0 : ownReader ? ownBytes : stream.heldBytes(), end != 0 ? 0 : plan.scratchBytes(), startedAt);
    }
}
