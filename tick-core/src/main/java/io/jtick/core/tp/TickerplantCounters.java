package io.jtick.core.tp;

import io.jtick.core.metrics.LatencyStats;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.wire.ErrorCode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Every counter, gauge and latency histogram of the tickerplant ({@code tick.tp.*} in docs/metrics.md),
 * registered once in {@link TickMetrics} and held here so the tickerplant's own state stays small.
 * Written by the tickerplant thread; read by any thread (exporters, REST). The per-table counts are
 * plain fields: read them on the tickerplant thread.
 */
final class TickerplantCounters {
    /** tplog: journal write of one update. */
    final LatencyStats log;
    /** tppub: publish of one update (or one timer batch) to every subscriber. */
    final LatencyStats pub;
    /** tpupd: handling of one update, validation to published (or batched). */
    final LatencyStats upd;
    /** tpflush: flush of subscriber sockets per read batch or timer tick. */
    final LatencyStats flush;
    /** One timer tick that had pending updates: journal (log+publish), merge, publish, flush. */
    final LatencyStats timer;
    /** One force of the journal to disk ({@code tick.tp.journal.sync=batch}). */
    private final LatencyStats journalSync;
    private final AtomicLong journalSyncs;
    /** The kdb+ port's own metrics ({@code tick.tp.kdb.*}). */
    final KdbCounters kdb;

    private final AtomicLong rows;
    private final AtomicLong updates;
    private final AtomicLong bytes;
    private final AtomicLong[] errors;
    private final AtomicLong disconnectedSlow;
    private final AtomicLong disconnectedAny;
    private final AtomicLong endOfDays;
    private final AtomicLong connections;
    private final AtomicLong feedDuplicates;
    private final AtomicLong feedGaps;
    private final AtomicLong subscriberAlerts;
    private final AtomicLong subscribersToJournal;
    private final AtomicLong feeds = new AtomicLong();
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong journalled = new AtomicLong();
    private final AtomicLong subscribers = new AtomicLong();
    /** Rows and updates journalled today per table (status only; reset at end of day). */
    private final long[] tableRows;
    private final long[] tableUpdates;
    private final TickMetrics metrics;

    TickerplantCounters(final TickMetrics metrics, final int tables) {
        this.metrics = metrics;
        log = metrics.latency("tick.tp.log", "TP journal write per update");
        pub = metrics.latency("tick.tp.pub", "TP publish per update to all subscribers");
        upd = metrics.latency("tick.tp.upd", "TP handling of one update, validate to publish");
        flush = metrics.latency("tick.tp.flush", "TP flush of subscriber sockets per read batch or timer tick");
        timer = metrics.latency("tick.tp.timer", "TP timer tick with pending updates: journal (log+publish), merge, publish, flush");
        journalSync = metrics.latency("tick.tp.journal.sync", "TP force of the journal to disk before the acknowledgements it covers");
        journalSyncs = metrics.counter("tick.tp.journal.syncs");
        rows = metrics.counter("tick.tp.rows");
        updates = metrics.counter("tick.tp.updates");
        bytes = metrics.counter("tick.tp.bytes");
        errors = new AtomicLong[ErrorCode.values().length];
        for (final ErrorCode e : ErrorCode.values()) {
            if (e != ErrorCode.NONE) {
                errors[e.ordinal()] = metrics.counter("tick.tp.errors|code=" + e.tag());
            }
        }
        disconnectedSlow = metrics.counter("tick.tp.subscribers.disconnected|reason=slow");
        disconnectedAny = metrics.counter("tick.tp.subscribers.disconnected|reason=any");
        endOfDays = metrics.counter("tick.tp.eod");
        connections = metrics.counter("tick.tp.connections");
        feedDuplicates = metrics.counter("tick.tp.feed.duplicates");
        feedGaps = metrics.counter("tick.tp.feed.gaps");
        subscriberAlerts = metrics.counter("tick.tp.subscriber.alerts");
        subscribersToJournal = metrics.counter("tick.tp.subscriber.journal.switches");
        metrics.gauge("tick.tp.sequence", published::get);
        metrics.gauge("tick.tp.journal.sequence", journalled::get);
        metrics.gauge("tick.tp.subscribers", subscribers::get);
        metrics.gauge("tick.tp.feeds", feeds::get);
        tableRows = new long[tables];
        tableUpdates = new long[tables];
        kdb = new KdbCounters(metrics);
    }

