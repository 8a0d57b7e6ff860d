package io.jtick.core.tp;

import io.jtick.core.journal.FeedRuns;
import io.jtick.core.journal.Journal;
import io.jtick.core.time.NanoClock;
import io.jtick.core.time.TradingCalendar;
import io.jtick.core.wire.ErrorCode;
import io.netty.buffer.ByteBuf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.LocalDate;

import static io.jtick.core.wire.FrameDescriptor.SEQUENCE_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.TP_TIME_OFFSET;

/**
 * The tickerplant's journal of the trading day: appends an update under its sequence, forces the
 * journal to disk ({@code tick.tp.journal.sync=batch}), and rolls it to the next day at end of day.
 *
 * <p>Its state, owned by the tickerplant thread:
 * <ul>
 *   <li>{@code journal}: today's journal ({@code .u.L}); {@code j}: the last journalled sequence
 *       ({@code .u.j}), published as the journalled-sequence gauge;</li>
 *   <li>{@code date}, {@code nextEndOfDay}: the trading day ({@code .u.d}) and the instant it ends;</li>
 *   <li>{@code failure}: why the last append or force failed, for the tickerplant to refuse with.</li>
 * </ul>
 * An append the journal refuses is counted and logged, and in cluster mode (a {@link ReplicatedLog})
 * reported as {@link ReplicatedLog#diverged}; there an entry the journal already holds (the log
 * replaying what this node journalled before a restart) is not written again. The rest is fixed at
 * construction: settings, the calendar, the journal opener and the tickerplant's clock (in cluster
 * mode a {@link LogClock}).
 */
final class DayJournal implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DayJournal.class);

    /** Pages touched at most per call: ~100 µs of page faults, 64 KB (3.2 MB/s at one call per 50 ms). */
    private static final int PRETOUCH_PAGES = 16;

    private final TickerplantSettings settings;
    private final TradingCalendar calendar;
    private final Journal.Opener opener;
    private final NanoClock clock;
    /** Cluster mode: the log to tell when this node's journal refuses an entry (null: a single tickerplant). */
    private final ReplicatedLog log;
    private final TickerplantCounters counters;

    private Journal journal;
    private long j;
    private LocalDate date;
    private long nextEndOfDay;
    private String failure;

    /**
     * Opens the journal of {@code date} (see {@link #startDate}), following the last sequence of the days
     * before, with the wall clock {@code wall}; the journals opened later get the tickerplant's {@code clock}.
     */
    DayJournal(final TickerplantSettings settings, final TradingCalendar calendar, final Journal.Opener opener,
               final NanoClock wall, final NanoClock clock, final ReplicatedLog log, final TickerplantCounters counters,
               final LocalDate date) {
        this.settings = settings;
        this.calendar = calendar;
        this.opener = opener;
        this.clock = clock;
        this.log = log;
        this.counters = counters;
        this.date = date;
        journal = opener.open(settings.journalDir(), date, Journal.lastSequenceBefore(settings.journalDir(), date), wall,
            settings.journalMinFreeBytes());
        j = journal.lastSequence();
        nextEndOfDay = calendar.endOfDayNanos(date);
    }

    /** The day a tickerplant starts on: today by the clock, or the latest day journalled under {@code dir} if later. */
    static LocalDate startDate(final Path dir, final TradingCalendar calendar, final long nowNanos) {
        final LocalDate today = calendar.dateOf(nowNanos);
        final LocalDate latest = Journal.days(dir).max(LocalDate::compareTo).orElse(today);
        return latest.isAfter(today) ? latest : today;
    }

    /**
     * Journals one frame as {@code sequence} (j+1, or its own from upstream), stamped in place with it
     * and the TP time {@code now}, with the trailer of the numbered feeds' updates it holds
     * ({@code feedRuns}, null: none); false, counted and logged ({@link #failure}), when the journal
     * refuses it (the frame's sequence field is then not to be trusted).
     */
    boolean append(final ByteBuf frame, final int offset, final int length, final long sequence, final long now,
                   final FeedRuns feedRuns) {
        frame.setLongLE(offset + SEQUENCE_OFFSET, sequence);
        frame.setLongLE(offset + TP_TIME_OFFSET, now);
        final long t0 = System.nanoTime();
        try {
            if (log == null || sequence > journal.lastSequence()) {
                journal.append(frame, offset, length, sequence, feedRuns);
            }
        } catch (final RuntimeException e) {
            counters.error(ErrorCode.JOURNAL_FAILURE);
            failure = "journal write failed, update refused [dir=" + journal.dir() + ", sequence=" + sequence
                + FeedRegistry.describe(feedRuns) + "]: " + e.getMessage();
            LOG.error(failure);
            if (log != null) {
                log.diverged(failure);
            }
            return false;
        }
        counters.log.record(System.nanoTime() - t0);
        j = sequence;
        counters.journalSequence(j);
        return true;
    }

    /**
     * Forces the journal to disk (timed and counted when there was something to force); false, counted
     * and logged ({@link #failure}), when that failed.
     */
    boolean force() {
        final long nanos;
        try {
            nanos = journal.sync();
        } catch (final RuntimeException e) {
            counters.error(ErrorCode.JOURNAL_FAILURE);
            failure = "journal cannot be forced to disk, acknowledgement withheld: " + e.getMessage();
            LOG.error(failure);
            return false;
        }
        if (nanos >= 0) {
            counters.journalSynced(nanos);
        }
        return true;
    }

    /** Why the last {@link #append} or {@link #force} failed. */
    String failure() {
        return failure;
    }

    /** End of day: closes the day's journal and opens the next trading day's (today's by the clock if later). */
    void roll() {
        journal.close();
        final LocalDate byClock = calendar.dateOf(clock.epochNanos());
        date = byClock.isAfter(date) ? byClock : date.plusDays(1);
        journal = opener.open(settings.journalDir(), date, j, clock, settings.journalMinFreeBytes());
        nextEndOfDay = calendar.endOfDayNanos(date);
    }

    /**
     * Cluster mode: the journal at a state of the log, day {@code day} journalled up to {@code sequence}:
     * that day's journal is opened if it is not the one open (entries it already holds, up to its last,
     * are then not written again as the log replays them). True when the day changed.
     */
    boolean restart(final LocalDate day, final long sequence) {
        final boolean changed = !day.equals(date);
        if (changed) {
            journal.close();
            date = day;
            journal = opener.open(settings.journalDir(), date, sequence, clock, settings.journalMinFreeBytes());
        }
        nextEndOfDay = calendar.endOfDayNanos(date);
        j = sequence;
        return changed;
    }

    /** Touches journal pages ahead of the next entry, at most {@link #PRETOUCH_PAGES}. */
    void pretouch() {
        journal.pretouch(PRETOUCH_PAGES);
    }

    /** The last journalled sequence ({@code .u.j}). */
    long sequence() {
        return j;
    }

    /** The day's journal itself, which subscribers' catch-ups read. */
    Journal current() {
        return journal;
    }

    /** The last sequence the journal holds (in cluster mode it may be ahead of {@link #sequence} while the log replays). */
    long lastSequence() {
        return journal.lastSequence();
    }

    Path dir() {
        return journal.dir();
    }

    LocalDate date() {
        return date;
    }

    long nextEndOfDay() {
        return nextEndOfDay;
    }

    @Override
    public void close() {
        journal.close();
    }
}
