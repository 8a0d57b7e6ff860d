package io.jtick.core.hdb.write;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.format.ColumnFile;
import io.jtick.core.hdb.format.PartitionTable;
import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.table.RowSink;
import io.jtick.core.table.TableSegment;
import io.jtick.core.testing.Cells;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.feed.SyntheticDay;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(LeakCheck.class)
public class PartitionWriterTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 20);

    @TempDir
    Path root;

    @Test
    void shouldWriteSortedPartitionHoldingEveryRowOnce() throws IOException {
        final MemorySegment trade = SyntheticDay.segment("trade", DAY, 20_000, 37, 1);
        final MemorySegment quote = SyntheticDay.segment("quote", DAY, 15_000, 41, 2);
        final PartitionWriter writer = new PartitionWriter(root, (t, c) -> "price".equals(c.name())
            ? ColumnEncoding.parse("xor+shuffle/zstd:3") : ColumnEncoding.parse("delta+shuffle/lz4"), 4096, 2,
                PartitionWriter.WriteHook.NONE);
        final PartitionWriter.Written w = writer.write(DAY, List.of(trade, quote));
        assertThat(w.directory()).isEqualTo(root.resolve("2026-11-20"));
        assertThat(w.tables()).extracting(PartitionWriter.TableWritten::rows).containsExactly(20_000, 15_000);
        try (Stream<Path> left = Files.list(root)) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactly("2026-11-20");
        }
        for (final MemorySegment source : List.of(trade, quote)) {
            try (PartitionTable t = PartitionTable.open(w.directory().resolve(source.schema().name()))) {
                assertThat(t.rowCount()).isEqualTo(source.rowCount());
                assertSortedBySymThenTime(t);
                assertThat(rowsAsStrings(t)).isEqualTo(rowsAsStrings(source));
                final String sym = t.syms().name(3);
                final List<Integer> fromDisk = Cells.symRows(t, sym);
                final List<Integer> fromSource = Cells.symRows(source, sym);
                assertThat(fromDisk).hasSize(fromSource.size());
                final List<int[]> handedOut = new ArrayList<>();
                t.symRows(t.symId(sym), new RowSink() {
                    @Override
                    public void range(final int from, final int to) {
                        handedOut.add(new int[] {from, to});
                    }

                    @Override
                    public void rows(final int[] rows, final int from, final int to) {
                        handedOut.add(java.util.Arrays.copyOfRange(rows, from, to));
                    }
                });
                assertThat(handedOut).as("one sym is one row range (p#): only its rows are visited")
                    .containsExactly(new int[] {t.syms().from(3), t.syms().from(3) + fromDisk.size()});
                assertThat(fromDisk.get(0)).isEqualTo(t.syms().from(3));
                t.verify();
            }
        }
        try (PartitionTable t = PartitionTable.open(w.directory().resolve("trade"))) {
            assertThat(t.column(t.schema().indexOf("price")).encoding().toString()).isEqualTo("xor+shuffle/zstd:3");
            assertThat(t.column(t.schema().indexOf("cond")).encoding().toString()).isEqualTo("lz4");
            assertThat(t.column(t.schema().indexOf("time")).encoding().toString()).isEqualTo("delta+shuffle/lz4");
        }
    }

    @Test
    void shouldEndEverySymAtABlockEndSoItsLastValueIsInTheIndex() throws IOException {
        final MemorySegment quote = SyntheticDay.segment("quote", DAY, 60_000, 29, 3);
        new PartitionWriter(root, EncodingPolicy.uniform(ColumnEncoding.parse("lz4")), 4096, 2, PartitionWriter.WriteHook.NONE)
            .write(DAY, List.of(quote));
        try (PartitionTable t = PartitionTable.open(root.resolve("2026-11-20/quote"))) {
            for (int c = 0; c < t.schema().columnCount(); c++) {
                final ColumnFile f = t.column(c);
                final java.util.Set<Integer> blockEnds = new java.util.HashSet<>();
                final java.util.Set<Integer> blockStarts = new java.util.HashSet<>();
                for (int b = 0; b < f.blockCount(); b++) {
                    assertThat(f.rowsIn(b)).isPositive().isLessThanOrEqualTo(f.blockRows());
                    blockStarts.add(f.firstRow(b));
                    blockEnds.add(f.firstRow(b) + f.rowsIn(b));
                }
                int multiBlock = 0;
                for (int k = 0; k < t.syms().count(); k++) {
                    assertThat(blockEnds).as("column %s sym %s ends a block", c, k).contains(t.syms().to(k));
                    final int rows = t.syms().to(k) - t.syms().from(k);
                    if (rows > f.blockRows()) {
                        multiBlock++;
                        assertThat(blockStarts).as("column %s sym %s of several blocks starts one", c, k).contains(t.syms().from(k));
                        final int b = f.blockOf(t.syms().to(k) - 1);
                        assertThat(f.rowsIn(b)).as("its blocks are of equal size, none a sliver").isGreaterThanOrEqualTo(f.blockRows() / 2);
                    }
                    final int last = t.syms().to(k) - 1;
                    final double fromIndex = switch (f.type()) {
                        case TIMESTAMP, INT64 -> f.getLong(last);
                        case FLOAT64 -> f.getDouble(last);
                        case SYMBOL, INT32 -> f.getInt(last);
                        case FLOAT32 -> f.getFloat(last);
                        case INT16 -> f.getShort(last);
                        default -> f.getByte(last);
                    };
                    assertThat(fromIndex).as("column %s sym %s last value from the index vs decoded", c, k)
                        .isEqualTo(Cells.number(t, c, last));
                }
                if (f.type().width() == 8) {
                    assertThat(multiBlock).as("the data has syms longer than a block").isPositive();
                }
            }
        }
    }

    @Test
    void shouldSortEachSymByTimeKeepingArrivalOrderAmongEqualTimes() throws IOException {
        final java.util.Random rnd = new java.util.Random(5);
        final MemorySegment.Builder b = MemorySegment.builder(TableSchema.trade(0), (int) DAY.toEpochDay());
        final String[] syms = {"C", "A", "B"};
        for (int r = 0; r < 5_000; r++) {
            // times out of order within each sym, with many ties; size is the arrival number
            b.row((long) rnd.nextInt(400), syms[rnd.nextInt(syms.length)], 1.5, (long) r, 'N');
        }
        final MemorySegment source = b.build();
        new PartitionWriter(root, EncodingPolicy.uniform(ColumnEncoding.parse("auto/lz4")), 4096, 2, PartitionWriter.WriteHook.NONE)
            .write(DAY, List.of(source));
        try (PartitionTable t = PartitionTable.open(root.resolve("2026-11-20/trade"))) {
            assertThat(t.syms().count()).isEqualTo(3);
            assertThat(t.syms().name(0)).isEqualTo("A");
            assertSortedBySymThenTime(t);
            assertThat(rowsAsStrings(t)).isEqualTo(rowsAsStrings(source));
            for (int r = 1; r < t.rowCount(); r++) {
                if (Cells.sym(t, r).equals(Cells.sym(t, r - 1)) && Cells.time(t, r) == Cells.time(t, r - 1)) {
                    assertThat(Cells.number(t, 3, r)).as("arrival order among equal times at row %s", r)
                        .isGreaterThan(Cells.number(t, 3, r - 1));
                }
            }
        }
    }

    @Test
    void shouldWriteEmptyAndOneRowTables() throws IOException {
        final MemorySegment empty = MemorySegment.builder(TableSchema.trade(0), (int) DAY.toEpochDay()).build();
        final MemorySegment one = SyntheticDay.segment("quote", DAY, 1, 1, 3);
        new PartitionWriter(root, EncodingPolicy.uniform(ColumnEncoding.parse("zstd"))).write(DAY, List.of(empty, one));
        try (PartitionTable t = PartitionTable.open(root.resolve("2026-11-20/trade"))) {
            assertThat(t.rowCount()).isZero();
            assertThat(t.syms().count()).isZero();
            assertThat(Cells.symRows(t, "S0000")).isEmpty();
        }
        try (PartitionTable t = PartitionTable.open(root.resolve("2026-11-20/quote"))) {
            assertThat(rowsAsStrings(t)).isEqualTo(rowsAsStrings(one));
        }
    }

    @Test
    void shouldLeaveNothingVisibleWhenWriteFailsMidway() throws IOException {
        final MemorySegment trade = SyntheticDay.segment("trade", DAY, 5_000, 10, 1);
        final AtomicInteger columns = new AtomicInteger();
        final PartitionWriter failing = new PartitionWriter(root, EncodingPolicy.PLAIN, 4096, 1, file -> {
            if (columns.incrementAndGet() == 3) {
                throw new IOException("disk full (injected)");
            }
        });
        assertThatThrownBy(() -> failing.write(DAY, List.of(trade))).hasMessageContaining("disk full (injected)");
        try (Stream<Path> left = Files.list(root)) {
            assertThat(left).as("no partition and no temporary directory left").isEmpty();
        }

        // a date already there: the failed rewrite leaves the old table in place and readable
        new PartitionWriter(root, EncodingPolicy.PLAIN).write(DAY, List.of(trade));
        columns.set(0);
        final MemorySegment other = SyntheticDay.segment("trade", DAY, 7_000, 10, 9);
        assertThatThrownBy(() -> failing.write(DAY, List.of(other))).hasMessageContaining("injected");
        try (PartitionTable t = PartitionTable.open(root.resolve("2026-11-20/trade"))) {
            assertThat(t.rowCount()).isEqualTo(5_000);
            t.verify();
        }
        try (Stream<Path> left = Files.list(root)) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactly("2026-11-20");
        }

        // and a successful rewrite of an existing date swaps the table
        new PartitionWriter(root, EncodingPolicy.PLAIN).write(DAY, List.of(other));
        try (PartitionTable t = PartitionTable.open(root.resolve("2026-11-20/trade"))) {
            assertThat(t.rowCount()).isEqualTo(7_000);
        }
        try (Stream<Path> left = Files.list(root.resolve("2026-11-20"))) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactly("trade");
        }
    }

    @Test
    void shouldLeaveNothingWhenAColumnFailsWhileTheNextTableIsBeingWritten() throws IOException {
        final MemorySegment trade = SyntheticDay.segment("trade", DAY, 20_000, 10, 1);
        final MemorySegment quote = SyntheticDay.segment("quote", DAY, 20_000, 10, 2);
        for (final int threads : new int[] {1, 2}) {
            for (final int failAt : new int[] {1, 3, 9}) {
                final AtomicInteger columns = new AtomicInteger();
                final PartitionWriter failing = new PartitionWriter(root, EncodingPolicy.PLAIN, 4096, threads, file -> {
                    if (columns.incrementAndGet() == failAt) {
                        throw new IOException("disk full (injected)");
                    }
                });
                assertThatThrownBy(() -> failing.write(DAY, List.of(trade, quote))).as("%d thread(s), failing column %d", threads, failAt)
                    .hasMessageContaining("disk full (injected)");
                try (Stream<Path> left = Files.list(root)) {
                    assertThat(left).as("nothing left, %d thread(s), failing column %d", threads, failAt).isEmpty();
                }
                if (threads == 1) {
                    assertThat(columns.get()).as("one thread stops at the failing column").isEqualTo(failAt);
                }
            }
        }
        // two threads without the failure write both tables, every file complete
        new PartitionWriter(root, EncodingPolicy.PLAIN, 4096, 2, PartitionWriter.WriteHook.NONE).write(DAY, List.of(trade, quote));
        for (final String name : new String[] {"trade", "quote"}) {
            try (PartitionTable t = PartitionTable.open(root.resolve("2026-11-20").resolve(name))) {
                assertThat(t.rowCount()).isEqualTo(20_000);
                t.verify();
            }
        }
    }

    @Test
    void shouldRecoverFromCrashBetweenSwapRenames() throws IOException {
        new PartitionWriter(root, EncodingPolicy.PLAIN).write(DAY, List.of(SyntheticDay.segment("trade", DAY, 100, 5, 1)));
        final Path dateDir = root.resolve("2026-11-20");
        // crash after "live → old" and before "new → live": only the old directory and a temp dir exist
        Files.move(dateDir.resolve("trade"), dateDir.resolve(".old-trade-1234abcd"));
        Files.createDirectories(root.resolve(".tmp-2026-11-20-1234abcd/trade"));
        final PartitionStore.Recovery r = PartitionStore.recover(root);
        assertThat(r.restored()).containsExactly(dateDir.resolve("trade"));
        assertThat(r.deleted()).containsExactly(root.resolve(".tmp-2026-11-20-1234abcd"));
        try (PartitionTable t = PartitionTable.open(dateDir.resolve("trade"))) {
            assertThat(t.rowCount()).isEqualTo(100);
        }
    }

    static void assertSortedBySymThenTime(final PartitionTable t) {
        for (int r = 1; r < t.rowCount(); r++) {
            final int c = Cells.sym(t, r - 1).compareTo(Cells.sym(t, r));
            assertThat(c).as("sym order at row %s", r).isLessThanOrEqualTo(0);
            if (c == 0) {
                assertThat(Cells.time(t, r)).as("time order at row %s", r).isGreaterThanOrEqualTo(Cells.time(t, r - 1));
            }
        }
        for (int k = 0; k < t.syms().count(); k++) {
            for (int r = t.syms().from(k); r < t.syms().to(k); r++) {
                assertThat(Cells.sym(t, r)).isEqualTo(t.syms().name(k));
            }
        }
    }

    /** Every row as a string of its cells, counted (a multiset). */
    public static Map<String, Integer> rowsAsStrings(final TableSegment t) {
        final Map<String, Integer> out = new HashMap<>();
        for (int r = 0; r < t.rowCount(); r++) {
            final List<Object> cells = new ArrayList<>();
            for (int c = 0; c < t.schema().columnCount(); c++) {
                cells.add(Cells.cell(t, c, r));
            }
            out.merge(cells.toString(), 1, Integer::sum);
        }
        return out;
    }
}
