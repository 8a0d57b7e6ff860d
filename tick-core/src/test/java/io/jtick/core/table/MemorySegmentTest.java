package io.jtick.core.table;

import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MemorySegmentTest {
    private static final TableSchema TRADE = TableSchema.trade(0); // time, sym, price, size, cond
    private static final int PRICE = 2;
    private static final int SIZE = 3;
    private static final int COND = 4;

    /** Rows in arrival order: B at 1 and 4, A at 2 and 5, C at 3. */
    private static MemorySegment.Builder arrivals() {
        return MemorySegment.builder(TRADE, 20_000)
            .row(1L, "B", 10.5, 100L, 'N')
            .row(2L, "A", 20.5, 200L, 'N')
            .row(3L, "C", 30.5, 300L, 'X')
            .row(4L, "B", 11.5, 110L, 'N')
            .row(5L, "A", 21.5, 210L, 'N');
    }

    @Test
    void shouldKeepRowsInArrivalOrderWithARowListPerSym() {
        final MemorySegment seg = arrivals().build();

        assertThat(seg.schema()).isSameAs(TRADE);
        assertThat(seg.epochDay()).isEqualTo(20_000);
        assertThat(seg.rowCount()).isEqualTo(5);
        assertThat(seg.timeSorted()).isTrue();
        assertThat(seg.symParted()).isFalse();
        assertThat(seg.symIdLimit()).isEqualTo(3);
        assertThat(seg.symId("B")).isZero();
        assertThat(seg.symId("A")).isEqualTo(1);
        assertThat(seg.symName(2)).isEqualTo("C");
        assertThat(seg.symId("Z")).isEqualTo(-1);

        assertThat(rowsOf(seg, seg.symId("A"))).containsExactly("rows 1,4");
        assertThat(rowsOf(seg, seg.symId("B"))).containsExactly("rows 0,3");
        assertThat(longs(seg, SIZE, 0, 5)).containsExactly(100, 200, 300, 110, 210);
    }

    @Test
    void shouldSortAPartedSegmentBySymNameThenTimeWithOneRangePerSym() {
        final MemorySegment seg = MemorySegment.builder(TRADE, 20_000)
            .row(5L, "B", 1.0, 1L, 'N')
            .row(2L, "A", 2.0, 2L, 'N')
            .row(3L, "C", 3.0, 3L, 'N')
            .row(1L, "B", 4.0, 4L, 'N')
            .row(4L, "A", 5.0, 5L, 'N')
            .buildParted();

        assertThat(seg.symParted()).isTrue();
        assertThat(seg.timeSorted()).as("time restarts at each sym").isFalse();
        assertThat(longs(seg, TableSchema.TIME, 0, 5)).containsExactly(2, 4, 1, 5, 3);
        assertThat(longs(seg, SIZE, 0, 5)).containsExactly(2, 5, 4, 1, 3);
        assertThat(rowsOf(seg, seg.symId("A"))).containsExactly("range 0..2");
        assertThat(rowsOf(seg, seg.symId("B"))).containsExactly("range 2..4");
        assertThat(rowsOf(seg, seg.symId("C"))).containsExactly("range 4..5");
        // ids stay those of first arrival; only the rows moved
        final ColumnChunk sym = new ColumnChunk();
        seg.read(TableSchema.SYM, 0, 1, sym);
        assertThat(seg.symName(sym.ints()[sym.offset()])).isEqualTo("A");
        assertThat(seg.symId("B")).isZero();
    }

    @Test
    void shouldKeepEqualTimesOfASymInArrivalOrderWhenParted() {
        final MemorySegment seg = MemorySegment.builder(TRADE, 1)
            .row(7L, "A", 1.0, 1L, 'N')
            .row(7L, "A", 2.0, 2L, 'N')
            .row(7L, "A", 3.0, 3L, 'N')
            .buildParted();

        assertThat(longs(seg, SIZE, 0, 3)).containsExactly(1, 2, 3);
    }

    @Test
    void shouldSeeAnUnsortedTimeColumn() {
        final MemorySegment seg = MemorySegment.builder(TRADE, 1)
            .row(2L, "A", 1.0, 1L, 'N')
            .row(1L, "A", 1.0, 1L, 'N')
            .build();

        assertThat(seg.timeSorted()).isFalse();
    }

    @Test
    void shouldReadARangeZeroCopyAndListedRowsByGathering() {
        final MemorySegment seg = arrivals().build();
        final ColumnChunk range = new ColumnChunk();
        final ColumnChunk listed = new ColumnChunk();

        seg.read(PRICE, 1, 3, range);
        seg.read(PRICE, new int[] {9, 4, 0, 2}, 1, 3, listed);

        assertThat(range.offset()).isEqualTo(1);
        assertThat(range.length()).isEqualTo(3);
        assertThat(range.doubles()[1]).isEqualTo(20.5);
        assertThat(range.doubles()[3]).isEqualTo(11.5);
        assertThat(listed.offset()).isZero();
        assertThat(listed.doubles()[0]).isEqualTo(21.5);
        assertThat(listed.doubles()[1]).isEqualTo(10.5);
        assertThat(listed.doubles()[2]).isEqualTo(30.5);
        seg.read(PRICE, 0, 5, range);
        assertThat(range.doubles()).as("reused view after a second read").hasSize(5);
    }

    @Test
    void shouldStoreCharsAndBoolsAsBytesAndSmallIntegersNarrowed() {
        final TableSchema all = TableSchema.of("all", new ColumnDef("c", ColumnType.CHAR), new ColumnDef("b", ColumnType.BOOL),
            new ColumnDef("i", ColumnType.INT32), new ColumnDef("h", ColumnType.INT16), new ColumnDef("x", ColumnType.BYTE),
            new ColumnDef("f", ColumnType.FLOAT32), new ColumnDef("e", ColumnType.FLOAT64));
        final MemorySegment seg = MemorySegment.builder(all, 0)
            .row(1L, "A", 'Q', true, 70_000, 300, 7, 1.5f, 3)
            .build();
        final ColumnChunk chunk = new ColumnChunk();

        seg.read(2, 0, 1, chunk);
        assertThat(chunk.bytes()[0]).isEqualTo((byte) 'Q');
        seg.read(3, 0, 1, chunk);
        assertThat(chunk.bytes()[0]).isEqualTo((byte) 1);
        seg.read(4, 0, 1, chunk);
        assertThat(chunk.ints()[0]).isEqualTo(70_000);
        seg.read(5, 0, 1, chunk);
        assertThat(chunk.shorts()[0]).isEqualTo((short) 300);
        seg.read(6, 0, 1, chunk);
        assertThat(chunk.bytes()[0]).isEqualTo((byte) 7);
        seg.read(7, 0, 1, chunk);
        assertThat(chunk.floats()[0]).isEqualTo(1.5f);
        seg.read(8, 0, 1, chunk);
        assertThat(chunk.doubles()[0]).as("an integer given for a float column is a float").isEqualTo(3.0);
    }

    @Test
    void shouldGrowPastItsFirstCapacity() {
        final MemorySegment.Builder b = MemorySegment.builder(TRADE, 0);
        for (int i = 0; i < 1_000; i++) {
            b.row((long) i, i % 2 == 0 ? "A" : "B", (double) i, (long) i, 'N');
        }
        assertThat(b.rowCount()).isEqualTo(1_000);
        final MemorySegment seg = b.build();

        assertThat(seg.rowCount()).isEqualTo(1_000);
        assertThat(longs(seg, SIZE, 998, 2)).containsExactly(998, 999);
        final int[] count = new int[1];
        seg.symRows(seg.symId("B"), new RowSink() {
            @Override
            public void range(final int from, final int to) {
                count[0] += to - from;
            }

            @Override
            public void rows(final int[] rows, final int from, final int to) {
                count[0] += to - from;
                assertThat(rows[from]).isEqualTo(1);
                assertThat(rows[to - 1]).isEqualTo(999);
            }
        });
        assertThat(count[0]).isEqualTo(500);
    }

    @Test
    void shouldGiveNothingForAnAbsentOrOutOfRangeSym() {
        final MemorySegment seg = arrivals().buildParted();

        assertThat(rowsOf(seg, -1)).isEmpty();
        assertThat(rowsOf(seg, 3)).isEmpty();
    }

    @Test
    void shouldBuildAnEmptySegment() {
        final MemorySegment seg = MemorySegment.builder(TRADE, 3).build();

        assertThat(seg.rowCount()).isZero();
        assertThat(seg.timeSorted()).isTrue();
        assertThat(seg.symIdLimit()).isZero();
        assertThat(MemorySegment.builder(TRADE, 3).buildParted().rowCount()).isZero();
    }

    @Test
    void shouldRejectAValueOfTheWrongKindForItsColumn() {
        assertThatThrownBy(() -> MemorySegment.builder(TRADE, 0).value(1L).value(2L))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("long value for a symbol column [column=sym]");
        assertThatThrownBy(() -> MemorySegment.builder(TRADE, 0).value(1.0))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("double value for a timestamp column [column=time]");
        assertThatThrownBy(() -> MemorySegment.builder(TRADE, 0).symbol("A"))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("symbol for a timestamp column [column=time]");
        assertThatThrownBy(() -> MemorySegment.builder(TRADE, 0).row(1L, "A", 1.0, 1L, List.of()))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("unsupported value [value=[]]");
    }

    @Test
    void shouldRejectARowWithTooFewOrTooManyValues() {
        assertThatThrownBy(() -> MemorySegment.builder(TRADE, 0).row(1L, "A", 1.0))
            .isInstanceOf(IllegalStateException.class)
            .hasMessage("row 0 has 3 values, expected 5 [table=trade]");
        assertThatThrownBy(() -> MemorySegment.builder(TRADE, 0).row(1L, "A", 1.0, 1L, 'N', 2L))
            .isInstanceOf(IllegalStateException.class)
            .hasMessage("too many values in row 0 [table=trade]");
    }

    @Test
    void shouldSearchTheFirstRowAtOrAfterATimeWithTheDefaultLowerBound() {
        final MemorySegment seg = MemorySegment.builder(TRADE, 0)
            .row(10L, "A", 1.0, 1L, 'N')
            .row(20L, "A", 1.0, 1L, 'N')
            .row(20L, "A", 1.0, 1L, 'N')
            .row(30L, "A", 1.0, 1L, 'N')
            .build();
        final ColumnChunk probe = new ColumnChunk();

        assertThat(seg.lowerBound(TableSchema.TIME, 0, 4, 5L, probe)).isZero();
        assertThat(seg.lowerBound(TableSchema.TIME, 0, 4, 10L, probe)).isZero();
        assertThat(seg.lowerBound(TableSchema.TIME, 0, 4, 11L, probe)).isEqualTo(1);
        assertThat(seg.lowerBound(TableSchema.TIME, 0, 4, 20L, probe)).isEqualTo(1);
        assertThat(seg.lowerBound(TableSchema.TIME, 0, 4, 30L, probe)).isEqualTo(3);
        assertThat(seg.lowerBound(TableSchema.TIME, 0, 4, 31L, probe)).as("none: to").isEqualTo(4);
        assertThat(seg.lowerBound(TableSchema.TIME, 2, 3, 5L, probe)).as("within the range only").isEqualTo(2);
        assertThat(seg.lowerBound(SIZE, 1, 1, 0L, probe)).as("an empty range").isEqualTo(1);
    }

    @Test
    void shouldTakeTheDefaultChunkRowsAndCloseQuietly() {
        final MemorySegment seg = arrivals().build();

        assertThat(seg.chunkRows()).isEqualTo(TableSegment.DEFAULT_CHUNK_ROWS).isEqualTo(16_384);
        seg.close();
        assertThat(longs(seg, SIZE, 0, 1)).as("still readable: closing an in-memory segment frees nothing").containsExactly(100);
    }

    private static List<String> rowsOf(final TableSegment seg, final int symId) {
        final List<String> out = new ArrayList<>();
        seg.symRows(symId, new RowSink() {
            @Override
            public void range(final int from, final int to) {
                out.add("range " + from + ".." + to);
            }

            @Override
            public void rows(final int[] rows, final int from, final int to) {
                final StringBuilder sb = new StringBuilder("rows ");
                for (int i = from; i < to; i++) {
                    sb.append(i > from ? "," : "").append(rows[i]);
                }
                out.add(sb.toString());
            }
        });
        return out;
    }

    private static long[] longs(final TableSegment seg, final int column, final int from, final int length) {
        final ColumnChunk chunk = new ColumnChunk();
        seg.read(column, from, length, chunk);
        final long[] out = new long[length];
        System.arraycopy(chunk.longs(), chunk.offset(), out, 0, length);
        return out;
    }
}
