package io.jtick.core.tp;

import io.jtick.core.journal.FeedRuns;
import io.jtick.core.journal.Journal;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.table.SymbolTable;
import io.jtick.core.time.NanoClock;
import io.jtick.core.time.TradingCalendar;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.UpdateValidator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.LocalDate;
import java.util.List;

import static io.jtick.core.wire.FrameDescriptor.ROW_COUNT_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.SEQUENCE_OFFSET;

/**
 * The tickerplant: kdb+tick's {@code tick.q} on one thread ({@link SubscriberRegistry} is its {@code u.q}).
 *
 * <p>All of its mutable state, owned by the tickerplant thread (the Netty event loop that also runs
 * every feed and subscriber connection, so nothing here is shared or locked):
 * <ul>
 *   <li>{@code journal}: the day's journal ({@code .u.L}), the last journalled sequence {@code j}
 *       ({@code .u.j}), the trading day ({@code .u.d}) and the instant it ends ({@link DayJournal});
 *       {@code i}: the last published sequence ({@code .u.i}); i == j after every update in
 *       zero-latency mode and after every timer tick;</li>
 *   <li>{@code mode}, {@code timerNanos}: zero-latency, timer publish or timer log+publish, and the tick;</li>
 *   <li>{@code batches}: each table's updates waiting for the timer ({@link TimerBatches});</li>
 *   <li>{@code u}: the subscribers ({@code .u.w}) and what publishing to them needs ({@link SubscriberRegistry});</li>
 *   <li>{@code feeds}: each numbered feed's journalled update numbers, connection and acknowledgements
 *       ({@link FeedRegistry}), rebuilt at start from the feed trailers of today's and the previous day's journal;</li>
 *   <li>{@code syms}: symbol ids shared by the sym filters and the timer batches;</li>
 *   <li>{@code lastError}: why the last update was refused;</li>
 *   <li>{@code counters}: every metric, today's rows and updates per table included ({@link TickerplantCounters}).</li>
 * </ul>
 * The rest is fixed at construction (settings, schemas, clock, allocator, the replicated log in cluster
 * mode, the checks an update passes first and its time stamp: {@link UpdateGate}) or reused scratch
 * (validator, the one-feed journal trailer).
 *
 * <p>{@link #onUpdate} ({@code .u.upd}) validates an update, journals the feed's bytes (sequence and
 * TP time stamped in place) and publishes one retained slice of them to every subscriber that takes
 * all syms of its table (serialize once); subscribers with a sym list get a filtered copy built
 * once per distinct list. In the timer modes {@link #onTimer} ({@code .z.ts}) publishes each
 * table's batch merged into one update, in timer log+publish journalling it first as one entry.
 * In every mode nothing is published that was not journalled: an update the journal refuses is
 * refused to whoever sent it ({@link UpdateSource}), and the sequence number it would have had goes
 * to the next update that is journalled, so no number is issued twice.
 * An update from a numbered feed carries the feed's own number: one the journal already holds (a
 * resend after a reconnect) is dropped and counted, never published twice; the others are journalled
 * with the feed's name and number, and {@link #acknowledgeFeeds} (and every {@code feedAckUpdates}
 * updates) tells the feed how far the journal holds it ({@link #onFeedHello} answers where to resend from).
 * {@link #onSubscribe} ({@code .u.sub}) may replay the journal up to {@code i} on this thread before
 * the subscriber turns live, so no update slips between: no gap, no duplicate; a live subscriber that
 * falls behind past the backlog limit is served from the journal the same way
 * ({@link SubscriberRegistry#published}). {@link #onEndOfDay} ({@code .u.end}) tells the subscribers
 * and rolls the journal.
 * Acknowledgements due go out at the end of each batch of work ({@link #flush}, {@link #onTimer}, {@link #acknowledgeFeeds},
 * end of day), after the subscribers' flush; with {@link JournalSync#BATCH} (on disk) after one force (group commit).
 */
