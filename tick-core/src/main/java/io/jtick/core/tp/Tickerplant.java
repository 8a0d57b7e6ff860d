package io.jtick.core.tp;

import io.jtick.core.time.TradingCalendar;
import io.jtick.core.journal.Journal;
import io.jtick.core.metrics.LatencyStats;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.time.NanoClock;
import io.jtick.core.table.SymbolTable;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateValidator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;

import static io.jtick.core.wire.FrameDescriptor.FLAGS_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.FLAG_STAMP_TIME;
import static io.jtick.core.wire.FrameDescriptor.SEQUENCE_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.TP_TIME_OFFSET;

/**
 * The tickerplant: kdb+tick's {@code tick.q}/{@code u.q} on one thread.
 *
 * <p>State, all owned by the single tickerplant thread (the Netty event loop that also runs every
 * feed and subscriber connection, so nothing here is shared or locked):
 * <ul>
 *   <li>{@code journal}: today's Chronicle Queue; {@code j} the last journalled sequence ({@code .u.j}),
 *       {@code i} the last published one ({@code .u.i}); in zero-latency mode i == j after each update;</li>
 *   <li>{@code mode}: zero-latency, timer publish, or timer log+publish;</li>
 *   <li>{@code pending[t]}: frames of table t waiting for the timer, back to back (journalled already
 *       in timer publish, not yet in timer log+publish), {@code pendingCount[t]} of them;</li>
 *   <li>{@code subscribers}: each with its tables, sym filter, and journal reader while catching up;</li>
 *   <li>{@code date} and {@code nextEndOfDay}: the trading day and the instant it ends.</li>
 * </ul>
 * An update is validated, journalled as the feed's bytes (sequence and TP time stamped in place),
 * then one retained slice of those bytes goes to every subscriber that takes all syms of its table
 * (serialize once); subscribers with a sym list get a filtered copy built once per distinct list.
 * A catching-up subscriber reads the journal up to {@code i} on this thread, then turns live: no
 * update can slip between, so there is no gap and no duplicate.
 */
