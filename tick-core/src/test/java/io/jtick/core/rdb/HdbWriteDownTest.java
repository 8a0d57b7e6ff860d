package io.jtick.core.rdb;

import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.format.PartitionTable;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.journal.Journal;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.TableSegment;
import io.jtick.core.testing.Cells;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.time.NanoClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The RDB's end of day ({@code .Q.hdpf}) into real partitions, and its rebuild from a real journal ({@code -11!}). */
@ExtendWith(LeakCheck.class)
class HdbWriteDownTest {
    private static final TableSchema TRADE = TableSchema.trade(0);
    private static final LocalDate DAY = LocalDate.of(2026, 11, 20);
    private static final int EPOCH_DAY = (int) DAY.toEpochDay();
    private static final String[] SYMS = {"IBM", "AAPL", "MSFT", "VOD.L"};

    @TempDir
    Path dir;

    private final TickMetrics metrics = new TickMetrics();
    private final List<PartitionWriter.Written> heard = new ArrayList<>();
    private final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer();

    @AfterEach
    void release() {
        assertThat(buf.release()).isTrue();
    }

    private HdbWriteDown writeDown(final HdbWriteDown.Listener listener) {
        return new HdbWriteDown(new PartitionWriter(dir.resolve("hdb"), EncodingPolicy.PLAIN), listener, metrics);
    }

    /** Update {@code seq}: three rows, sizes {@code seq * 10 + row}, syms rotating. */
    private int frame(final long seq) {
        final long[] time = {seq * 100, seq * 100 + 1, seq * 100 + 2};
        final String[] sym = {SYMS[(int) (seq % 4)], SYMS[(int) ((seq + 1) % 4)], SYMS[(int) ((seq + 3) % 4)]};
        return RdbFrames.write(buf, TRADE, seq, 0, time, sym, null, new double[] {1.5, 2.5, 3.5},
            new long[] {seq * 10, seq * 10 + 1, seq * 10 + 2}, new byte[] {'N', 'N', 'N'});
    }

    private RealtimeTable day(final int updates) {
        final RealtimeTable table = new RealtimeTable(TRADE, new SymbolCatalog(), 4);
        for (long seq = 1; seq <= updates; seq++) {
            buf.clear();
            table.append(TRADE, RdbFrames.decode(buf, frame(seq)));
        }
        return table;
    }

    /** "sym/size" of every row, counted. */
    private static Map<String, Integer> rows(final TableSegment t) {
        final Map<String, Integer> out = new TreeMap<>();
        for (int r = 0; r < t.rowCount(); r++) {
            out.merge(Cells.sym(t, r) + "/" + (long) Cells.number(t, 3, r), 1, Integer::sum);
        }
        return out;
    }

    @Test
    void shouldWriteTheDaysTablesAsThePartitionThenTellTheListener() throws Exception {
        final RealtimeTable trade = day(50);
        final HdbWriteDown w = writeDown(heard::add);
        w.onEndOfDay(EPOCH_DAY, List.of(trade.segment(EPOCH_DAY)));

        assertThat(heard).hasSize(1);
        final PartitionWriter.Written written = heard.get(0);
        assertThat(w.last()).isSameAs(written);
        assertThat(w.lastError()).isNull();
        assertThat(written.date()).isEqualTo(DAY);
        assertThat(written.directory()).isEqualTo(dir.resolve("hdb/2026-11-20"));
        assertThat(written.tables()).extracting(PartitionWriter.TableWritten::rows).containsExactly(150);
        try (PartitionTable t = PartitionTable.open(written.directory().resolve("trade"))) {
            assertThat(rows(t)).isEqualTo(rows(trade.segment(EPOCH_DAY)));
            assertThat(t.syms().name(0)).isEqualTo("AAPL");
        }
        assertThat(metrics.latency("tick.rdb.eod.write", "").count()).isEqualTo(1);
        assertThat(metrics.counters().get("tick.rdb.eod.bytes").get()).isEqualTo(written.rawBytes()).isEqualTo(150L * TRADE.rowWidth());
    }