public final class Tickerplant implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Tickerplant.class);

    private final TickerplantSettings settings;
    private final SchemaRegistry schemas;
    private final NanoClock clock;
    /** Cluster mode: the log this node offers feeds' updates to (null: a single tickerplant). */
    private final ReplicatedLog log;
    /** Cluster mode: {@link #clock}, reading the applied log entry's time while one is applied. */
    private final LogClock logClock;
    private final ByteBufAllocator alloc;
    private final UpdateValidator validator;
    private final UpdateGate gate;
    private final SymbolTable syms = new SymbolTable();
    private final TickerplantCounters counters;
    private final SubscriberRegistry u;
    private final FeedRegistry feeds;
    private final FeedRuns oneFeed = new FeedRuns();
    private final DayJournal journal;
    private final TimerBatches batches;
    private final boolean syncBatch;

    private long i;
    private PublishMode mode;
    private long timerNanos;
    private String lastError;

    public Tickerplant(final TickerplantSettings settings, final SchemaRegistry schemas, final NanoClock clock,
                       final ByteBufAllocator alloc, final TickMetrics metrics) {
        this(settings, schemas, clock, alloc, metrics, Journal::open, null);
    }

    /**
     * A node of a tickerplant cluster when {@code log} is not null: feeds' updates go to the log, and
     * the journal follows what the log commits ({@link #applyStart}, {@link #applyUpdate}...). Until
     * {@link #applyStart} it holds the journal of the latest day it finds, and scans no feed numbers
     * (the log gives them).
     */
    public Tickerplant(final TickerplantSettings settings, final SchemaRegistry schemas, final NanoClock clock,
                       final ByteBufAllocator alloc, final TickMetrics metrics, final ReplicatedLog log) {
        this(settings, schemas, clock, alloc, metrics, Journal::open, log);
    }

    /** With the journal opener given (tests inject a journal that fails on demand). */
    Tickerplant(final TickerplantSettings settings, final SchemaRegistry schemas, final NanoClock clock,
                final ByteBufAllocator alloc, final TickMetrics metrics, final Journal.Opener journals) {
        this(settings, schemas, clock, alloc, metrics, journals, null);
    }

    private Tickerplant(final TickerplantSettings settings, final SchemaRegistry schemas, final NanoClock clock,
                        final ByteBufAllocator alloc, final TickMetrics metrics, final Journal.Opener journals,
                        final ReplicatedLog log) {
        this.settings = settings.validate();
        this.schemas = schemas;
        this.log = log;
        this.logClock = log == null ? null : new LogClock(clock);
        this.clock = log == null ? clock : logClock;
        this.alloc = alloc;
        final TradingCalendar calendar = new TradingCalendar(settings.eodTime(), settings.zone());
        this.validator = new UpdateValidator(schemas);
        this.counters = new TickerplantCounters(metrics, schemas.size());
        this.gate = new UpdateGate(settings, log, validator, counters);
        this.u = new SubscriberRegistry(settings, schemas, alloc, syms, counters);
        this.syncBatch = settings.journalSync() == JournalSync.BATCH;
        this.feeds = new FeedRegistry(counters, settings.feedAckUpdates());
        this.mode = settings.mode();
        this.timerNanos = settings.timer().toNanos();

        final LocalDate date = DayJournal.startDate(settings.journalDir(), calendar, clock.epochNanos());
        final long s0 = System.nanoTime();
        if (log == null) {
            feeds.scan(settings.journalDir(), date);
        }
        final long scanMillis = (System.nanoTime() - s0) / 1_000_000;
        this.journal = new DayJournal(settings, calendar, journals, clock, this.clock, log, counters, date);
        this.batches = new TimerBatches(schemas, alloc, syms, journal, u, feeds, counters);
        u.date(date);
        i = journal.sequence();
        counters.sequences(i, journal.sequence());
        LOG.info("tickerplant ready [name={}, date={}, sequence={}, journal={}, mode={}, numberedFeeds={}, feedScanMillis={}, cluster={}]",
            settings.name(), date, journal.sequence(), journal.dir(), mode.id(), feeds.statuses().size(), scanMillis, log != null);
    }

    // ------------------------------------------------------------------ .u.upd

    /**
     * {@code .u.upd}: one update frame, {@code length} bytes at {@code offset}, from {@code from} (null
     * when nobody is to be told of a later refusal). Returns {@link ErrorCode#NONE} or why it was refused
     * ({@link #lastError()} has the message); a refused update is neither journalled nor published.
     */
    public ErrorCode onUpdate(final UpdateSource from, final ByteBuf frame, final int offset, final int length) {
        if (log != null) {
            final ErrorCode offered = gate.offer(from, frame, offset, length);
            if (offered != ErrorCode.NONE) {
                lastError = gate.reason();
            }
            return offered;
        }
        return update(from, from == null ? null : from.feed(), frame, offset, length, false);
    }

    /** An update from the upstream TP (chained): keeps the upstream sequence; duplicates are dropped. */
    public ErrorCode onUpstreamUpdate(final UpdateSource from, final ByteBuf frame, final int offset, final int length) {
        if (frame.getLongLE(offset + SEQUENCE_OFFSET) <= journal.sequence()) {
            return ErrorCode.NONE;
        }
        return update(from, from == null ? null : from.feed(), frame, offset, length, true);
    }

    private ErrorCode update(final UpdateSource from, final FeedRegistry.Feed feed, final ByteBuf frame, final int offset,
                             final int length, final boolean upstream) {
        if (!upstream && settings.chained()) {
            counters.error(ErrorCode.UNEXPECTED_MESSAGE);
            lastError = gate.takesNoFeeds();
            return ErrorCode.UNEXPECTED_MESSAGE;
        }
        final long start = System.nanoTime();
        final ErrorCode code = gate.check(feed, frame, offset, length);
        if (code != ErrorCode.NONE) {
            lastError = gate.reason();
            return code;
        }
        final long feedSequence = feed == null ? 0 : frame.getLongLE(offset + SEQUENCE_OFFSET);
        if (feed != null && (log == null ? !feeds.admit(feed, feedSequence) : !feeds.admitReplicated(feed, feedSequence))) {
            return ErrorCode.NONE;
        }
        final int t = validator.tableIndex();
        final long now = clock.epochNanos();
        gate.stampTime(frame, offset, now);
        if (mode != PublishMode.ZERO_LATENCY && batches.wouldOutgrow(t, length, settings.maxFrameLength())) {
            // the batch would outgrow one frame: the timer ticks early
            publishPending();
            u.flush();
        }
        if (mode == PublishMode.TIMER_LOG_PUBLISH) {
            batches.add(t, from, feed, frame, offset, length);
        } else {
            final long sequence = upstream ? frame.getLongLE(offset + SEQUENCE_OFFSET) : journal.sequence() + 1;
            final FeedRuns trailer = feed == null ? null : oneFeed.clear().add(feed.nameBytes, feedSequence);
            if (!journal.append(frame, offset, length, sequence, now, trailer)) {
                lastError = journal.failure();
                return ErrorCode.JOURNAL_FAILURE;
            }
            counters.journalled(t, frame.getIntLE(offset + ROW_COUNT_OFFSET), length, 1);
            if (feed != null) {
                feeds.journalled(feed, feedSequence, System.nanoTime());
            }
            if (mode == PublishMode.ZERO_LATENCY) {
                final long p0 = System.nanoTime();
                u.publish(frame, offset, length, t, validator.table());
                counters.pub.record(System.nanoTime() - p0);
                published();
            } else {
                batches.add(t, from, null, frame, offset, length);
            }
        }
        counters.upd.record(System.nanoTime() - start);
        return ErrorCode.NONE;
    }

    // ------------------------------------------------------------------ cluster mode

    /**
     * Cluster mode: the state the log stands for at this point (a snapshot's, or a new cluster's
     * first day), called before any other entry is applied. The journal of {@code state.date()} is
     * opened (entries it already holds, up to its last, are then not written again as the log replays
     * them), and the feeds' numbers become the state's.
     */
    public void applyStart(final ReplicatedState state) {
        if (journal.restart(state.date(), state.sequence())) {
            u.date(journal.date());
        }
        published();
        feeds.restore(state.feeds());
        if (state.mode() != mode || state.timerNanos() != timerNanos) {
            setMode(state.mode(), state.timerNanos());
        }
        LOG.info("cluster state applied [date={}, sequence={}, journalLast={}, mode={}, numberedFeeds={}]", journal.date(),
            journal.sequence(), journal.lastSequence(), mode.id(), state.feeds().size());
    }

    /**
     * Cluster mode: a committed update, in log order, with the log entry's time ({@code logNanos}, the
     * TP time it is stamped with): journalled under the next sequence unless its feed's number is
     * already journalled, published, and acknowledged to its feed if that feed is connected here.
     * Every node applies the same entries in the same order, so every journal gets the same entries
     * under the same sequences.
     */
    public ErrorCode applyUpdate(final String feedName, final ByteBuf frame, final int offset, final int length, final long logNanos) {
        logClock.at(logNanos);
        try {
            return update(null, feedName == null ? null : feeds.feed(feedName), frame, offset, length, false);
        } finally {
            logClock.at(-1);
        }
    }

    /** Cluster mode: end of day at this log position ({@link #onEndOfDay} at the log entry's time). */
    public void applyEndOfDay(final long logNanos) {
        logClock.run(logNanos, this::onEndOfDay);
    }

    /** Cluster mode: the state to snapshot at this log position ({@link #applyStart} takes it back). */
    public ReplicatedState replicatedState() {
        return new ReplicatedState(journal.date(), journal.sequence(), mode, timerNanos, feeds.numbers());
    }

    /**
     * Cluster mode: this node stopped being the leader: every numbered feed connected here is told
     * where the leader is and closed (it resends there from the leader's FEED_ACK).
     */
    public void leadershipLost() {
        feeds.closeConnections(ErrorCode.NOT_LEADER, log.notLeaderReason(false));
    }

    /** True in cluster mode. */
    public boolean replicated() {
        return log != null;
    }

    /** Why the last update was refused. */
    public String lastError() {
        return lastError;
    }

    /** Counts an error seen by the connection layer (oversized, truncated, malformed header...). */
    public void countError(final ErrorCode code) {
        counters.error(code);
    }

    // ------------------------------------------------------------------ numbered feeds

    /** Null, or why this tickerplant refuses a feed ({@link UpdateGate#takesNoFeeds}). */
    String takesNoFeeds() {
        return gate.takesNoFeeds();
    }

    /**
     * A numbered feed's HELLO (protocol 2): {@code from} becomes the connection of feed {@code name}
     * (an older one is closed) and is answered at once with FEED_ACK of the feed's last journalled
     * number, from which it resends. In timer log+publish mode what the feed has waiting for the
     * timer is journalled first, so the answer counts it; not in cluster mode, where only the log
     * decides when a tick journals (the feed resends what waits, and the resends are dropped by number).
     */
    FeedRegistry.Feed onFeedHello(final UpdateSource from, final String name) {
        if (log == null && feeds.feed(name).pending > 0) {
            publishPending();
            u.flush();
        }
        final FeedRegistry.Feed f = feeds.hello(name, from);
        feeds.acknowledge(f, System.nanoTime());
        return f;
    }

    /** A numbered feed's connection closed. */
    void onFeedGone(final FeedRegistry.Feed feed, final UpdateSource from) {
        feeds.gone(feed, from);
    }

    /** Sends FEED_ACK to every numbered feed whose progress was not acknowledged for {@code feedAckInterval} (server housekeeping). */
    public void acknowledgeFeeds() {
        feeds.acknowledgeDue(System.nanoTime(), settings.feedAckInterval().toNanos());
        commit(false);
    }

    /** End of a batch of work: due acknowledgements go out; {@link JournalSync#BATCH}: after one force, made anyway if {@code force}. */
    private void commit(final boolean force) {
        if (syncBatch && (force || feeds.acksHeld())) {
            forceJournal();
        } else {
            feeds.sendHeld();
        }
    }

    /** {@link FeedRegistry#sendHeldOnceForced}; false, with the journal's failure as {@link #lastError}, when the force failed. */
    private boolean forceJournal() {
        if (feeds.sendHeldOnceForced(journal)) {
            return true;
        }
        lastError = journal.failure();
        return false;
    }

    /**
     * Before a kdb+ sync {@code .u.upd} is answered (its acknowledgement): with {@link JournalSync#BATCH}
     * forces the journal; {@link ErrorCode#JOURNAL_FAILURE} ({@link #lastError}) when that failed.
     */
    ErrorCode forceBeforeAnswer() {
        return !syncBatch || forceJournal() ? ErrorCode.NONE : ErrorCode.JOURNAL_FAILURE;
    }

    // ------------------------------------------------------------------ .z.ts

    /**
     * {@code .z.ts}: in the timer modes, journals (log+publish) and publishes each table's batch, then
     * flushes. In cluster mode a log+publish tick is a cluster timer instead ({@link #applyTimer}), so
     * that every node journals the same batches at the same log position.
     */
    public void onTimer() {
        if (mode == PublishMode.ZERO_LATENCY || log != null && mode == PublishMode.TIMER_LOG_PUBLISH) {
            return;
        }
        tick();
    }

    /** Cluster mode, timer log+publish: the tick at this log position, at the log entry's time. */
    public void applyTimer(final long logNanos) {
        if (mode == PublishMode.TIMER_LOG_PUBLISH) {
            logClock.run(logNanos, this::tick);
        }
    }

    private void tick() {
        final long t0 = System.nanoTime();
        final boolean published = publishPending();
        u.flush();
        if (published) {
            counters.timer.record(System.nanoTime() - t0);
        }
        commit(false);
        if (mode == PublishMode.TIMER_LOG_PUBLISH) {
            journal.pretouch();
        }
    }

    /**
     * Journals (log+publish) and publishes what is pending ({@link TimerBatches#publish}); true when
     * there was something. A batch the journal refused leaves its failure as {@link #lastError}.
     */
    private boolean publishPending() {
        final boolean any = batches.publish(mode, clock.epochNanos());
        if (batches.refused()) {
            lastError = journal.failure();
        }
        published();
        return any;
    }

    /** Everything journalled is published: {@code i} moves up to it, and subscribers past the backlog limit turn to the journal. */
    private void published() {
        i = journal.sequence();
        counters.sequences(i, i);
        u.published(i, journal.current());
    }

    /**
     * End of a feed read batch: flushes every subscriber written since the last flush, then (group
     * commit, {@link JournalSync#BATCH}) forces the journal once for the acknowledgements the batch made due.
     */
    public void flush() {
        u.flush();
        commit(false);
    }

    /**
     * Switches publish mode at run time; what is pending under the old mode is published first. A
     * chained TP refuses timer log+publish ({@link TickerplantSettings#validate}).
     */
    public void setMode(final PublishMode newMode, final long newTimerNanos) {
        if (settings.chained() && newMode == PublishMode.TIMER_LOG_PUBLISH) {
            throw new IllegalArgumentException(TickerplantSettings.CHAINED_LOG_PUBLISH);
        }
        if (mode != PublishMode.ZERO_LATENCY) {
            publishPending();
            u.flush();
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

    // ------------------------------------------------------------------ .u.sub

    /**
     * {@code .u.sub}: registers a subscriber; answers with SUBSCRIBED, then (from-sequence given)
     * journal history up to {@code i}, CATCH_UP_DONE, and live updates. Returns an error message
     * instead when the request is bad (the caller sends it and closes).
     */
    public String onSubscribe(final Channel channel, final String name, final ControlFrames.Subscribe req) {
        return u.add(channel, name, req, journal.current(), i, journal.sequence(), journal.date());
    }

    /**
     * kdb+ {@code .u.sub[t; syms]} from a kdb+ client ({@link KdbAdapter}): table index {@code table}
     * (-1: all), {@code syms} (empty: all), live from now; it receives {@code (`upd;`t;table)} messages.
     */
    public void onKdbSubscribe(final Channel channel, final String name, final int table, final List<String> syms) {
        u.addKdb(channel, name, table, syms, i);
    }

    /** The allocator of the frames the tickerplant handles (pooled direct: the journal copies them by address). */
    ByteBufAllocator alloc() {
        return alloc;
    }

    /** Epoch nanoseconds of the trading date's midnight: what a kdb+ timespan {@code time} counts from. */
    long dayStartNanos() {
        return u.dayStartNanos();
    }

    /** How the tickerplant asks its thread to run another catch-up turn later (set by the server). */
    void catchUpScheduler(final Runnable scheduler) {
        u.catchUpScheduler(scheduler);
    }

    /** Continues catch-ups that were waiting for {@code channel} to drain. */
    public void onWritable(final Channel channel) {
        u.onWritable(channel, i, journal.current());
    }

    /** Runs one turn of every unfinished catch-up (the server calls this when a turn was cut short). */
    public void catchUpTurn() {
        u.catchUpTurn(i, journal.current());
    }

    /** {@code .u.del}: a connection closed, forget its subscriptions. */
    public void onDisconnect(final Channel channel) {
        u.remove(channel);
    }

    /**
     * Touches journal pages ahead of the next entry (server housekeeping, every 50 ms) in zero-latency
     * mode, where each update is journalled as it arrives; a timer log+publish tick does it itself
     * when it is done, for the next tick's entry. Not in timer publish: there it made the tick (which
     * writes no journal) 2x slower in Table 4, 133-137 against 60-66 µs, for a cause not found.
     * Measured on Table 1 (r=100, t=10 ms), two runs each: tplog 10.5-15.7 against 41.6-44.1 µs.
     */
    public void pretouchJournal() {
        if (mode == PublishMode.ZERO_LATENCY) {
            journal.pretouch();
        }
    }

    /** Sends a heartbeat to every live subscriber. */
    public void heartbeat() {
        u.heartbeat(clock.epochNanos());
    }

    // ------------------------------------------------------------------ .u.end

    /** Fires end of day if the clock has passed it; returns true when it did. */
    public boolean checkEndOfDay() {
        if (log == null && clock.epochNanos() >= journal.nextEndOfDay()) {
            onEndOfDay();
            return true;
        }
        return false;
    }

    /**
     * {@code .u.end}: publishes what is pending, sends END_OF_DAY to every subscriber (one still
     * catching up gets it once it has read the whole day) and rolls the journal to the next trading day.
     */
    public void onEndOfDay() {
        if (mode != PublishMode.ZERO_LATENCY) {
            publishPending();
        }
        final LocalDate ended = journal.date();
        u.endOfDay(ended, i, journal.sequence(), settings.journalDir());
        commit(true);
        journal.roll();
        u.date(journal.date());
        counters.endOfDay();
        LOG.info("end of day [ended={}, next={}, sequence={}, journal={}]", ended, journal.date(), journal.sequence(), journal.dir());
    }

    // ------------------------------------------------------------------ status

    public long sequence() {
        return i;
    }

    public long journalSequence() {
        return journal.sequence();
    }

    public LocalDate date() {
        return journal.date();
    }

    public long nextEndOfDayNanos() {
        return journal.nextEndOfDay();
    }

    /** Bytes queued for all subscribers' sockets; call on the tickerplant thread. */
    public long totalBacklogBytes() {
        return u.backlogBytes();
    }

    public int subscriberCount() {
        return u.size();
    }

    public SchemaRegistry schemas() {
        return schemas;
    }

    public TickerplantSettings settings() {
        return settings;
    }

    TickerplantCounters counters() {
        return counters;
    }

    /** A snapshot; call on the tickerplant thread. */
    public TickerplantStatus status(final TickerplantStatus.Upstream upstream) {
        return new TickerplantStatus(settings.name(), mode.id(), timerNanos / 1_000_000, journal.date().toString(), i,
            journal.sequence(), journal.dir().toString(), settings.broadcast(), counters.tables(schemas), u.statuses(i), counters.feeds(),
            feeds.statuses(), counters.errorsByTag(), counters.disconnected(), u.alerts(), upstream, journal.nextEndOfDay());
    }

    @Override
    public void close() {
        // a cluster node's log+publish tick is the log's to decide: what waits is journalled when the log replays
        if (mode == PublishMode.TIMER_PUBLISH || mode == PublishMode.TIMER_LOG_PUBLISH && log == null) {
            publishPending();
            u.flush();
        }
        u.close();
        batches.release();
        journal.close();
    }
}