public final class Tickerplant implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Tickerplant.class);
    private static final int CATCH_UP_BYTES_PER_TURN = 4 << 20;

    private final TickerplantSettings settings;
    private final SchemaRegistry schemas;
    private final NanoClock clock;
    private final ByteBufAllocator alloc;
    private final TradingCalendar calendar;
    private final UpdateValidator validator;
    private final UpdateRewriter rewriter;
    private final SymbolTable syms = new SymbolTable();
    private final List<Subscriber> subscribers = new ArrayList<>();
    private final Map<java.util.SortedSet<String>, SymFilter> filters = new LinkedHashMap<>();
    private final ByteBuf[] pending;
    private final int[] pendingCount;
    private final long[] tableRows;
    private final long[] tableUpdates;
    private SymFilter[] filterScratch = new SymFilter[8];
    private ByteBuf[] filteredScratch = new ByteBuf[8];
    private Subscriber[] dirty = new Subscriber[16];
    private int dirtyCount;

    private Journal journal;
    private LocalDate date;
    private long nextEndOfDay;
    private long i;
    private long j;
    private PublishMode mode;
    private long timerNanos;
    private long nextSubscriberId;
    private Runnable catchUpScheduler = () -> { };

    private final LatencyStats tplog;
    private final LatencyStats tppub;
    private final LatencyStats tpupd;
    private final LatencyStats tpflush;
    private final LatencyStats tptimer;
    private final AtomicLong rowsCounter;
    private final AtomicLong updatesCounter;
    private final AtomicLong bytesCounter;
    private final AtomicLong[] errorCounters;
    private final AtomicLong disconnectedSlow;
    private final AtomicLong disconnectedTotal;
    private final AtomicLong publishedGauge = new AtomicLong();
    private final AtomicLong journalledGauge = new AtomicLong();
    private final AtomicLong subscriberGauge = new AtomicLong();
    private final AtomicLong endOfDays;

    public Tickerplant(final TickerplantSettings settings, final SchemaRegistry schemas, final NanoClock clock,
                       final ByteBufAllocator alloc, final TickMetrics metrics) {
        this.settings = settings.validate();
        this.schemas = schemas;
        this.clock = clock;
        this.alloc = alloc;
        this.calendar = new TradingCalendar(settings.eodTime(), settings.zone());
        this.validator = new UpdateValidator(schemas);
        this.rewriter = new UpdateRewriter(syms);
        this.pending = new ByteBuf[schemas.size()];
        this.pendingCount = new int[schemas.size()];
        this.tableRows = new long[schemas.size()];
        this.tableUpdates = new long[schemas.size()];
        this.mode = settings.mode();
        this.timerNanos = settings.timer().toNanos();

        tplog = metrics.latency("tick.tp.log", "TP journal write per update");
        tppub = metrics.latency("tick.tp.pub", "TP publish per update to all subscribers");
        tpupd = metrics.latency("tick.tp.upd", "TP handling of one update, validate to publish");
        tpflush = metrics.latency("tick.tp.flush", "TP flush of subscriber sockets per read batch or timer tick");
        tptimer = metrics.latency("tick.tp.timer", "TP timer tick with pending updates: journal (log+publish), merge, publish, flush");
        rowsCounter = metrics.counter("tick.tp.rows");
        updatesCounter = metrics.counter("tick.tp.updates");
        bytesCounter = metrics.counter("tick.tp.bytes");
        errorCounters = new AtomicLong[ErrorCode.values().length];
        for (final ErrorCode e : ErrorCode.values()) {
            if (e != ErrorCode.NONE) {
                errorCounters[e.ordinal()] = metrics.counter("tick.tp.errors|code=" + e.tag());
            }
        }
        disconnectedSlow = metrics.counter("tick.tp.subscribers.disconnected|reason=slow");
        disconnectedTotal = metrics.counter("tick.tp.subscribers.disconnected|reason=any");
        endOfDays = metrics.counter("tick.tp.eod");
        metrics.gauge("tick.tp.sequence", publishedGauge::get);
        metrics.gauge("tick.tp.journal.sequence", journalledGauge::get);
        metrics.gauge("tick.tp.subscribers", subscriberGauge::get);

        final long now = clock.epochNanos();
        final LocalDate today = calendar.dateOf(now);
        final LocalDate latest = Journal.days(settings.journalDir()).max(LocalDate::compareTo).orElse(today);
        date = latest.isAfter(today) ? latest : today;
        final long before = Journal.lastSequenceBefore(settings.journalDir(), date);
        journal = Journal.open(settings.journalDir(), date, before, clock);
        j = journal.lastSequence();
        i = j;
        publishedGauge.set(i);
        journalledGauge.set(j);
        nextEndOfDay = calendar.endOfDayNanos(date);
        LOG.info("tickerplant ready [name={}, date={}, sequence={}, journal={}, mode={}]", settings.name(), date, j,
            journal.dir(), mode.id());
    }

    /** How the tickerplant asks its thread to run a catch-up turn later (set by the server). */
    void catchUpScheduler(final Runnable scheduler) {
        this.catchUpScheduler = scheduler;
    }

    // ------------------------------------------------------------------ updates

    /**
     * {@code .u.upd}: one update frame from a feed, {@code length} bytes at {@code offset}. Returns
     * {@link ErrorCode#NONE} or why it was refused ({@link #lastError()} has the message); a refused
     * update is neither journalled nor published.
     */
    public ErrorCode onUpdate(final ByteBuf frame, final int offset, final int length) {
        return update(frame, offset, length, false);
    }

    /** An update from the upstream TP (chained): keeps the upstream sequence; duplicates are dropped. */
    public ErrorCode onUpstreamUpdate(final ByteBuf frame, final int offset, final int length) {
        if (frame.getLongLE(offset + SEQUENCE_OFFSET) <= j) {
            return ErrorCode.NONE;
        }
        return update(frame, offset, length, true);
    }

    private ErrorCode update(final ByteBuf frame, final int offset, final int length, final boolean keepSequence) {
        final long start = System.nanoTime();
        final ErrorCode code = validator.validate(frame, offset, length);
        if (code != ErrorCode.NONE) {
            errorCounters[code.ordinal()].incrementAndGet();
            return code;
        }
        final TableSchema schema = validator.table();
        final int t = validator.tableIndex();
        final int rows = frame.getIntLE(offset + FrameDescriptor.ROW_COUNT_OFFSET);
        final long now = clock.epochNanos();
        if ((frame.getUnsignedShortLE(offset + FLAGS_OFFSET) & FLAG_STAMP_TIME) != 0) {
            stampTime(frame, offset, rows, now);
        }
        if (mode == PublishMode.TIMER_LOG_PUBLISH) {
            addPending(t, frame, offset, length);
        } else {
            if (!journal(frame, offset, length, keepSequence, now)) {
                return ErrorCode.JOURNAL_FAILURE;
            }
            if (mode == PublishMode.ZERO_LATENCY) {
                final long p0 = System.nanoTime();
                publish(frame, offset, length, t, schema);
                tppub.record(System.nanoTime() - p0);
                i = j;
                publishedGauge.lazySet(i);
            } else {
                addPending(t, frame, offset, length);
            }
        }
        tableRows[t] += rows;
        tableUpdates[t]++;
        rowsCounter.addAndGet(rows);
        updatesCounter.incrementAndGet();
        bytesCounter.addAndGet(length);
        tpupd.record(System.nanoTime() - start);
        return ErrorCode.NONE;
    }

    /** Why the last update was refused. */
    public String lastError() {
        return validator.reason();
    }

    /** Counts an error seen by the connection layer (oversized, truncated, malformed header...). */
    public void countError(final ErrorCode code) {
        final AtomicLong c = errorCounters[code.ordinal()];
        if (c != null) {
            c.incrementAndGet();
        }
    }

    private void stampTime(final ByteBuf frame, final int offset, final int rows, final long now) {
        final UpdateDecoder d = scratchDecoder.wrap(frame, offset);
        final int base = d.dataOffset(TableSchema.TIME);
        for (int r = 0; r < rows; r++) {
            frame.setLongLE(base + (r << 3), now);
        }
        frame.setShortLE(offset + FLAGS_OFFSET, frame.getUnsignedShortLE(offset + FLAGS_OFFSET) & ~FLAG_STAMP_TIME);
    }

    private final UpdateDecoder scratchDecoder = new UpdateDecoder();

    private boolean journal(final ByteBuf frame, final int offset, final int length, final boolean keepSequence, final long now) {
        final long sequence = keepSequence ? frame.getLongLE(offset + SEQUENCE_OFFSET) : j + 1;
        frame.setLongLE(offset + SEQUENCE_OFFSET, sequence);
        frame.setLongLE(offset + TP_TIME_OFFSET, now);
        final long t0 = System.nanoTime();
        try {
            journal.append(frame, offset, length, sequence);
        } catch (final RuntimeException e) {
            errorCounters[ErrorCode.JOURNAL_FAILURE.ordinal()].incrementAndGet();
            LOG.error("journal append failed [dir={}, sequence={}]: {}", journal.dir(), sequence, e.toString());
            return false;
        }
        tplog.record(System.nanoTime() - t0);
        j = sequence;
        journalledGauge.lazySet(j);
        return true;
    }

    private void addPending(final int t, final ByteBuf frame, final int offset, final int length) {
        ByteBuf p = pending[t];
        if (p == null) {
            p = alloc.directBuffer(Math.max(64 * 1024, length));
            pending[t] = p;
        }
        p.writeBytes(frame, offset, length);
        pendingCount[t]++;
    }

    /** {@code .u.pub}: writes one update to every live subscriber of its table; flushing happens in {@link #flush()}. */
    private void publish(final ByteBuf frame, final int offset, final int length, final int t, final TableSchema schema) {
        int filtersUsed = 0;
        final int n = subscribers.size();
        for (int k = 0; k < n; k++) {
            final Subscriber s = subscribers.get(k);
            if (!s.live || s.closing || !s.tables[t]) {
                continue;
            }
            if (s.filter == null) {
                write(s, settings.broadcast() ? frame.retainedSlice(offset, length) : copy(frame, offset, length));
                continue;
            }
            int f = 0;
            while (f < filtersUsed && filterScratch[f] != s.filter) {
                f++;
            }
            if (f == filtersUsed) {
                if (f == filterScratch.length) {
                    filterScratch = java.util.Arrays.copyOf(filterScratch, f * 2);
                    filteredScratch = java.util.Arrays.copyOf(filteredScratch, f * 2);
                }
                filterScratch[f] = s.filter;
                filteredScratch[f] = rewriter.filter(frame, offset, schema, s.filter, alloc);
                filtersUsed++;
            }
            final ByteBuf out = filteredScratch[f];
            if (out == null) {
                continue;
            }
            if (out == frame) {
                write(s, settings.broadcast() ? frame.retainedSlice(offset, length) : copy(frame, offset, length));
            } else {
                write(s, settings.broadcast() ? out.retainedDuplicate() : copy(out, out.readerIndex(), out.readableBytes()));
            }
        }
        for (int f = 0; f < filtersUsed; f++) {
            final ByteBuf out = filteredScratch[f];
            if (out != null && out != frame) {
                out.release();
            }
            filteredScratch[f] = null;
            filterScratch[f] = null;
        }
    }

    /** Per-subscriber serialization (broadcast off): what kdb+ did before {@code -25!}. */
    private ByteBuf copy(final ByteBuf frame, final int offset, final int length) {
        final ByteBuf c = alloc.directBuffer(length);
        c.writeBytes(frame, offset, length);
        return c;
    }

    private void write(final Subscriber s, final ByteBuf out) {
        s.channel.write(out, s.channel.voidPromise());
        s.updatesSent++;
        if (!s.dirty) {
            s.dirty = true;
            if (dirtyCount == dirty.length) {
                dirty = java.util.Arrays.copyOf(dirty, dirtyCount * 2);
            }
            dirty[dirtyCount++] = s;
        }
        if (s.backlogBytes() > settings.maxSubscriberBacklog()) {
            disconnectSlow(s);
        }
    }

    /** Flushes every subscriber written since the last flush (end of a feed read batch, or timer tick). */
    public void flush() {
        if (dirtyCount == 0) {
            return;
        }
        final long t0 = System.nanoTime();
        for (int k = 0; k < dirtyCount; k++) {
            final Subscriber s = dirty[k];
            s.dirty = false;
            s.channel.flush();
            dirty[k] = null;
        }
        dirtyCount = 0;
        tpflush.record(System.nanoTime() - t0);
    }

    private void disconnectSlow(final Subscriber s) {
        if (s.closing) {
            return;
        }
        s.closing = true;
        disconnectedSlow.incrementAndGet();
        errorCounters[ErrorCode.SLOW_SUBSCRIBER.ordinal()].incrementAndGet();
        LOG.warn("disconnecting slow subscriber [id={}, name={}, backlogBytes={}, limit={}]", s.id, s.name, s.backlogBytes(),
            settings.maxSubscriberBacklog());
        s.channel.writeAndFlush(ControlFrames.error(alloc, ErrorCode.SLOW_SUBSCRIBER,
            "subscriber fell behind: backlog over the limit [limit=" + settings.maxSubscriberBacklog() + "]"));
        // the error frame queues behind the backlog; a subscriber that is not reading never sees it, so close now.
        s.channel.close();
    }

    // ------------------------------------------------------------------ timer

    /** {@code .u.ts}: in the timer modes, journals (log+publish) and publishes each table's merged batch. */
    public void onTimer() {
        if (mode == PublishMode.ZERO_LATENCY) {
            return;
        }
        final long t0 = System.nanoTime();
        final boolean published = publishPending();
        flush();
        if (published) {
            tptimer.record(System.nanoTime() - t0);
        }
    }

    /** Journals (log+publish) and publishes what is pending; true when there was something. */
    private boolean publishPending() {
        final long now = clock.epochNanos();
        boolean any = false;
        for (int t = 0; t < pending.length; t++) {
            final int count = pendingCount[t];
            if (count == 0) {
                continue;
            }
            final ByteBuf batch = pending[t];
            final TableSchema schema = schemas.get(t);
            if (mode == PublishMode.TIMER_LOG_PUBLISH) {
                int off = batch.readerIndex();
                for (int k = 0; k < count; k++) {
                    final int len = batch.getIntLE(off);
                    journal(batch, off, len, settings.chained(), now);
                    off += len;
                }
            }
            final long p0 = System.nanoTime();
            if (count == 1) {
                batch.setLongLE(batch.readerIndex() + TP_TIME_OFFSET, now);
                publish(batch, batch.readerIndex(), batch.readableBytes(), t, schema);
            } else {
                final ByteBuf merged = rewriter.merge(batch, count, schema, alloc);
                merged.setLongLE(merged.readerIndex() + TP_TIME_OFFSET, now);
                publish(merged, merged.readerIndex(), merged.readableBytes(), t, schema);
                merged.release();
            }
            tppub.record(System.nanoTime() - p0);
            batch.clear();
            pendingCount[t] = 0;
            any = true;
        }
        i = j;
        publishedGauge.lazySet(i);
        return any;
    }

    /** Switches publish mode at run time; what is pending under the old mode is published first. */
    public void setMode(final PublishMode newMode, final long newTimerNanos) {
        if (mode != PublishMode.ZERO_LATENCY) {
            publishPending();
            flush();
        }
        LOG.info("publish mode [from={}, to={}, timerMillis={}]", mode.id(), newMode.id(), newTimerNanos / 1_000_000);
        mode = newMode;
        timerNanos = newTimerNanos;
    }

    public PublishMode mode() {
        return mode;
    }

    public long timerNanos() {
        return timerNanos;
    }

    // ------------------------------------------------------------------ subscribers

    /**
     * {@code .u.sub}: registers a subscriber; answers with SUBSCRIBED, then (from-sequence given)
     * journal history up to {@code i}, CATCH_UP_DONE, and live updates. Returns an error message
     * instead when the request is bad (the caller sends it and closes).
     */
    public String onSubscribe(final Channel channel, final String name, final ControlFrames.Subscribe req) {
        final boolean[] tables = new boolean[schemas.size()];
        final List<TableSchema> chosen = new ArrayList<>();
        if (req.tables().isEmpty()) {
            java.util.Arrays.fill(tables, true);
            chosen.addAll(schemas.tables());
        } else {
            for (final String table : req.tables()) {
                final int t = schemas.indexOf(table);
                if (t < 0) {
                    errorCounters[ErrorCode.BAD_SUBSCRIPTION.ordinal()].incrementAndGet();
                    return "unknown table in subscription [table=" + table + "]";
                }
                if (!tables[t]) {
                    tables[t] = true;
                    chosen.add(schemas.get(t));
                }
            }
        }
        SymFilter filter = null;
        if (!req.syms().isEmpty()) {
            final TreeSet<String> set = new TreeSet<>(req.syms());
            filter = filters.computeIfAbsent(set, k -> new SymFilter(k, syms));
        }
        final Subscriber s = new Subscriber(++nextSubscriberId, channel, name, tables, filter);
        subscribers.add(s);
        subscriberGauge.set(subscribers.size());
        channel.write(ControlFrames.subscribed(alloc, i, j, (int) date.toEpochDay(), chosen));
        final long from = req.fromSequence();
        if (from < 0 || from >= i) {
            s.live = true;
            s.lastSequence = i;
            if (from >= 0) {
                channel.write(ControlFrames.catchUpDone(alloc, i));
            }
            channel.flush();
        } else {
            final long after = Math.max(from, journal.firstSequence() - 1);
            s.catchUp = journal.readerAfter(after);
            s.lastSequence = after;
            channel.flush();
            catchUp(s, CATCH_UP_BYTES_PER_TURN);
        }
        LOG.info("subscriber [id={}, name={}, remote={}, tables={}, syms={}, from={}]", s.id, name, channel.remoteAddress(),
            req.tables().isEmpty() ? "all" : req.tables(), req.syms().isEmpty() ? "all" : req.syms().size(), from);
        return null;
    }

    /** Continues catch-ups that were waiting for their socket to drain. */
    public void onWritable(final Channel channel) {
        for (int k = 0; k < subscribers.size(); k++) {
            final Subscriber s = subscribers.get(k);
            if (s.channel == channel && s.catchUp != null) {
                catchUp(s, CATCH_UP_BYTES_PER_TURN);
            }
        }
    }

    /** Runs one turn of every unfinished catch-up (the server calls this when a turn was cut short). */
    public void catchUpTurn() {
        for (int k = 0; k < subscribers.size(); k++) {
            final Subscriber s = subscribers.get(k);
            if (s.catchUp != null && s.channel.isWritable()) {
                catchUp(s, CATCH_UP_BYTES_PER_TURN);
            }
        }
    }

    /** Sends journal history to {@code s} up to {@code i}, at most {@code budget} bytes per turn (Long.MAX_VALUE: all of it). */
    private void catchUp(final Subscriber s, final long budget) {
        long sent = 0;
        final UpdateDecoder d = scratchDecoder;
        while (s.catchUp != null && !s.closing) {
            if (budget != Long.MAX_VALUE && (sent >= budget || !s.channel.isWritable())) {
                s.channel.flush();
                if (sent >= budget) {
                    catchUpScheduler.run();
                }
                return;
            }
            final ByteBuf entry = alloc.directBuffer(1024);
            final long seq = s.catchUp.next(entry, i);
            if (seq < 0) {
                entry.release();
                s.catchUp.close();
                s.catchUp = null;
                s.live = true;
                s.lastSequence = i;
                s.channel.writeAndFlush(ControlFrames.catchUpDone(alloc, i));
                return;
            }
            d.wrap(entry, 0);
            final int t = schemas.indexOf(entry, d.tableNameOffset(), d.tableNameLength());
            if (t < 0 || !s.tables[t]) {
                entry.release();
                continue;
            }
            ByteBuf out = entry;
            if (s.filter != null) {
                out = rewriter.filter(entry, 0, schemas.get(t), s.filter, alloc);
                if (out != entry) {
                    entry.release();
                }
                if (out == null) {
                    continue;
                }
            }
            sent += out.readableBytes();
            s.lastSequence = seq;
            s.channel.write(out, s.channel.voidPromise());
            s.updatesSent++;
            if (s.backlogBytes() > settings.maxSubscriberBacklog() && budget != Long.MAX_VALUE) {
                disconnectSlow(s);
            }
        }
    }

    /** A connection closed: forget its subscription. */
    public void onDisconnect(final Channel channel) {
        for (int k = subscribers.size() - 1; k >= 0; k--) {
            final Subscriber s = subscribers.get(k);
            if (s.channel == channel) {
                if (s.catchUp != null) {
                    s.catchUp.close();
                    s.catchUp = null;
                }
                subscribers.remove(k);
                disconnectedTotal.incrementAndGet();
                LOG.info("subscriber gone [id={}, name={}, updatesSent={}]", s.id, s.name, s.updatesSent);
            }
        }
        subscriberGauge.set(subscribers.size());
    }

    /** Sends a heartbeat to every live subscriber. */
    public void heartbeat() {
        final long now = clock.epochNanos();
        for (int k = 0; k < subscribers.size(); k++) {
            final Subscriber s = subscribers.get(k);
            if (s.live && !s.closing && s.channel.isWritable()) {
                s.channel.writeAndFlush(ControlFrames.heartbeat(alloc, now), s.channel.voidPromise());
            }
        }
    }

    // ------------------------------------------------------------------ end of day

    /** Fires end of day if the clock has passed it; returns true when it did. */
    public boolean checkEndOfDay() {
        if (clock.epochNanos() >= nextEndOfDay) {
            onEndOfDay();
            return true;
        }
        return false;
    }

    /**
     * {@code .u.end}: publishes what is pending, finishes catch-ups, sends END_OF_DAY to every
     * subscriber and rolls the journal to the next trading day.
     */
    public void onEndOfDay() {
        if (mode != PublishMode.ZERO_LATENCY) {
            publishPending();
        }
        for (int k = 0; k < subscribers.size(); k++) {
            final Subscriber s = subscribers.get(k);
            if (s.catchUp != null) {
                catchUp(s, Long.MAX_VALUE);
            }
        }
        final LocalDate ended = date;
        for (int k = 0; k < subscribers.size(); k++) {
            final Subscriber s = subscribers.get(k);
            if (!s.closing) {
                s.channel.write(ControlFrames.endOfDay(alloc, (int) ended.toEpochDay(), j), s.channel.voidPromise());
                s.channel.flush();
            }
        }
        dirtyCount = 0;
        for (final Subscriber s : subscribers) {
            s.dirty = false;
        }
        journal.close();
        final LocalDate byClock = calendar.dateOf(clock.epochNanos());
        date = byClock.isAfter(ended) ? byClock : ended.plusDays(1);
        journal = Journal.open(settings.journalDir(), date, j, clock);
        nextEndOfDay = calendar.endOfDayNanos(date);
        java.util.Arrays.fill(tableRows, 0);
        java.util.Arrays.fill(tableUpdates, 0);
        endOfDays.incrementAndGet();
        LOG.info("end of day [ended={}, next={}, sequence={}, journal={}]", ended, date, j, journal.dir());
    }

    // ------------------------------------------------------------------ status

    public long sequence() {
        return i;
    }

    public long journalSequence() {
        return j;
    }

    public LocalDate date() {
        return date;
    }

    public long nextEndOfDayNanos() {
        return nextEndOfDay;
    }

    /** Bytes queued for all subscribers' sockets; call on the tickerplant thread. */
    public long totalBacklogBytes() {
        long sum = 0;
        for (int k = 0; k < subscribers.size(); k++) {
            sum += subscribers.get(k).backlogBytes();
        }
        return sum;
    }

    public int subscriberCount() {
        return subscribers.size();
    }

    public SchemaRegistry schemas() {
        return schemas;
    }

    public TickerplantSettings settings() {
        return settings;
    }

    /** A snapshot; call on the tickerplant thread. */
    public TickerplantStatus status(final int feeds, final TickerplantStatus.Upstream upstream) {
        final List<TickerplantStatus.TableStatus> tables = new ArrayList<>();
        for (int t = 0; t < schemas.size(); t++) {
            tables.add(new TickerplantStatus.TableStatus(schemas.get(t).name(), tableRows[t], tableUpdates[t]));
        }
        final List<TickerplantStatus.SubscriberStatus> subs = new ArrayList<>();
        for (final Subscriber s : subscribers) {
            final List<String> names = new ArrayList<>();
            for (int t = 0; t < s.tables.length; t++) {
                if (s.tables[t]) {
                    names.add(schemas.get(t).name());
                }
            }
            subs.add(new TickerplantStatus.SubscriberStatus(s.id, s.name, String.valueOf(s.channel.remoteAddress()), names,
                s.filter == null ? List.of() : s.filter.symList(), s.state(), s.backlogBytes(), s.updatesSent,
                s.live ? i : s.lastSequence));
        }
        final Map<String, Long> errors = new LinkedHashMap<>();
        for (final ErrorCode e : ErrorCode.values()) {
            if (e != ErrorCode.NONE && errorCounters[e.ordinal()].get() > 0) {
                errors.put(e.tag(), errorCounters[e.ordinal()].get());
            }
        }
        return new TickerplantStatus(settings.name(), mode.id(), timerNanos / 1_000_000, date.toString(), i, j,
            journal.dir().toString(), settings.broadcast(), tables, subs, feeds, errors, disconnectedTotal.get(), upstream,
            nextEndOfDay);
    }

    @Override
    public void close() {
        if (mode != PublishMode.ZERO_LATENCY) {
            publishPending();
            flush();
        }
        for (final Subscriber s : subscribers) {
            if (s.catchUp != null) {
                s.catchUp.close();
                s.catchUp = null;
            }
        }
        for (int t = 0; t < pending.length; t++) {
            if (pending[t] != null) {
                pending[t].release();
                pending[t] = null;
            }
        }
        journal.close();
    }
}
