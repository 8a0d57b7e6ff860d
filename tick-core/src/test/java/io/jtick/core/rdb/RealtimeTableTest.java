package io.jtick.core.rdb;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.UpdateDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
        final ColumnarTable view = table.snapshot();
        int row = 0;
        for (final RdbFrames.AllData d : batches) {
            for (int r = 0; r < d.time.length; r++, row++) {
                assertThat(view.time(row)).isEqualTo(d.time[r]);
                assertThat(view.symbol(row)).isEqualTo(d.sym[r]);
                assertThat(view.getDouble(2, row)).isEqualTo(d.f64[r]);
                assertThat(view.getFloat(3, row)).isEqualTo(d.f32[r]);
                assertThat(view.getLong(4, row)).isEqualTo(d.i64[r]);
                assertThat(view.getInt(5, row)).isEqualTo(d.i32[r]);
                assertThat(view.getShort(6, row)).isEqualTo(d.i16[r]);
                assertThat(view.getByte(7, row)).isEqualTo(d.b[r]);
                assertThat(view.getByte(8, row)).isEqualTo(d.flag[r]);
                assertThat(view.getByte(9, row)).isEqualTo(d.c[r]);
                assertThat(view.getLong(10, row)).isEqualTo(d.ts[r]);
            }
        }
        assertThat(view.rowCount()).isEqualTo(row);
        assertThatThrownBy(() -> view.getLong(0, view.rowCount())).isInstanceOf(IndexOutOfBoundsException.class);
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
        final ColumnarTable view = table.snapshot();
        final List<String> syms = new ArrayList<>();
        for (int r = 0; r < view.rowCount(); r++) {
            syms.add(view.symbol(r));
            assertThat(view.symId(r)).isEqualTo(symbols.find(view.symbol(r)));
        }
        assertThat(syms).containsExactly("IBM", "AAPL", "IBM", "AAPL", "MSFT", "IBM");
        assertThat(symbols.find("ZZZ")).isGreaterThanOrEqualTo(0);
        assertThat(rows(view.select(List.of("IBM"), Long.MIN_VALUE, Long.MAX_VALUE, 100))).containsExactly(0, 2, 5);
        assertThat(rows(view.select(List.of("ZZZ", "NOPE"), Long.MIN_VALUE, Long.MAX_VALUE, 100))).isEmpty();
    }

    @Test
    void shouldGrowPastInitialCapacityAndKeepOldViewsValid() {
        final RealtimeTable table = new RealtimeTable(TableSchema.trade(0), new SymbolCatalog(), 2);
        final ByteBuf buf = PooledByteBufAllocator.DEFAULT.heapBuffer();
        ColumnarTable early = null;
        int total = 0;
        try {
            for (int i = 0; i < 40; i++) {
                final int n = 1 + i % 7;
                final long[] time = new long[n];
                final String[] sym = new String[n];
                for (int r = 0; r < n; r++) {
                    time[r] = total + r;
                    sym[r] = "S" + ((total + r) % 3);
                }
                buf.clear();
                final int off = trade(buf, i + 1, time, sym, null);
                table.append(TableSchema.trade(0), RdbFrames.decode(buf, off));
                total += n;
                if (i == 3) {
                    early = table.snapshot();
                }
            }
        } finally {
            assertThat(buf.release()).isTrue();
        }
        assertThat(table.capacity()).isGreaterThanOrEqualTo(total);
        assertThat(Integer.bitCount(table.capacity())).isEqualTo(1);
        final ColumnarTable view = table.snapshot();
        assertThat(view.rowCount()).isEqualTo(total);
        for (int r = 0; r < total; r++) {
            assertThat(view.time(r)).isEqualTo(r);
            assertThat(view.symbol(r)).isEqualTo("S" + (r % 3));
            assertThat(view.getDouble(2, r)).isEqualTo(r * 0.5);
        }
        assertThat(early).isNotNull();
        assertThat(early.rowCount()).isEqualTo(1 + 2 + 3 + 4);
        assertThat(early.time(early.rowCount() - 1)).isEqualTo(early.rowCount() - 1);
        assertThat(rows(early.select(null, Long.MIN_VALUE, Long.MAX_VALUE, 1000))).hasSize(early.rowCount());
    }

    @Test
    void shouldSelectLikeBruteForceWithSortedAndUnsortedTime() {
        for (final boolean sorted : new boolean[] {true, false}) {
            final Random rnd = new Random(sorted ? 1 : 2);
            final SymbolCatalog symbols = new SymbolCatalog();
            final RealtimeTable table = new RealtimeTable(TableSchema.trade(0), symbols, 16);
            final List<Long> times = new ArrayList<>();
            final List<String> syms = new ArrayList<>();
            final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer();
            try {
                long t = 0;
                for (int batch = 0; batch < 60; batch++) {
                    final int n = 1 + rnd.nextInt(50);
                    final long[] time = new long[n];
                    final String[] sym = new String[n];
                    for (int r = 0; r < n; r++) {
                        t += rnd.nextInt(3);
                        time[r] = sorted ? t : rnd.nextInt(5000);
                        sym[r] = UNIVERSE[rnd.nextInt(UNIVERSE.length)];
                        times.add(time[r]);
                        syms.add(sym[r]);
                    }
                    buf.clear();
                    final int off = trade(buf, batch + 1, time, sym, null);
                    table.append(TableSchema.trade(0), RdbFrames.decode(buf, off));
                }
            } finally {
                assertThat(buf.release()).isTrue();
            }
            final ColumnarTable view = table.snapshot();
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
                final ColumnarTable.Selection sel = view.select(want, from, to, limit);
                assertThat(rows(sel)).as("sorted=%s syms=%s from=%d to=%d limit=%d", sorted, want, from, to, limit)
                    .containsExactlyElementsOf(expected);
                if (!want.isEmpty()) {
                    assertThat(sel.rowsScanned()).isLessThanOrEqualTo(matchingSymRows);
                } else {
                    assertThat(sel.rowsScanned()).isLessThanOrEqualTo(times.size());
                }
            }
        }
    }

    @Test
    void shouldVisitOnlyTheRowsOfTheQueriedSym() {
        final RealtimeTable table = new RealtimeTable(TableSchema.trade(0), new SymbolCatalog(), 16);
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
        final ColumnarTable.Selection sel = table.snapshot().select(Set.of("RARE"), Long.MIN_VALUE, Long.MAX_VALUE, 1000);
        assertThat(sel.rows()).hasSize(10);
        assertThat(sel.rowsScanned()).isEqualTo(10);
        final ColumnarTable.Selection window = table.snapshot().select(null, 100, 199, 1000);
        assertThat(window.rows()).hasSize(100);
        assertThat(window.rowsScanned()).isLessThanOrEqualTo(101); // binary search on a sorted time column
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
        final ColumnarTable view = table.snapshot();
        assertThat(view.rowCount()).isEqualTo(3);
        assertThat(view.time(2)).isEqualTo(5);
        assertThat(rows(view.select(List.of("A"), Long.MIN_VALUE, Long.MAX_VALUE, 10))).containsExactly(0, 2);
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
        final Thread reader = new Thread(() -> {
            try {
                while (!done.get() || views.get() == 0) {
                    final ColumnarTable view = table.snapshot();
                    final int n = view.rowCount();
                    for (int r = 0; r < n; r++) {
                        if (view.time(r) != r || view.getLong(3, r) != r || !view.symbol(r).equals("S" + (r % 5))) {
                            throw new AssertionError("torn row [row=" + r + ", rows=" + n + "]");
                        }
                    }
                    final int[] s0 = view.select(List.of("S0"), Long.MIN_VALUE, Long.MAX_VALUE, 100_000).rows();
                    for (int i = 0; i < s0.length; i++) {
                        if (s0[i] != i * 5) {
                            throw new AssertionError("bad posting [i=" + i + ", row=" + s0[i] + ", rows=" + n + "]");
                        }
                    }
                    if (s0.length != (n + 4) / 5) {
                        throw new AssertionError("missing postings [found=" + s0.length + ", rows=" + n + "]");
                    }
                    views.incrementAndGet();
                }
            } catch (final Throwable t) {
                readerFailure.set(t);
            }
        }, "rdb-test-reader");
        reader.start();
        final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer();
        int total = 0;
        try {
            for (int i = 0; i < batches && readerFailure.get() == null; i++) {
                final int n = 1 + i % 5;
                final long[] time = new long[n];
                final String[] sym = new String[n];
                for (int r = 0; r < n; r++) {
                    time[r] = total + r;
                    sym[r] = "S" + ((total + r) % 5);
                }
                buf.clear();
                final int off = trade(buf, i + 1, time, sym, null);
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

    /** A trade frame with price = time * 0.5, size = time, cond = 'N'. */
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

    static List<Integer> rows(final ColumnarTable.Selection sel) {
        return Arrays.stream(sel.rows()).boxed().toList();
    }
}