    @Test
    void shouldKeepAPartitionTheHdbDidNotTakeAndDeliverItLaterInOrder() throws Exception {
        final RealtimeTable trade = day(5);
        final java.util.concurrent.atomic.AtomicInteger refusals = new java.util.concurrent.atomic.AtomicInteger(3);
        final HdbWriteDown w = writeDown(written -> {
            if (refusals.getAndDecrement() > 0) {
                throw new IOException("HDB down");
            }
            heard.add(written);
        });
        w.onEndOfDay(EPOCH_DAY, List.of(trade.segment(EPOCH_DAY)));
        assertThat(w.lastError()).as("the day is saved: no exception, the RDB may clear its memory")
            .startsWith("partition written but the HDB was not told yet, retrying [date=2026-11-20").contains("HDB down");
        assertThat(w.undelivered()).containsExactly(DAY);
        w.onEndOfDay(EPOCH_DAY + 1, List.of(trade.segment(EPOCH_DAY + 1)));
        assertThat(w.undelivered()).containsExactly(DAY, DAY.plusDays(1));
        assertThat(heard).isEmpty();
        assertThat(metrics.counters().get("tick.rdb.eod.delivery.failures").get()).isEqualTo(2);

        assertThat(w.retryUndelivered()).as("third refusal").isEqualTo(2);
        assertThat(w.retryUndelivered()).isZero();
        assertThat(heard).extracting(PartitionWriter.Written::date).containsExactly(DAY, DAY.plusDays(1));
        assertThat(w.lastError()).isNull();
        assertThat(metrics.gauges().get("tick.rdb.eod.undelivered").getAsLong()).isZero();
    }

    @Test
    void shouldThrowAndSayWhyWhenTheWriteFails() throws Exception {
        final RealtimeTable trade = day(5);
        Files.createDirectories(dir.resolve("hdb"));
        Files.writeString(dir.resolve("hdb/2026-11-21"), "not a directory");
        final HdbWriteDown w = writeDown(heard::add);
        assertThatThrownBy(() -> w.onEndOfDay(EPOCH_DAY + 1, List.of(trade.segment(EPOCH_DAY + 1))))
            .isInstanceOf(IOException.class);
        assertThat(w.lastError()).startsWith("write failed [date=2026-11-21]");
        assertThat(heard).as("not told about a failed write").isEmpty();
        assertThat(w.undelivered()).isEmpty();
    }

    @Test
    void shouldRebuildADayFromTheJournalSkippingTablesItDoesNotHold() throws Exception {
        final Path journal = dir.resolve("journal");
        try (Journal j = Journal.open(journal, DAY, 0, NanoClock.SYSTEM)) {
            for (long seq = 1; seq <= 40; seq++) {
                buf.clear();
                final int off = seq == 7
                    ? RdbFrames.write(buf, TableSchema.of("fx"), seq, 0, new long[] {1}, new String[] {"EURUSD"}, null)
                    : frame(seq);
                j.append(buf, off, buf.writerIndex() - off, seq);
            }
        }
        final HdbWriteDown w = writeDown(heard::add);
        final PartitionWriter.Written written = w.replay(journal, DAY, new SchemaRegistry(List.of(TRADE)));
        assertThat(heard).containsExactly(written);
        assertThat(written.tables()).extracting(PartitionWriter.TableWritten::rows).containsExactly(39 * 3);
        final RealtimeTable expected = new RealtimeTable(TRADE, new SymbolCatalog(), 4);
        for (long seq = 1; seq <= 40; seq++) {
            if (seq != 7) {
                buf.clear();
                expected.append(TRADE, RdbFrames.decode(buf, frame(seq)));
            }
        }
        try (PartitionTable t = PartitionTable.open(written.directory().resolve("trade"))) {
            assertThat(rows(t)).isEqualTo(rows(expected.segment(EPOCH_DAY)));
        }
        assertThatThrownBy(() -> w.replay(journal, DAY.minusDays(1), new SchemaRegistry(List.of(TRADE))))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no journal for that day");
    }
}
