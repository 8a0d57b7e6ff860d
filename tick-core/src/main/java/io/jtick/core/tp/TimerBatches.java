package io.jtick.core.tp;

import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.table.SymbolTable;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static io.jtick.core.wire.FrameDescriptor.SEQUENCE_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.TP_TIME_OFFSET;

/**
 * The timer modes' batches and the tick that empties them ({@code .z.ts}): each table's batch merged
 * into one update, in timer log+publish journalled first as one entry, then published.
 *
 * <p>Its state, owned by the tickerplant thread: {@code pending[t]}, table t's updates waiting for
 * the timer ({@link TimerBatch}), already journalled in timer publish, not yet in timer log+publish
 * (which a chained TP refuses, so an upstream update is always journalled when it arrives);
 * {@code refused}: whether the last tick refused a batch. The batches' encoder is reused scratch.
 */
final class TimerBatches {
    private static final Logger LOG = LoggerFactory.getLogger(TimerBatches.class);

    private final SchemaRegistry schemas;
    private final DayJournal journal;
    private final SubscriberRegistry u;
    private final FeedRegistry feeds;
    private final TickerplantCounters counters;
    private final UpdateEncoder encoder = new UpdateEncoder();
    private final TimerBatch[] pending;
    private boolean refused;

    TimerBatches(final SchemaRegistry schemas, final ByteBufAllocator alloc, final SymbolTable syms, final DayJournal journal,
                 final SubscriberRegistry u, final FeedRegistry feeds, final TickerplantCounters counters) {
        this.schemas = schemas;
        this.journal = journal;
        this.u = u;
        this.feeds = feeds;
        this.counters = counters;
        this.pending = new TimerBatch[schemas.size()];
        for (int t = 0; t < pending.length; t++) {
            pending[t] = new TimerBatch(alloc, schemas.get(t), syms);
        }
    }

    /** True when table {@code t}'s batch holds updates and would outgrow {@code maxFrameLength} with {@code length} bytes more. */
    boolean wouldOutgrow(final int t, final int length, final int maxFrameLength) {
        return pending[t].count() > 0 && pending[t].bytesWith(length) > maxFrameLength;
    }

    /**
     * Adds a validated frame of table {@code t} to its batch; {@code feed}: the numbered feed whose
     * number it carries and that waits for the tick to journal it (timer log+publish), or null.
     */
    void add(final int t, final UpdateSource from, final FeedRegistry.Feed feed, final ByteBuf frame, final int offset,
             final int length) {
        pending[t].add(from, feed, frame, offset, length);
        if (feed != null) {
            final long n = frame.getLongLE(offset + SEQUENCE_OFFSET);
            if (feed.pending++ == 0) {
                feed.pendingLo = n;
            }
            feed.pendingHi = n;
        }
    }

    /**
     * Journals (log+publish) and publishes what is pending at TP time {@code now}; true when there was
     * something. In timer log+publish each table's batch is journalled as one entry, all or nothing:
     * after a journal failure nothing more is journalled this tick, the refused batches are refused to
     * their senders ({@link #refused}), and only the tables journalled before it are published.
     */
    boolean publish(final PublishMode mode, final long now) {
        boolean any = false;
        boolean failed = false;
        for (int t = 0; t < pending.length; t++) {
            final TimerBatch batch = pending[t];
            if (batch.count() == 0) {
                continue;
            }
            any = true;
            if (mode == PublishMode.TIMER_LOG_PUBLISH) {
                for (int k = 0; k < batch.count(); k++) {
                    if (batch.feed(k) != null) {
                        batch.feed(k).pending--;
                    }
                }
                final ByteBuf merged = failed ? null : batch.merged(encoder);
                if (merged == null || !journalBatch(t, batch, merged, now)) {
                    refuse(batch, merged != null);
                    failed = true;
                    batch.clear();
                    continue;
                }
                publishBatch(t, merged);
            } else {
                final ByteBuf merged = batch.merged(encoder);
                merged.setLongLE(merged.readerIndex() + TP_TIME_OFFSET, now);
                publishBatch(t, merged);
            }
            batch.clear();
        }
        feeds.tickDone();
        refused = failed;
        return any;
    }

    /** True when the last {@link #publish} refused a batch after a journal failure ({@link DayJournal#failure} says why). */
    boolean refused() {
        return refused;
    }

    /**
     * Journals one batch, merged into one update ({@code merged}), as one entry, its feed trailer
     * holding every numbered feed's numbers in it (registered at the end of the tick,
     * {@link FeedRegistry#tickDone}); false when the journal refused it.
     */
    private boolean journalBatch(final int t, final TimerBatch batch, final ByteBuf merged, final long now) {
        if (!journal.append(merged, merged.readerIndex(), merged.readableBytes(), journal.sequence() + 1, now, batch.feedRuns())) {
            return false;
        }
        counters.journalled(t, batch.rows(), merged.readableBytes(), batch.count());
        for (int k = 0; k < batch.count(); k++) {
            if (batch.feed(k) != null) {
                feeds.tickJournalled(batch.feed(k), batch.sequence(k));
            }
        }
        return true;
    }

    /** Refuses every frame of {@code batch} to its sender; the batch was counted once by {@link DayJournal#append} if it was tried. */
    private void refuse(final TimerBatch batch, final boolean tried) {
        final int n = batch.count();
        counters.errors(ErrorCode.JOURNAL_FAILURE, tried ? n - 1 : n);
        LOG.error("timer tick refused updates after a journal failure [updates={}, journalSequence={}]", n, journal.sequence());
        for (int k = 0; k < n; k++) {
            final UpdateSource from = batch.source(k);
            if (from != null) {
                from.refuse(ErrorCode.JOURNAL_FAILURE, journal.failure());
            }
        }
    }

    /** Publishes a batch merged into one update (journalled, or in timer publish with the TP time set). */
    private void publishBatch(final int t, final ByteBuf merged) {
        final long p0 = System.nanoTime();
        u.publish(merged, merged.readerIndex(), merged.readableBytes(), t, schemas.get(t));
        counters.pub.record(System.nanoTime() - p0);
    }

    /** Releases every batch's buffers. */
    void release() {
        for (final TimerBatch b : pending) {
            b.release();
        }
    }
}
