package io.jtick.core.rdb;

import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.MemorySource;
import io.jtick.core.table.TableSegment;
import io.jtick.core.testing.Cells;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.wire.UpdateDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntUnaryOperator;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(LeakCheck.class)
class RealtimeTableTest {
    private static final String[] UNIVERSE = {"AAPL", "MSFT", "IBM", "GOOG", "VOD.L", "X"};

    @Test
    void shouldAppendEveryTypeFromDirectBuffer() {
        appendAndCheck(() -> PooledByteBufAllocator.DEFAULT.directBuffer(256));
    }

    @Test
    void shouldAppendEveryTypeFromHeapBuffer() {
        appendAndCheck(() -> PooledByteBufAllocator.DEFAULT.heapBuffer(256));
    }

    private static void appendAndCheck(final Supplier<ByteBuf> alloc) {
        final Random rnd = new Random(7);
        final RealtimeTable table = new RealtimeTable(RdbFrames.ALL, new SymbolCatalog(), 8);
        final List<RdbFrames.AllData> batches = new ArrayList<>();
        final ByteBuf buf = alloc.get();
        try {
            buf.writeZero(24); // frames at an unaligned, non-zero offset
            for (int i = 0; i < 5; i++) {
                final RdbFrames.AllData data = new RdbFrames.AllData(rnd, 3 + rnd.nextInt(40), i * 1_000_000L, UNIVERSE);
                final int offset = data.write(buf, i + 1, null);
                assertThat(table.append(RdbFrames.ALL, RdbFrames.decode(buf, offset))).isEqualTo(data.time.length);
                batches.add(data);
            }
        } finally {
            assertThat(buf.release()).isTrue();
        }
        final TableSegment view = table.segment(0);
        final ColumnChunk[] c = columns(view);
        int row = 0;
        for (final RdbFrames.AllData d : batches) {
            for (int r = 0; r < d.time.length; r++, row++) {
                assertThat(c[0].longs()[c[0].offset() + row]).isEqualTo(d.time[r]);
                assertThat(view.symName(c[1].ints()[c[1].offset() + row])).isEqualTo(d.sym[r]);
                assertThat(c[2].doubles()[c[2].offset() + row]).isEqualTo(d.f64[r]);
                assertThat(c[3].floats()[c[3].offset() + row]).isEqualTo(d.f32[r]);
                assertThat(c[4].longs()[c[4].offset() + row]).isEqualTo(d.i64[r]);
                assertThat(c[5].ints()[c[5].offset() + row]).isEqualTo(d.i32[r]);
                assertThat(c[6].shorts()[c[6].offset() + row]).isEqualTo(d.i16[r]);
                assertThat(c[7].bytes()[c[7].offset() + row]).isEqualTo(d.b[r]);
                assertThat(c[8].bytes()[c[8].offset() + row]).isEqualTo(d.flag[r]);
                assertThat(c[9].bytes()[c[9].offset() + row]).isEqualTo(d.c[r]);
                assertThat(c[10].longs()[c[10].offset() + row]).isEqualTo(d.ts[r]);
            }
        }
        assertThat(view.rowCount()).isEqualTo(row);
        assertThatThrownBy(() -> view.read(0, view.rowCount(), 1, new ColumnChunk())).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void shouldRemapSymsAcrossBatchesWithDifferentDictionaries() {
        final SymbolCatalog symbols = new SymbolCatalog();
        final RealtimeTable table = new RealtimeTable(TableSchema.trade(0), symbols, 4);
        final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer();
        try {
            final long[] time = {1, 2, 3};
            final int a = trade(buf, 1, time, new String[] {"IBM", "AAPL", "IBM"}, new String[] {"IBM", "AAPL"});
            table.append(TableSchema.trade(0), RdbFrames.decode(buf, a));
            // same syms, reversed codes, plus an unused and a new symbol
            final int b = trade(buf, 2, time, new String[] {"AAPL", "MSFT", "IBM"}, new String[] {"ZZZ", "AAPL", "IBM", "MSFT"});
            table.append(TableSchema.trade(0), RdbFrames.decode(buf, b));
        } finally {
            assertThat(buf.release()).isTrue();
        }
        final TableSegment view = table.segment(0);
        final List<String> syms = new ArrayList<>();
        for (int r = 0; r < view.rowCount(); r++) {
            syms.add(Cells.sym(view, r));
            assertThat((int) Cells.number(view, TableSchema.SYM, r)).isEqualTo(symbols.find(Cells.sym(view, r)));
        }
        assertThat(syms).containsExactly("IBM", "AAPL", "IBM", "AAPL", "MSFT", "IBM");
        assertThat(symbols.find("ZZZ")).isGreaterThanOrEqualTo(0);
        assertThat(Cells.symRows(view, "IBM")).containsExactly(0, 2, 5);
        assertThat(Cells.symRows(view, "ZZZ")).isEmpty();
        assertThat(Cells.symRows(view, "NOPE")).isEmpty();
    }

    @Test
    void shouldGrowPastInitialCapacityAndKeepOldViewsValid() {
        final RealtimeTable table = new RealtimeTable(TableSchema.trade(0), new SymbolCatalog(), 2);
        final ByteBuf buf = PooledByteBufAllocator.DEFAULT.heapBuffer();
        TableSegment early = null;
        int total = 0;
        try {
            for (int i = 0; i < 40; i++) {
                final int n = 1 + i % 7;
                final int off = numberedTrade(buf, i + 1, total, n, row -> row % 3);
                table.append(TableSchema.trade(0), RdbFrames.decode(buf, off));
                total += n;
                if (i == 3) {
                    early = table.segment(0);
                }
            }
        } finally {
            assertThat(buf.release()).isTrue();
        }
        assertThat(table.capacity()).isGreaterThanOrEqualTo(total);
        assertThat(Integer.bitCount(table.capacity())).isEqualTo(1);
        final TableSegment view = table.segment(0);
        assertThat(view.rowCount()).isEqualTo(total);
        for (int r = 0; r < total; r++) {
            assertThat(Cells.time(view, r)).isEqualTo(r);
            assertThat(Cells.sym(view, r)).isEqualTo("S" + (r % 3));
            assertThat(Cells.number(view, 2, r)).isEqualTo(r * 0.5);
        }
        assertThat(early).isNotNull();
        assertThat(early.rowCount()).isEqualTo(1 + 2 + 3 + 4);
        assertThat(Cells.time(early, early.rowCount() - 1)).isEqualTo(early.rowCount() - 1);
        assertThat(select(early, List.of(), null, 1000).rows()).hasSize(early.rowCount());
    }

    @Test
    void shouldSelectLikeBruteForceWithSortedAndUnsortedTimeWithAndWithoutTheSymIndex() {
        for (int variant = 0; variant < 4; variant++) {
            final boolean sorted = variant % 2 == 0;
            final boolean indexed = variant < 2;
            final Random rnd = new Random(variant + 1);
            final SymbolCatalog symbols = new SymbolCatalog();
            final RealtimeTable table = new RealtimeTable(TableSchema.trade(0), symbols, 16, indexed);
            final List<Long> times = new ArrayList<>();
            final List<String> syms = new ArrayList<>();
            final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer();
            try {
                long t = 0;
                for (int batch = 0; batch < 60; batch++) {
                    final int n = 1 + rnd.nextInt(50);
                    final long[] time = new long[n];
                    final String[] sym = new String[n];
                    final long[] rowNumber = new long[n];
                    for (int r = 0; r < n; r++) {
                        t += rnd.nextInt(3);
                        time[r] = sorted ? t : rnd.nextInt(5000);
                        sym[r] = UNIVERSE[rnd.nextInt(UNIVERSE.length)];
                        rowNumber[r] = times.size();
                        times.add(time[r]);
                        syms.add(sym[r]);
                    }
                    buf.clear();
                    final int off = numbered(buf, batch + 1, time, sym, rowNumber);
                    table.append(TableSchema.trade(0), RdbFrames.decode(buf, off));
                }
            } finally {
                assertThat(buf.release()).isTrue();
            }
            final TableSegment view = table.segment(0);
            final long maxTime = times.stream().mapToLong(Long::longValue).max().orElse(0);
            for (int q = 0; q < 300; q++) {
                final List<String> want = new ArrayList<>();
                if (q % 4 != 0) {
                    for (int k = rnd.nextInt(3); k >= 0; k--) {
                        want.add(rnd.nextInt(10) == 0 ? "NOPE" : UNIVERSE[rnd.nextInt(UNIVERSE.length)]);
                    }
                }
                long from = rnd.nextInt((int) maxTime + 10) - 5;
                long to = from + rnd.nextInt((int) maxTime / 2 + 1);
                if (q % 10 == 0) {
                    from = Long.MIN_VALUE;
                    to = Long.MAX_VALUE;
                }
                final int limit = q % 3 == 0 ? 1 + rnd.nextInt(20) : 100_000;
                final List<Integer> expected = new ArrayList<>();
                int matchingSymRows = 0;
                for (int r = 0; r < times.size() && expected.size() < limit; r++) {
                    final boolean symOk = want.isEmpty() || want.contains(syms.get(r));
                    if (symOk && times.get(r) >= from && times.get(r) <= to) {
                        expected.add(r);
                    }
                }
                for (int r = 0; r < times.size(); r++) {
                    if (!want.isEmpty() && want.contains(syms.get(r))) {
                        matchingSymRows++;
                    }
                }
                final ResultTable sel = select(view, want, q % 10 == 0 ? null : new long[] {from, to}, limit);
                assertThat(rows(sel)).as("sorted=%s indexed=%s syms=%s from=%d to=%d limit=%d", sorted, indexed, want, from, to, limit)
                    .containsExactlyElementsOf(expected);
                if (!want.isEmpty()) {
                    assertThat(sel.stats().rowsScanned()).isLessThanOrEqualTo(matchingSymRows);
                } else {
                    assertThat(sel.stats().rowsScanned()).isLessThanOrEqualTo(times.size());
                }
            }
        }
    }

    @Test
    void shouldVisitOnlyTheRowsOfTheQueriedSym() {
        for (final boolean indexed : new boolean[] {true, false}) {
            visitOnlyTheRowsOfTheQueriedSym(new RealtimeTable(TableSchema.trade(0), new SymbolCatalog(), 16, indexed));
        }
    }

    private static void visitOnlyTheRowsOfTheQueriedSym(final RealtimeTable table) {
        final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer();
        try {
            final int n = 1000;
            final long[] time = new long[n];
            final String[] sym = new String[n];
            for (int r = 0; r < n; r++) {
                time[r] = r;
                sym[r] = r % 100 == 0 ? "RARE" : "BUSY";
            }
            final int off = trade(buf, 1, time, sym, null);
            table.append(TableSchema.trade(0), RdbFrames.decode(buf, off));
        } finally {
            assertThat(buf.release()).isTrue();
        }
        final ResultTable sel = select(table.segment(0), List.of("RARE"), null, 1000);
        assertThat(sel.rows()).hasSize(10);
        assertThat(sel.stats().rowsScanned()).isEqualTo(10);
        final ResultTable window = select(table.segment(0), List.of(), new long[] {100, 199}, 1000);
        assertThat(window.rows()).hasSize(100);
        assertThat(window.stats().rowsScanned()).isLessThanOrEqualTo(101); // binary search on a sorted time column
    }

    @Test
    void shouldRejectBadSymCodeWithoutPublishing() {
        final RealtimeTable table = new RealtimeTable(TableSchema.trade(0), new SymbolCatalog(), 16);
        final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer();
        try {
            final int good = trade(buf, 1, new long[] {1, 2}, new String[] {"A", "B"}, null);
            table.append(TableSchema.trade(0), RdbFrames.decode(buf, good));
            final int bad = trade(buf, 2, new long[] {3, 4}, new String[] {"A", "A"}, null);
            final UpdateDecoder dec = RdbFrames.decode(buf, bad);
            buf.setIntLE(dec.dataOffset(TableSchema.SYM) + 4, 9); // row 1 points past the dictionary
            assertThatThrownBy(() -> table.append(TableSchema.trade(0), dec))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sym code outside");
            assertThat(table.rowCount()).isEqualTo(2);
            final int next = trade(buf, 3, new long[] {5}, new String[] {"A"}, null);
            table.append(TableSchema.trade(0), RdbFrames.decode(buf, next));
        } finally {
            assertThat(buf.release()).isTrue();
        }
        final TableSegment view = table.segment(0);
        assertThat(view.rowCount()).isEqualTo(3);
        assertThat(Cells.time(view, 2)).isEqualTo(5);
        assertThat(Cells.symRows(view, "A")).containsExactly(0, 2);
    }

    @Test
    void shouldRejectBadSymCodeOfACachedDictionaryWithoutPublishing() {
        final RealtimeTable table = new RealtimeTable(TableSchema.trade(0), new SymbolCatalog(), 16);
        final String[] syms = {"A", "B", "C", "D"};
        final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer();
        try {
            for (int seq = 1; seq <= 2; seq++) { // the second maps through the cached dictionary, checked as it is copied
                table.append(TableSchema.trade(0), RdbFrames.decode(buf, trade(buf, seq, new long[] {seq, seq, seq, seq}, syms, null)));
            }
            assertThat(table.dictionaryHits()).isEqualTo(1);
            for (final int code : new int[] {4, 9, -1, Integer.MIN_VALUE}) {
                final int bad = trade(buf, 3, new long[] {3, 3, 3, 3}, syms, null);
                final UpdateDecoder dec = RdbFrames.decode(buf, bad);
                buf.setIntLE(dec.dataOffset(TableSchema.SYM) + 8, code); // row 2 points outside the dictionary
                assertThatThrownBy(() -> table.append(TableSchema.trade(0), dec))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("sym code outside").hasMessageContaining("row=2").hasMessageContaining("code=" + code);
                assertThat(table.rowCount()).isEqualTo(8);
            }
            table.append(TableSchema.trade(0), RdbFrames.decode(buf, trade(buf, 4, new long[] {4, 4, 4, 4}, syms, null)));
        } finally {
            assertThat(buf.release()).isTrue();
        }
        final TableSegment view = table.segment(0);
        assertThat(view.rowCount()).isEqualTo(12);
        assertThat(Cells.symRows(view, "C")).containsExactly(2, 6, 10);
        assertThat(Cells.symRows(view, "D")).containsExactly(3, 7, 11);
        assertThat(Cells.time(view, 11)).isEqualTo(4);
    }

    @Test
    void shouldRejectUpdateOfAnotherSchema() {
        final RealtimeTable table = new RealtimeTable(TableSchema.trade(0), new SymbolCatalog(), 16);
        final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer();
        try {
            final int off = RdbFrames.write(buf, TableSchema.quote(0), 1, 0, new long[] {1}, new String[] {"A"}, null,
                new double[] {1}, new double[] {2}, new long[] {3}, new long[] {4});
            assertThatThrownBy(() -> table.append(TableSchema.quote(0), RdbFrames.decode(buf, off)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[table=trade");
        } finally {
            assertThat(buf.release()).isTrue();
        }
        assertThat(table.rowCount()).isZero();
    }

    @Test
    void shouldGiveConcurrentReadersFullyWrittenRowsOnly() throws Exception {
        final RealtimeTable table = new RealtimeTable(TableSchema.trade(0), new SymbolCatalog(), 1);
        final int batches = 3000;
        final AtomicReference<Throwable> readerFailure = new AtomicReference<>();
        final AtomicBoolean done = new AtomicBoolean();
        final AtomicLong views = new AtomicLong();
        final Runnable read = () -> {
            try {
                while (!done.get() || views.get() == 0) {
                    final TableSegment view = table.segment(0);
                    final int n = view.rowCount();
                    final ColumnChunk[] c = columns(view);
                    // the rows checked by the first reader only; both check the postings (the index race)
                    final boolean rowsToo = Thread.currentThread().getName().endsWith("-1");
                    for (int r = 0; rowsToo && r < n; r++) {
                        if (c[0].longs()[c[0].offset() + r] != r || c[3].longs()[c[3].offset() + r] != r
                            || !view.symName(c[1].ints()[c[1].offset() + r]).equals("S" + (r % 5))) {
                            throw new AssertionError("torn row [row=" + r + ", rows=" + n + "]");
                        }
                    }
                    final List<Integer> s0 = Cells.symRows(view, "S0");
                    for (int i = 0; i < s0.size(); i++) {
                        if (s0.get(i) != i * 5) {
                            throw new AssertionError("bad posting [i=" + i + ", row=" + s0.get(i) + ", rows=" + n + "]");
                        }
                    }
                    if (s0.size() != (n + 4) / 5) {
                        throw new AssertionError("missing postings [found=" + s0.size() + ", rows=" + n + "]");
                    }
                    views.incrementAndGet();
                }
            } catch (final Throwable t) {
                readerFailure.set(t);
            }
        };
        // two readers: each one-sym query indexes the rows published since the last one, racing the other
        final Thread reader = new Thread(read, "rdb-test-reader-1");
        final Thread reader2 = new Thread(read, "rdb-test-reader-2");
        reader.start();
        reader2.start();
        final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer();
        int total = 0;
        try {
            for (int i = 0; i < batches && readerFailure.get() == null; i++) {
                final int n = 1 + i % 5;
                final int off = numberedTrade(buf, i + 1, total, n, row -> row % 5);
                table.append(TableSchema.trade(0), RdbFrames.decode(buf, off));
                total += n;
            }
        } finally {
            done.set(true);
            assertThat(buf.release()).isTrue();
        }
        reader.join(60_000);
        assertThat(reader.isAlive()).isFalse();
        assertThat(readerFailure.get()).isNull();
        assertThat(views.get()).isPositive();
        assertThat(table.rowCount()).isEqualTo(total);
    }

    @Test
    void shouldKeepRowsSymsAndTheIndexRightAcrossChunksAndReaders() throws Exception {
        final RealtimeTable table = new RealtimeTable(TableSchema.trade(0), new SymbolCatalog(), 1);
        final int total = ColumnStore.CHUNK_ROWS + 1_234;
        final String[] syms = new String[40];
        for (int i = 0; i < syms.length; i++) {
            syms[i] = "SYM" + i;
        }
        final AtomicReference<Throwable> readerFailure = new AtomicReference<>();
        final AtomicBoolean done = new AtomicBoolean();
        final AtomicLong views = new AtomicLong();
        final Runnable read = () -> {
            try {
                while (!done.get() || views.get() == 0) {
                    final TableSegment view = table.segment(0);
                    final int n = view.rowCount();
                    for (int r = Math.max(0, n - 3_000); r < n; r++) {
                        if (Cells.time(view, r) != r || !Cells.sym(view, r).equals(syms[r % syms.length])) {
                            throw new AssertionError("torn row [row=" + r + ", rows=" + n + "]");
                        }
                    }
                    final List<Integer> s3 = Cells.symRows(view, "SYM3");
                    if (s3.size() != (n + syms.length - 1 - 3) / syms.length) {
                        throw new AssertionError("postings [found=" + s3.size() + ", rows=" + n + "]");
                    }
                    for (int i = 0; i < s3.size(); i++) {
                        if (s3.get(i) != 3 + i * syms.length) {
                            throw new AssertionError("bad posting [i=" + i + ", row=" + s3.get(i) + ", rows=" + n + "]");
                        }
                    }
                    views.incrementAndGet();
                }
            } catch (final Throwable t) {
                readerFailure.set(t);
            }
        };
        // two readers: each one-sym query indexes the rows published since the last one, racing the other
        final Thread reader = new Thread(read, "rdb-test-reader-1");
        final Thread reader2 = new Thread(read, "rdb-test-reader-2");
        reader.start();
        reader2.start();
        final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer();
        int rows = 0;
        try {
            for (int i = 0; rows < total && readerFailure.get() == null; i++) {
                final int n = Math.min(total - rows, 1 + (i * 37) % 997);
                final long[] time = new long[n];
                final String[] sym = new String[n];
                for (int r = 0; r < n; r++) {
                    time[r] = rows + r;
                    sym[r] = syms[(rows + r) % syms.length];
                }
                buf.clear();
                table.append(TableSchema.trade(0), RdbFrames.decode(buf, trade(buf, i + 1, time, sym, null)));
                rows += n;
            }
        } finally {
            done.set(true);
            assertThat(buf.release()).isTrue();
        }
        reader.join(120_000);
        reader2.join(120_000);
        assertThat(reader.isAlive()).isFalse();
        assertThat(reader2.isAlive()).isFalse();
        assertThat(readerFailure.get()).isNull();
        assertThat(views.get()).isPositive();
        final TableSegment view = table.segment(0);
        assertThat(view.rowCount()).isEqualTo(total);
        for (int r = 0; r < total; r += 97) {
            assertThat(Cells.time(view, r)).isEqualTo(r);
            assertThat(Cells.number(view, 2, r)).isEqualTo(r * 0.5);
        }
        final List<Integer> s0 = Cells.symRows(view, "SYM0");
        assertThat(s0).hasSize((total + syms.length - 1) / syms.length);
        assertThat(s0.get(s0.size() - 1)).isEqualTo((total - 1) / syms.length * syms.length);
        assertThat(select(view, List.of("SYM7"), null, 1_000_000).rows()).hasSize(s0.size() - (total % syms.length > 7 ? 0 : 1));
    }

    @Test
    void shouldHoldTheRowBytesPlusTheIndexAndMapRepeatedDictionariesFromTheCache() {
        final RealtimeTable table = new RealtimeTable(TableSchema.trade(0), new SymbolCatalog(), 1024);
        final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer();
        final int n = 100;
        final String[] sym = new String[n];
        for (int r = 0; r < n; r++) {
            sym[r] = "S" + r;
        }
        final int batches = 3_000;
        try {
            final long[] time = new long[n];
            for (int r = 0; r < n; r++) {
                time[r] = r;
            }
            final UpdateDecoder update = RdbFrames.decode(buf, trade(buf, 1, time, sym, null));
            for (int b = 0; b < batches; b++) {
                table.append(TableSchema.trade(0), update.wrap(buf, 0)); // the same frame, so the same dictionary, each time
            }
        } finally {
            assertThat(buf.release()).isTrue();
        }
        final long rows = (long) n * batches;
        assertThat(table.rowCount()).isEqualTo((int) rows);
        assertThat(table.dictionaryMisses()).isEqualTo(1);
        assertThat(table.dictionaryHits()).isEqualTo(batches - 1);
        final long raw = rows * TableSchema.trade(0).rowWidth();
        final long columnBound = raw + (long) ColumnStore.CHUNK_ROWS * TableSchema.trade(0).rowWidth() + 64 * 1024;
        assertThat(table.memoryBytes()).as("no index before a one-sym query").isGreaterThanOrEqualTo(raw).isLessThan(columnBound);
        assertThat(Cells.symRows(table.segment(0), "S7")).hasSize(batches);
        // columns (one partly filled chunk each) + 4 bytes of index per row + each chunk's starts by sym id
        final long bound = raw + 4 * rows + (long) ColumnStore.CHUNK_ROWS * TableSchema.trade(0).rowWidth()
            + ColumnStore.chunksFor(rows) * (4L * (n + 1) + 128) + 64 * 1024;
        assertThat(table.memoryBytes()).isGreaterThanOrEqualTo(raw + 4 * rows).isLessThanOrEqualTo(bound);
        assertThat(Cells.symRows(table.segment(0), "S42")).hasSize(batches).startsWith(42, 142);
    }

    /** A trade frame with price = time * 0.5, size = time, cond = 'N'. */
    /**
     * Encodes rows {@code first..first+n-1} as trade update {@code seq} into {@code buf} (cleared first):
     * time is the row number, the sym {@code "S" + symOf(row)}; returns the frame's offset, as {@link #trade}.
     */
    static int numberedTrade(final ByteBuf buf, final long seq, final int first, final int n, final IntUnaryOperator symOf) {
        final long[] time = new long[n];
        final String[] sym = new String[n];
        for (int r = 0; r < n; r++) {
            time[r] = first + r;
            sym[r] = "S" + symOf.applyAsInt(first + r);
        }
        buf.clear();
        return trade(buf, seq, time, sym, null);
    }

    static int trade(final ByteBuf buf, final long seq, final long[] time, final String[] sym, final String[] dict) {
        final int n = time.length;
        final double[] price = new double[n];
        final long[] size = new long[n];
        final byte[] cond = new byte[n];
        for (int r = 0; r < n; r++) {
            price[r] = time[r] * 0.5;
            size[r] = time[r];
            cond[r] = 'N';
        }
        return RdbFrames.write(buf, TableSchema.trade(0), seq, 0, time, sym, dict, price, size, cond);
    }

    /** A trade frame whose size column holds the given row numbers (price = time * 0.5, cond = 'N'). */
    private static int numbered(final ByteBuf buf, final long seq, final long[] time, final String[] sym, final long[] rowNumber) {
        final int n = time.length;
        final double[] price = new double[n];
        final byte[] cond = new byte[n];
        for (int r = 0; r < n; r++) {
            price[r] = time[r] * 0.5;
            cond[r] = 'N';
        }
        return RdbFrames.write(buf, TableSchema.trade(0), seq, 0, time, sym, null, price, rowNumber, cond);
    }

    /** Every column of a segment read as one range (zero copy for the RDB). */
    private static ColumnChunk[] columns(final TableSegment view) {
        final ColumnChunk[] c = new ColumnChunk[view.schema().columnCount()];
        for (int i = 0; i < c.length; i++) {
            c[i] = new ColumnChunk();
            view.read(i, 0, view.rowCount(), c[i]);
        }
        return c;
    }

    /**
     * The engine's answer over one segment to "rows whose sym is one of {@code syms} (empty: any)
     * and whose time is within {@code within} (null: any), at most {@code limit}": the size column.
     */
    static ResultTable select(final TableSegment segment, final List<String> syms, final long[] within, final int limit) {
        final List<String> where = new ArrayList<>();
        if (!syms.isEmpty()) {
            where.add("\"sym\":{\"in\":[" + syms.stream().map(x -> "\"" + x + "\"").collect(Collectors.joining(",")) + "]}");
        }
        if (within != null) {
            where.add("\"time\":{\"within\":[" + within[0] + "," + within[1] + "]}");
        }
        return new QueryEngine().query("{\"table\":\"" + segment.schema().name() + "\",\"select\":[\"size\"],\"limit\":" + limit
            + (where.isEmpty() ? "" : ",\"where\":{" + String.join(",", where) + "}") + "}", new MemorySource().add(segment));
    }

    /** The row numbers of an answer of {@link #select} over rows written by {@link #numbered}. */
    static List<Integer> rows(final ResultTable sel) {
        return sel.rows().stream().map(r -> ((Number) r.get(0)).intValue()).toList();
    }
}