    /** The server's gauge of bytes queued for subscribers (it asks the tickerplant thread). */
    void backlogGauge(final LongSupplier backlogBytes) {
        metrics.gauge("tick.tp.subscriber.backlog.bytes", backlogBytes);
    }

    /** {@code updateCount} updates of table {@code t} were journalled (more than one: a timer batch merged into one entry). */
    void journalled(final int t, final int rowCount, final int frameBytes, final int updateCount) {
        tableRows[t] += rowCount;
        tableUpdates[t] += updateCount;
        add(rows, rowCount);
        add(updates, updateCount);
        add(bytes, frameBytes);
    }

    /** The journal was forced, in {@code nanos}. */
    void journalSynced(final long nanos) {
        journalSync.record(nanos);
        add(journalSyncs, 1);
    }

    void error(final ErrorCode code) {
        final AtomicLong c = errors[code.ordinal()];
        if (c != null) {
            add(c, 1);
        }
    }

    void errors(final ErrorCode code, final int n) {
        final AtomicLong c = errors[code.ordinal()];
        if (c != null) {
            add(c, n);
        }
    }

    void sequences(final long i, final long j) {
        published.lazySet(i);
        journalled.lazySet(j);
    }

    void journalSequence(final long j) {
        journalled.lazySet(j);
    }

    void subscribers(final int n) {
        subscribers.lazySet(n);
    }

    /** The slow-subscriber policy is closing a subscriber ({@link #subscriberGone()} follows when it is gone). */
    void subscriberSlow() {
        add(disconnectedSlow, 1);
    }

    /** A subscriber's connection closed, for any reason. */
    void subscriberGone() {
        add(disconnectedAny, 1);
    }

    void endOfDay() {
        add(endOfDays, 1);
        java.util.Arrays.fill(tableRows, 0);
        java.util.Arrays.fill(tableUpdates, 0);
    }

    /** A numbered feed resent an update the journal already held; it was dropped. */
    void feedDuplicate() {
        add(feedDuplicates, 1);
    }

    /** A numbered feed skipped numbers. */
    void feedGap() {
        add(feedGaps, 1);
    }

    /** A subscriber's backlog passed the alert level (once per episode). */
    void subscriberAlert() {
        add(subscriberAlerts, 1);
    }

    long subscriberAlerts() {
        return subscriberAlerts.get();
    }

    /** A live subscriber passed the backlog limit and is now served from the journal (policy {@link SlowSubscribers#JOURNAL}). */
    void subscriberToJournal() {
        add(subscribersToJournal, 1);
    }

    void connectionOpened() {
        add(connections, 1);
    }

    void feedConnected(final boolean connected) {
        add(feeds, connected ? 1 : -1);
    }

    /** Rows and updates per table, in the schemas' order (table id {@code t} is {@code schemas.get(t)}). */
    List<TickerplantStatus.TableStatus> tables(final SchemaRegistry schemas) {
        final List<TickerplantStatus.TableStatus> out = new ArrayList<>(schemas.size());
        for (int t = 0; t < schemas.size(); t++) {
            out.add(new TickerplantStatus.TableStatus(schemas.get(t).name(), tableRows[t], tableUpdates[t]));
        }
        return out;
    }

    int feeds() {
        return (int) feeds.get();
    }

    long disconnected() {
        return disconnectedAny.get();
    }

    /** Error counts by tag, non-zero only (for the status snapshot). */
    Map<String, Long> errorsByTag() {
        final Map<String, Long> m = new LinkedHashMap<>();
        for (final ErrorCode e : ErrorCode.values()) {
            if (e != ErrorCode.NONE && errors[e.ordinal()].get() > 0) {
                m.put(e.tag(), errors[e.ordinal()].get());
            }
        }
        return m;
    }

    private static void add(final AtomicLong c, final long n) {
        c.addAndGet(n);
    }
}
