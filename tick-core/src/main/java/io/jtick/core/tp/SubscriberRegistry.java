package io.jtick.core.tp;

import io.jtick.core.journal.Journal;
import io.jtick.core.journal.JournalReader;
import io.jtick.core.kdb.KdbUpdateWriter;
import io.jtick.core.kdb.KdbWriter;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.SymbolTable;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.Transport;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * kdb-tick's {@code u.q}: who subscribed to what ({@code .u.w}), {@code .u.sub}, {@code .u.pub} with
 * its sym selection ({@code .u.sel}), {@code .u.del}, the end-of-day message, plus what kdb leaves to
 * the OS: flushing, the slow-subscriber policy and journal catch-up. Tickerplant thread only.
 *
 * <p>Slow subscribers: {@link BacklogPolicy} (an alert level, and a limit past which a subscriber is
 * disconnected or served from the journal). One served from the journal takes no more live updates once
 * the publish it passed the limit in has ended ({@link #published}): what is queued for it drains, then it
 * reads the journal after the last update queued, as a catch-up, and is live again, with no CATCH_UP_DONE,
 * when it has read up to {@code i}. Journal catch-up goes at the socket's pace in every
 * case, the end of day included: a subscriber still catching up when the day ends goes on reading that
 * day's journal (read-only) and gets END_OF_DAY when it has it all, then the new day.
 *
 * <p>State: {@code subscribers} (each with its tables, sym filter, journal reader while catching up,
 * its slow-subscriber alert flag, whether it passed the limit in this publish, an END_OF_DAY it is owed
 * once it has read the ended day, and the run of adjacent live frames not yet written, written as one
 * slice before the flush or anything else); {@code toJournal}, whether one passed the limit since {@link #published};
 * {@code filters}, one shared {@link SymFilter} per distinct sym list over the symbol ids in {@code syms};
 * {@code dirty[0..dirtyCount)}, the subscribers written since the last flush;
 * {@code filterScratch}/{@code filteredScratch}, the filtered copies built during one publish;
 * {@code decoder}, scratch for reading catch-up entries; {@code nextId}; {@code catchUpScheduler},
 * how to ask the thread for another catch-up turn. For kdb+ subscribers: {@code kdbWriter} and
 * {@code kdbScratch}, the {@code (`upd;`t;table)} message built once per publish and distinct sym list;
 * {@code dayStart}, the trading date's midnight their timespans count from.
 */
final class SubscriberRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(SubscriberRegistry.class);
    private static final int CATCH_UP_BYTES_PER_TURN = 4 << 20;

    private final TickerplantSettings settings;
    private final SchemaRegistry schemas;
    private final ByteBufAllocator alloc;
    private final UpdateRewriter rewriter;
    private final TickerplantCounters counters;
    private final BacklogPolicy policy;
    private final SymbolTable syms;
    private final UpdateDecoder decoder = new UpdateDecoder();

    private final List<Subscriber> subscribers = new ArrayList<>();
    private final Map<SortedSet<String>, SymFilter> filters = new LinkedHashMap<>();
    private Subscriber[] dirty = new Subscriber[16];
    private int dirtyCount;
    private SymFilter[] filterScratch = new SymFilter[8];
    private ByteBuf[] filteredScratch = new ByteBuf[8];
    private ByteBuf[] kdbScratch = new ByteBuf[8];
    private final KdbUpdateWriter kdbWriter = new KdbUpdateWriter();
    private long dayStart;
    private long nextId;
    private boolean toJournal;
    private Runnable catchUpScheduler = () -> { };

    SubscriberRegistry(final TickerplantSettings settings, final SchemaRegistry schemas, final ByteBufAllocator alloc,
                       final SymbolTable syms, final TickerplantCounters counters) {
        this.settings = settings;
        this.schemas = schemas;
        this.alloc = alloc;
        this.syms = syms;
        this.rewriter = new UpdateRewriter(syms);
        this.counters = counters;
        this.policy = new BacklogPolicy(settings, counters, alloc);
    }

    void catchUpScheduler(final Runnable scheduler) {
        this.catchUpScheduler = scheduler;
    }

    /**
     * {@code .u.sub}: answers SUBSCRIBED, then (from-sequence given) journal history up to {@code i},
     * CATCH_UP_DONE, and live updates. Returns an error message instead when the request is bad.
     */
    String add(final Channel channel, final String name, final ControlFrames.Subscribe req, final Journal journal,
               final long i, final long j, final LocalDate date) {
        final boolean[] tables = new boolean[schemas.size()];
        final List<TableSchema> chosen = new ArrayList<>();
        if (req.tables().isEmpty()) {
            Arrays.fill(tables, true);
            chosen.addAll(schemas.tables());
        } else {
            for (final String table : req.tables()) {
                final int t = schemas.indexOf(table);
                if (t < 0) {
                    counters.error(ErrorCode.BAD_SUBSCRIPTION);
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
            filter = filters.computeIfAbsent(new TreeSet<>(req.syms()), k -> new SymFilter(k, syms));
        }
        final Subscriber s = new Subscriber(++nextId, channel, name, tables, filter);
        subscribers.add(s);
        counters.subscribers(subscribers.size());
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
            catchUp(s, i, journal);
        }
        LOG.info("subscriber [id={}, name={}, remote={}, tables={}, syms={}, from={}]", s.id, name, Transport.remote(channel),
            req.tables().isEmpty() ? "all" : req.tables(), req.syms().isEmpty() ? "all" : req.syms().size(), from);
        return null;
    }

    /** {@code .u.pub}: writes one update of table {@code t} to every live subscriber of it; {@link #flush()} sends. */
    void publish(final ByteBuf frame, final int offset, final int length, final int t, final TableSchema schema) {
        int filtersUsed = 0;
        ByteBuf kdbAll = null;
        final int n = subscribers.size();
        for (int k = 0; k < n; k++) {
            final Subscriber s = subscribers.get(k);
            if (!s.live || s.closing || !s.tables[t]) {
                continue;
            }
            if (s.filter == null) {
                if (s.kdb) {
                    kdbAll = writeKdb(s, kdbAll, frame, offset, schema);
                    continue;
                }
                writeFrame(s, frame, offset, length);
                continue;
            }
            int f = 0;
            while (f < filtersUsed && filterScratch[f] != s.filter) {
                f++;
            }
            if (f == filtersUsed) {
                if (f == filterScratch.length) {
                    filterScratch = Arrays.copyOf(filterScratch, f * 2);
                    filteredScratch = Arrays.copyOf(filteredScratch, f * 2);
                    kdbScratch = Arrays.copyOf(kdbScratch, f * 2);
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
                if (s.kdb) {
                    kdbAll = writeKdb(s, kdbAll, frame, offset, schema);
                } else {
                    writeFrame(s, frame, offset, length);
                }
            } else if (s.kdb) {
                kdbScratch[f] = writeKdb(s, kdbScratch[f], out, out.readerIndex(), schema);
            } else {
                write(s, settings.broadcast() ? out.retainedDuplicate() : copy(out, out.readerIndex(), out.readableBytes()));
            }
        }
        if (kdbAll != null) {
            kdbAll.release();
        }
        for (int f = 0; f < filtersUsed; f++) {
            final ByteBuf out = filteredScratch[f];
            if (out != null && out != frame) {
                out.release();
            }
            if (kdbScratch[f] != null) {
                kdbScratch[f].release();
                kdbScratch[f] = null;
            }
            filteredScratch[f] = null;
            filterScratch[f] = null;
        }
    }

    /**
     * Writes the kdb+ message of the update at {@code offset} to kdb+ subscriber {@code s}: {@code built},
     * the message already built for this publish and sym list, shared (serialize once), or built now
     * and returned for the next subscriber; with broadcast off, one of its own (per-subscriber serialization).
     */
    private ByteBuf writeKdb(final Subscriber s, final ByteBuf built, final ByteBuf frame, final int offset, final TableSchema schema) {
        if (!settings.broadcast()) {
            write(s, encodeKdb(frame, offset, schema));
            return built;
        }
        final ByteBuf msg = built != null ? built : encodeKdb(frame, offset, schema);
        write(s, msg.retainedDuplicate());
        return msg;
    }

    private ByteBuf encodeKdb(final ByteBuf frame, final int offset, final TableSchema schema) {
        final long t0 = System.nanoTime();
        final ByteBuf msg = kdbWriter.write(frame, offset, schema, dayStart, alloc);
        counters.kdb.published(msg.readableBytes(), System.nanoTime() - t0);
        return msg;
    }

    /** The trading date kdb+ subscribers' timespans count from (its midnight in the TP's zone). */
    void date(final LocalDate date) {
        final java.time.Instant midnight = date.atStartOfDay(settings.zone()).toInstant();
        dayStart = midnight.getEpochSecond() * 1_000_000_000L + midnight.getNano();
    }

    /** Epoch nanoseconds of the trading date's midnight in the TP's zone. */
    long dayStartNanos() {
        return dayStart;
    }

    /**
     * kdb+ {@code .u.sub[t; syms]}: subscribes a kdb+ client to table {@code table} (-1: all) and
     * {@code syms} (empty: all), live from {@code i} (a kdb+ subscriber replays nothing). As in u.q, it
     * replaces this connection's earlier subscription of the same tables.
     */
    void addKdb(final Channel channel, final String name, final int table, final List<String> syms, final long i) {
        final boolean[] tables = new boolean[schemas.size()];
        if (table < 0) {
            Arrays.fill(tables, true);
        } else {
            tables[table] = true;
        }
        for (int k = subscribers.size() - 1; k >= 0; k--) {
            final Subscriber old = subscribers.get(k);
            if (old.channel == channel) {
                boolean left = false;
                for (int t = 0; t < tables.length; t++) {
                    old.tables[t] &= !tables[t];
                    left |= old.tables[t];
                }
                if (!left) {
                    subscribers.remove(k);
                }
            }
        }
        SymFilter filter = null;
        if (!syms.isEmpty()) {
            filter = filters.computeIfAbsent(new TreeSet<>(syms), key -> new SymFilter(key, this.syms));
        }
        final Subscriber s = new Subscriber(++nextId, channel, name, tables, filter, true);
        s.live = true;
        s.lastSequence = i;
        subscribers.add(s);
        counters.subscribers(subscribers.size());
        LOG.info("kdb+ subscriber [id={}, name={}, remote={}, tables={}, syms={}]", s.id, name, Transport.remote(channel),
            table < 0 ? "all" : schemas.get(table).name(), syms.isEmpty() ? "all" : syms.size());
    }

    /** Per-subscriber serialization (broadcast off): what kdb+ did before {@code -25!}. */
    private ByteBuf copy(final ByteBuf frame, final int offset, final int length) {
        final ByteBuf c = alloc.directBuffer(length);
        c.writeBytes(frame, offset, length);
        return c;
    }

    private void write(final Subscriber s, final ByteBuf out) {
        s.writePending();
        s.channel.write(out, s.channel.voidPromise());
        written(s);
    }

    /** Broadcast: the frame goes to {@code s} uncopied, in one run with the adjacent frames before it ({@link Subscriber#writeShared}). */
    private void writeFrame(final Subscriber s, final ByteBuf frame, final int offset, final int length) {
        if (!settings.broadcast()) {
            write(s, copy(frame, offset, length));
            return;
        }
        s.writeShared(frame, offset, length);
        written(s);
    }

    /** One update more written to {@code s}: marked for the flush, its backlog checked. */
    private void written(final Subscriber s) {
        s.updatesSent++;
        if (!s.dirty) {
            s.dirty = true;
            if (dirtyCount == dirty.length) {
                dirty = Arrays.copyOf(dirty, dirtyCount * 2);
            }
            dirty[dirtyCount++] = s;
        }
        if (policy.written(s)) {
            s.toJournal = true;
            toJournal = true;
        }
    }

    /**
     * Every update up to sequence {@code i} has been published: a live subscriber that passed the backlog
     * limit since the last call takes no more live updates, and reads {@code journal} after {@code i} once
     * what is queued for it has drained (its socket writable again: {@link #onWritable}).
     */
    void published(final long i, final Journal journal) {
        if (!toJournal) {
            return;
        }
        toJournal = false;
        for (int k = 0; k < subscribers.size(); k++) {
            final Subscriber s = subscribers.get(k);
            if (!s.toJournal) {
                continue;
            }
            s.toJournal = false;
            if (s.closing || !s.live) {
                continue;
            }
            // what is queued goes to the socket now: its reading of the journal waits for that to drain, whatever comes next
            s.writePending();
            s.channel.flush();
            s.live = false;
            s.fromJournal = true;
            s.lastSequence = i;
            s.catchUp = journal.readerAfter(i);
            counters.subscriberToJournal();
            LOG.warn("slow subscriber served from the journal [id={}, name={}, backlogBytes={}, limit={}, after={}]", s.id, s.name,
                s.backlogBytes(), settings.maxSubscriberBacklog(), i);
        }
        catchUpScheduler.run();
    }

    /** Flushes every subscriber written since the last flush (end of a feed read batch, or timer tick). */
    void flush() {
        if (dirtyCount == 0) {
            return;
        }
        final long t0 = System.nanoTime();
        for (int k = 0; k < dirtyCount; k++) {
            final Subscriber s = dirty[k];
            s.dirty = false;
            s.writePending();
            s.channel.flush();
            dirty[k] = null;
        }
        dirtyCount = 0;
        counters.flush.record(System.nanoTime() - t0);
    }

    /** Continues catch-ups of {@code channel} that were waiting for its socket to drain; ends an alert episode that is over. */
    void onWritable(final Channel channel, final long i, final Journal journal) {
        for (int k = 0; k < subscribers.size(); k++) {
            final Subscriber s = subscribers.get(k);
            if (s.channel == channel) {
                policy.clearAlert(s);
                if (s.catchUp != null) {
                    catchUp(s, i, journal);
                }
            }
        }
    }

    /** Runs one turn of every unfinished catch-up whose socket can take more. */
    void catchUpTurn(final long i, final Journal journal) {
        for (int k = 0; k < subscribers.size(); k++) {
            final Subscriber s = subscribers.get(k);
            if (s.catchUp != null && s.channel.isWritable()) {
                catchUp(s, i, journal);
            }
        }
    }

    /**
     * Sends journal history to {@code s} up to {@code i}, {@link #CATCH_UP_BYTES_PER_TURN} bytes per turn
     * at most and only while its socket takes more. A subscriber reading an ended day ({@code endOfDayPending})
     * gets END_OF_DAY when that day is done and goes on with today's {@code journal}.
     */
    private void catchUp(final Subscriber s, final long i, final Journal journal) {
        long sent = 0;
        while (s.catchUp != null && !s.closing) {
            if (sent >= CATCH_UP_BYTES_PER_TURN || !s.channel.isWritable()) {
                s.channel.flush();
                if (sent >= CATCH_UP_BYTES_PER_TURN) {
                    catchUpScheduler.run();
                }
                return;
            }
            final ByteBuf entry = alloc.directBuffer(1024);
            final long seq = s.catchUp.next(entry, i);
            if (seq < 0) {
                entry.release();
                s.catchUp.close();
                if (s.endOfDayPending) {
                    s.endOfDayPending = false;
                    s.channel.write(ControlFrames.endOfDay(alloc, s.endOfDayEpochDay, s.endOfDaySequence), s.channel.voidPromise());
                    s.catchUp = journal.readerAfter(s.lastSequence);
                    continue;
                }
                s.catchUp = null;
                s.live = true;
                s.lastSequence = i;
                if (s.fromJournal) {
                    // served from the journal while slow: back to live updates, nothing to announce
                    s.fromJournal = false;
                    s.channel.flush();
                    LOG.info("subscriber live again after the journal [id={}, name={}, sequence={}]", s.id, s.name, i);
                    return;
                }
                s.channel.writeAndFlush(ControlFrames.catchUpDone(alloc, i));
                return;
            }
            decoder.wrap(entry, 0);
            final int t = schemas.indexOf(entry, decoder.tableNameOffset(), decoder.tableNameLength());
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
            policy.written(s);
        }
    }

    /** {@code .u.del}: a connection closed, forget its subscriptions. */
    void remove(final Channel channel) {
        for (int k = subscribers.size() - 1; k >= 0; k--) {
            final Subscriber s = subscribers.get(k);
            if (s.channel == channel) {
                s.closeCatchUp();
                s.dropPending();
                subscribers.remove(k);
                counters.subscriberGone();
                LOG.info("subscriber gone [id={}, name={}, updatesSent={}]", s.id, s.name, s.updatesSent);
            }
        }
        counters.subscribers(subscribers.size());
    }

    /** Sends a heartbeat to every live subscriber whose socket can take it; ends alert episodes that are over. */
    void heartbeat(final long epochNanos) {
        writePending();
        for (int k = 0; k < subscribers.size(); k++) {
            final Subscriber s = subscribers.get(k);
            policy.clearAlert(s);
            if (s.live && !s.closing && !s.kdb && s.channel.isWritable()) {
                s.channel.writeAndFlush(ControlFrames.heartbeat(alloc, epochNanos), s.channel.voidPromise());
            }
        }
    }

    /**
     * {@code .u.end}: sends END_OF_DAY to every live subscriber. One still catching up goes on reading
     * the ended day's journal (read-only, from {@code journalRoot}) at its socket's pace and gets
     * END_OF_DAY when it has read it all; one that is still behind on an earlier day is disconnected as slow.
     */
    void endOfDay(final LocalDate ended, final long i, final long j, final java.nio.file.Path journalRoot) {
        writePending();
        boolean catchingUp = false;
        for (int k = 0; k < subscribers.size(); k++) {
            final Subscriber s = subscribers.get(k);
            if (s.catchUp == null || s.closing) {
                continue;
            }
            if (s.endOfDayPending) {
                policy.disconnect(s, "subscriber more than a day behind at end of day [day=" + ended + ", lastSequence=" + s.lastSequence
                    + "]");
                continue;
            }
            s.catchUp.close();
            s.catchUp = JournalReader.open(journalRoot, ended, s.lastSequence);
            s.endOfDayPending = true;
            s.endOfDayEpochDay = (int) ended.toEpochDay();
            s.endOfDaySequence = j;
            catchingUp = true;
        }
        final Set<Channel> toldKdb = new HashSet<>();
        for (int k = 0; k < subscribers.size(); k++) {
            final Subscriber s = subscribers.get(k);
            if (s.kdb && !s.closing && toldKdb.add(s.channel)) {
                // u.q's .u.end: once per connection, whatever it subscribed to
                s.channel.writeAndFlush(KdbWriter.endOfDay(alloc, ended), s.channel.voidPromise());
            } else if (!s.kdb && !s.closing && !s.endOfDayPending) {
                s.channel.write(ControlFrames.endOfDay(alloc, (int) ended.toEpochDay(), j), s.channel.voidPromise());
                s.channel.flush();
            }
        }
        if (catchingUp) {
            catchUpScheduler.run();
        }
        for (int k = 0; k < dirtyCount; k++) {
            dirty[k].dirty = false;
            dirty[k] = null;
        }
        dirtyCount = 0;
    }

    /** Bytes queued for all subscribers' sockets. */
    long backlogBytes() {
        long sum = 0;
        for (int k = 0; k < subscribers.size(); k++) {
            sum += subscribers.get(k).backlogBytes();
        }
        return sum;
    }

    int size() {
        return subscribers.size();
    }

    /** Slow-subscriber alerts so far. */
    long alerts() {
        return counters.subscriberAlerts();
    }

    List<TickerplantStatus.SubscriberStatus> statuses(final long i) {
        final List<TickerplantStatus.SubscriberStatus> out = new ArrayList<>();
        for (final Subscriber s : subscribers) {
            final List<String> names = new ArrayList<>();
            for (int t = 0; t < s.tables.length; t++) {
                if (s.tables[t]) {
                    names.add(schemas.get(t).name());
                }
            }
            out.add(new TickerplantStatus.SubscriberStatus(s.id, s.name, Transport.remote(s.channel), names,
                s.filter == null ? List.of() : s.filter.symList(), s.state(), s.backlogBytes(), s.updatesSent,
                s.live ? i : s.lastSequence, s.alert));
        }
        return out;
    }

    /** Writes the pending run of every subscriber written since the last flush (before a message that must follow them). */
    private void writePending() {
        for (int k = 0; k < dirtyCount; k++) {
            dirty[k].writePending();
        }
    }

    /** Closes the journal readers of unfinished catch-ups and drops pending runs (the tickerplant is closing). */
    void close() {
        for (final Subscriber s : subscribers) {
            s.closeCatchUp();
            s.dropPending();
        }
    }
}
