package io.jtick.core.hdb;

import io.jtick.core.rdb.ColumnarTable;
import io.jtick.core.rdb.JsonCells;
import io.jtick.core.rdb.RealtimeTable;
import io.jtick.core.rdb.SymbolCatalog;
import io.jtick.core.rdb.TableLoader;
import io.jtick.core.schema.TableSchema;
import org.junit.jupiter.api.Test;
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

class PartitionWriterTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 20);

    @TempDir
    Path root;

    @Test
    void shouldWriteSortedPartitionHoldingEveryRowOnce() throws IOException {
        final SymbolCatalog symbols = new SymbolCatalog();
        final RealtimeTable trade = TableLoader.syntheticDay("trade", DAY, 20_000, 37, 1, symbols);
        final RealtimeTable quote = TableLoader.syntheticDay("quote", DAY, 15_000, 41, 2, symbols);
        final PartitionWriter writer = new PartitionWriter(root, (t, c) -> "price".equals(c.name())
            ? ColumnEncoding.parse("xor+shuffle/zstd:3") : ColumnEncoding.parse("delta+shuffle/lz4"), 4096, 2,
                PartitionWriter.WriteHook.NONE);
        final PartitionWriter.Written w = writer.write(DAY, List.of(trade.snapshot(), quote.snapshot()));
        assertThat(w.directory()).isEqualTo(root.resolve("2026-11-20"));
        assertThat(w.tables()).extracting(PartitionWriter.TableWritten::rows).containsExactly(20_000, 15_000);
        try (Stream<Path> left = Files.list(root)) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactly("2026-11-20");
        }
        for (final RealtimeTable source : List.of(trade, quote)) {
            try (PartitionTable t = PartitionTable.open(w.directory().resolve(source.name()))) {
                assertThat(t.rowCount()).isEqualTo(source.rowCount());
                assertSortedBySymThenTime(t);
                assertThat(rowsAsStrings(t)).isEqualTo(rowsAsStrings(source.snapshot()));
                final String sym = t.syms().name(3);
                final ColumnarTable.Selection fromDisk = t.select(List.of(sym), Long.MIN_VALUE, Long.MAX_VALUE, 100_000);
                final ColumnarTable.Selection fromRdb = source.snapshot().select(List.of(sym), Long.MIN_VALUE, Long.MAX_VALUE, 100_000);
                assertThat(fromDisk.rows()).hasSize(fromRdb.rows().length);
                assertThat(fromDisk.rowsScanned()).isEqualTo(fromDisk.rows().length);
                assertThat(fromDisk.rows()[0]).isEqualTo(t.syms().from(3));
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
    void shouldWriteEmptyAndOneRowTables() throws IOException {
        final SymbolCatalog symbols = new SymbolCatalog();
        final RealtimeTable empty = new RealtimeTable(TableSchema.trade(0), symbols);
        final RealtimeTable one = TableLoader.syntheticDay("quote", DAY, 1, 1, 3, symbols);
        new PartitionWriter(root, EncodingPolicy.uniform(ColumnEncoding.parse("zstd"))).write(DAY, List.of(empty.snapshot(),
            one.snapshot()));
        try (PartitionTable t = PartitionTable.open(root.resolve("2026-11-20/trade"))) {
            assertThat(t.rowCount()).isZero();
            assertThat(t.syms().count()).isZero();
            assertThat(t.select(List.of("S0000"), Long.MIN_VALUE, Long.MAX_VALUE, 10).rows()).isEmpty();
        }
        try (PartitionTable t = PartitionTable.open(root.resolve("2026-11-20/quote"))) {
            assertThat(rowsAsStrings(t)).isEqualTo(rowsAsStrings(one.snapshot()));
        }
    }

    @Test
    void shouldLeaveNothingVisibleWhenWriteFailsMidway() throws IOException {
        final SymbolCatalog symbols = new SymbolCatalog();
        final RealtimeTable trade = TableLoader.syntheticDay("trade", DAY, 5_000, 10, 1, symbols);
        final AtomicInteger columns = new AtomicInteger();
        final PartitionWriter failing = new PartitionWriter(root, EncodingPolicy.PLAIN, 4096, 1, file -> {
            if (columns.incrementAndGet() == 3) {
                throw new IOException("disk full (injected)");
            }
        });
        assertThatThrownBy(() -> failing.write(DAY, List.of(trade.snapshot()))).hasMessageContaining("disk full (injected)");
        try (Stream<Path> left = Files.list(root)) {
            assertThat(left).as("no partition and no temporary directory left").isEmpty();
        }

        // a date already there: the failed rewrite leaves the old table in place and readable
        new PartitionWriter(root, EncodingPolicy.PLAIN).write(DAY, List.of(trade.snapshot()));
        columns.set(0);
        final RealtimeTable other = TableLoader.syntheticDay("trade", DAY, 7_000, 10, 9, symbols);
        assertThatThrownBy(() -> failing.write(DAY, List.of(other.snapshot()))).hasMessageContaining("injected");
        try (PartitionTable t = PartitionTable.open(root.resolve("2026-11-20/trade"))) {
            assertThat(t.rowCount()).isEqualTo(5_000);
            t.verify();
        }
        try (Stream<Path> left = Files.list(root)) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactly("2026-11-20");
        }

        // and a successful rewrite of an existing date swaps the table
        new PartitionWriter(root, EncodingPolicy.PLAIN).write(DAY, List.of(other.snapshot()));
        try (PartitionTable t = PartitionTable.open(root.resolve("2026-11-20/trade"))) {
            assertThat(t.rowCount()).isEqualTo(7_000);
        }
        try (Stream<Path> left = Files.list(root.resolve("2026-11-20"))) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactly("trade");
        }
    }

    @Test
    void shouldRecoverFromCrashBetweenSwapRenames() throws IOException {
        final SymbolCatalog symbols = new SymbolCatalog();
        new PartitionWriter(root, EncodingPolicy.PLAIN).write(DAY, List.of(TableLoader.syntheticDay("trade", DAY, 100, 5, 1, symbols)
            .snapshot()));
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
            final int c = t.symbol(r - 1).compareTo(t.symbol(r));
            assertThat(c).as("sym order at row %s", r).isLessThanOrEqualTo(0);
            if (c == 0) {
                assertThat(t.time(r)).as("time order at row %s", r).isGreaterThanOrEqualTo(t.time(r - 1));
            }
        }
        for (int k = 0; k < t.syms().count(); k++) {
            for (int r = t.syms().from(k); r < t.syms().to(k); r++) {
                assertThat(t.symbol(r)).isEqualTo(t.syms().name(k));
            }
        }
    }

    /** Every row as a string of its cells, counted (a multiset). */
    static Map<String, Integer> rowsAsStrings(final ColumnarTable t) {
        final Map<String, Integer> out = new HashMap<>();
        for (int r = 0; r < t.rowCount(); r++) {
            final List<Object> cells = new ArrayList<>();
            for (int c = 0; c < t.schema().columnCount(); c++) {
                cells.add(JsonCells.cell(t, c, r));
            }
            out.merge(cells.toString(), 1, Integer::sum);
        }
        return out;
    }
}
