package io.jtick.core.hdb;

import io.jtick.core.journal.Journal;
import io.jtick.core.journal.JournalReader;
import io.jtick.core.metrics.LatencyStats;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.rdb.ColumnarTable;
import io.jtick.core.rdb.EndOfDayHandler;
import io.jtick.core.rdb.RealtimeTable;
import io.jtick.core.rdb.SymbolCatalog;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.util.NanoClock;
import io.jtick.core.wire.UpdateDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
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
    public void onEndOfDay(final int epochDay, final List<ColumnarTable> tables) throws Exception {
        final LocalDate date = LocalDate.ofEpochDay(epochDay);
        final PartitionWriter.Written w = writer.write(date, tables);
        writeLatency.record(w.nanos());
        rawBytes.addAndGet(w.rawBytes());
        LOG.info("end of day written [date={}, dir={}, rows={}, rawBytes={}, millis={}]", date, w.directory(),
            w.tables().stream().mapToLong(PartitionWriter.TableWritten::rows).sum(), w.rawBytes(), w.nanos() / 1_000_000);
        listener.onWritten(w);
        last = w;
    }

    /** The last partition written, or null. */
    public PartitionWriter.Written last() {
        return last;
    }

    /**
     * Rebuilds partition {@code date} from the tickerplant journal under {@code journalRoot}
     * ({@code -11!} then {@code .Q.hdpf}): every journalled update of the day, in sequence order,
     * into fresh tables, then written and announced as at end of day.
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
        try (Journal journal = Journal.open(journalRoot, date, 0, NanoClock.SYSTEM); JournalReader reader = journal.readerAfter(0)) {
            while (true) {
                buf.clear();
                if (reader.next(buf, Long.MAX_VALUE) < 0) {
                    break;
                }
                decoder.wrap(buf, 0);
                final String name = decoder.tableName();
                final RealtimeTable t = tables.get(name);
                if (t == null) {
                    throw new IOException("journal holds a table the schema does not know [table=" + name + ", date=" + date + "]");
                }
                t.append(t.schema(), decoder);
            }
        } finally {
            buf.release();
        }
        final List<ColumnarTable> views = new ArrayList<>();
        for (final RealtimeTable t : tables.values()) {
            views.add(t.snapshot());
        }
        onEndOfDay((int) date.toEpochDay(), views);
        return last;
    }
}
