package io.jtick.core.rdb;

import io.jtick.core.hdb.PartitionWriter;
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
 * partition with the hot tier's encodings, tells the HDB to load it, and only returns when both
 * worked, so the RDB clears its memory only then. Any failure propagates: the RDB keeps the data
 * and reports it. {@link #replay} rebuilds a day's partition from the tickerplant journal (for a
 * day the RDB missed or failed to save).
 */
public final class HdbWriteDown implements EndOfDayHandler {
    private static final Logger LOG = LoggerFactory.getLogger(HdbWriteDown.class);

    private final PartitionWriter writer;
    private final Listener listener;
    private final LatencyStats writeLatency;
    private final AtomicLong rawBytes;
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
        try {
            listener.onWritten(w);
        } catch (final Exception | Error e) {
            lastError = "partition written but the HDB was not told [date=" + date + "]: " + e;
            throw e;
        }
        lastError = null;
    }

    /** The last partition written (whether or not the HDB was then told), or null. */
    public PartitionWriter.Written last() {
        return last;
    }

    /** Why the last write-down failed (the write or the HDB notification), or null when it worked. */
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
