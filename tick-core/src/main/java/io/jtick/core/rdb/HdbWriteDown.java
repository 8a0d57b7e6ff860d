package io.jtick.core.rdb;

import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.journal.JournalReader;
import io.jtick.core.metrics.LatencyStats;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.TableSegment;
import io.jtick.core.wire.UpdateDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The RDB's end of day ({@code .u.end} → {@code .Q.hdpf}): writes the day's tables as the date's
 * partition with the hot tier's encodings (atomically, fsynced), then hands it to the HDB (the
 * {@link Listener}: a reload, or an upload). A failed write propagates: the RDB keeps the data and
 * reports it. Once the partition is on disk the day is saved, whether or not the HDB could be told:
 * a partition the listener could not deliver (the HDB down, killed in the middle of a reload or an
 * upload) is kept for {@link #retryUndelivered}, which the service calls until the HDB takes it, so
 * the RDB can clear its memory and no row ends up both in the RDB and in the HDB. A partition delivered
 * twice is harmless: a reload is idempotent and an upload replaces the date's tables.
 * {@link #replay} rebuilds a day's partition from the tickerplant journal (for a day the RDB missed or
 * failed to save).
 *
 * <p>State: {@code last} (the last partition written), {@code lastError} (why the last write or
 * delivery failed, null after a success), {@code undelivered} (written partitions the HDB has not
 * taken yet, oldest first; guarded by itself); deliveries run one at a time ({@code deliveryLock}).
 */
public final class HdbWriteDown implements EndOfDayHandler {
    private static final Logger LOG = LoggerFactory.getLogger(HdbWriteDown.class);

    private final PartitionWriter writer;
    private final Listener listener;
    private final LatencyStats writeLatency;
    private final AtomicLong rawBytes;
    private final AtomicLong deliveryFailures;
    private final java.util.ArrayDeque<PartitionWriter.Written> undelivered = new java.util.ArrayDeque<>();
    private final Object deliveryLock = new Object();
    private volatile PartitionWriter.Written last;
    private volatile String lastError;

    /** Told about each partition written; throwing fails the end of day. */
    @FunctionalInterface
    public interface Listener {
        Listener NONE = written -> {
        };

        void onWritten(PartitionWriter.Written written) throws Exception;
    }

    public HdbWriteDown(final PartitionWriter writer, final Listener listener, final TickMetrics metrics) {
        this.writer = writer;
        this.listener = listener;
        this.writeLatency = metrics.latency("tick.rdb.eod.write", "end-of-day partition write time");
        this.rawBytes = metrics.counter("tick.rdb.eod.bytes");
        this.deliveryFailures = metrics.counter("tick.rdb.eod.delivery.failures");
        metrics.gauge("tick.rdb.eod.undelivered", () -> undelivered().size());
        metrics.gauge("tick.rdb.eod.direct.fallbacks", io.jtick.core.hdb.write.DirectIo::fallbacks);
    }

    @Override
    public void onEndOfDay(final int epochDay, final List<TableSegment> tables) throws Exception {
        final LocalDate date = LocalDate.ofEpochDay(epochDay);
        final PartitionWriter.Written w;
        try {
            w = writer.write(date, tables);
        } catch (final Exception | Error e) {
            lastError = "write failed [date=" + date + "]: " + e;
            throw e;
        }
        last = w;
        writeLatency.record(w.nanos());
        rawBytes.addAndGet(w.rawBytes());
        LOG.info("end of day written [date={}, dir={}, rows={}, rawBytes={}, millis={}]", date, w.directory(),
            w.tables().stream().mapToLong(PartitionWriter.TableWritten::rows).sum(), w.rawBytes(), w.nanos() / 1_000_000);
        synchronized (undelivered) {
            undelivered.addLast(w);
        }
        retryUndelivered();
    }

    /**
     * Hands every undelivered partition, oldest first, to the listener; stops at the first failure
     * (counted, logged, in {@link #lastError}). Returns how many are still undelivered.
     */
    public int retryUndelivered() {
        synchronized (deliveryLock) {
            while (true) {
                final PartitionWriter.Written w;
                synchronized (undelivered) {
                    w = undelivered.peekFirst();
                }
                if (w == null) {
                    lastError = null;
                    return 0;
                }
                try {
                    listener.onWritten(w);
                } catch (final Exception | LinkageError e) {
                    deliveryFailures.incrementAndGet();
                    final String why = "partition written but the HDB was not told yet, retrying [date=" + w.date() + ", dir="
                        + w.directory() + "]: " + e;
                    if (!why.equals(lastError)) {
                        LOG.warn(why);
                    }
                    lastError = why;
                    return undelivered().size();
                }
                synchronized (undelivered) {
                    undelivered.pollFirst();
                }
            }
        }
    }

    /** A partition written earlier that the HDB may not have (found on disk at start); delivered by {@link #retryUndelivered}. */
    public void undelivered(final PartitionWriter.Written w) {
        synchronized (undelivered) {
            undelivered.addLast(w);
        }
    }

    /** Dates written and not yet delivered, oldest first. */
    public List<LocalDate> undelivered() {
        synchronized (undelivered) {
            return undelivered.stream().map(PartitionWriter.Written::date).toList();
        }
    }

    /** The last partition written (whether or not the HDB was then told), or null. */
    public PartitionWriter.Written last() {
        return last;
    }

    /** Why the last write or delivery to the HDB failed, or null when the last one worked. */
    public String lastError() {
        return lastError;
    }

    /**
     * Rebuilds partition {@code date} from the tickerplant journal under {@code journalRoot}
     * ({@code -11!} then {@code .Q.hdpf}): every journalled update of the day, in sequence order,
     * into fresh tables, then written and announced as at end of day. Updates of tables
     * {@code schemas} does not know are skipped and logged (an RDB may hold only some tables).
     */
    public PartitionWriter.Written replay(final Path journalRoot, final LocalDate date, final SchemaRegistry schemas) throws Exception {
        if (!Files.isDirectory(journalRoot.resolve(date.toString()))) {
            throw new IllegalArgumentException("no journal for that day [root=" + journalRoot + ", date=" + date + "]");
        }
        final SymbolCatalog symbols = new SymbolCatalog();
        final Map<String, RealtimeTable> tables = new LinkedHashMap<>();
        for (final TableSchema s : schemas.tables()) {
            tables.put(s.name(), new RealtimeTable(s, symbols));
        }
        final UpdateDecoder decoder = new UpdateDecoder();
        final ByteBuf buf = Unpooled.directBuffer(1 << 16);
        final Map<String, Long> skipped = new LinkedHashMap<>();
        try (JournalReader reader = JournalReader.open(journalRoot, date, 0)) {
            while (true) {
                buf.clear();
                if (reader.next(buf, Long.MAX_VALUE) < 0) {
                    break;
                }
                decoder.wrap(buf, 0);
                final String name = decoder.tableName();
                final RealtimeTable t = tables.get(name);
                if (t == null) {
                    skipped.merge(name, 1L, Long::sum);
                    continue;
                }
                t.append(t.schema(), decoder);
            }
        } finally {
            buf.release();
        }
        if (!skipped.isEmpty()) {
            LOG.warn("journal replay skipped updates of tables this RDB does not hold [date={}, updates={}]", date, skipped);
        }
        final List<TableSegment> views = new ArrayList<>();
        for (final RealtimeTable t : tables.values()) {
            views.add(t.segment((int) date.toEpochDay()));
        }
        onEndOfDay((int) date.toEpochDay(), views);
        return last;
    }
}
