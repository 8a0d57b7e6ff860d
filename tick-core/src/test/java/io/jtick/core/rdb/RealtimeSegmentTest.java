package io.jtick.core.rdb;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.RowSink;
import io.jtick.core.table.TableSegment;
import io.jtick.core.testing.LeakCheck;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** An RDB table read through the engine's contract: zero-copy ranges, gathered rows, the sym index as ranges or lists. */
@ExtendWith(LeakCheck.class)
class RealtimeSegmentTest {
    private static final TableSchema TRADE = TableSchema.trade(0);

    /** Rows 0..5: A A A B C B (times 10, 11, ...), then the table keeps growing after the segment is taken. */
    private static TableSegment segment(final RealtimeTable table) {
        final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer();
        try {
            final String[] syms = {"A", "A", "A", "B", "C", "B"};
            final int off = RealtimeTableTest.trade(buf, 1, new long[] {10, 11, 12, 13, 14, 15}, syms, null);
            table.append(TRADE, RdbFrames.decode(buf, off));
            final TableSegment s = table.segment(20_000);
            buf.clear();
            table.append(TRADE, RdbFrames.decode(buf, RealtimeTableTest.trade(buf, 2, new long[] {16, 17}, new String[] {"A", "B"}, null)));
            return s;
        } finally {
            assertThat(buf.release()).isTrue();
        }
    }

    private static List<String> symRows(final TableSegment s, final String sym) {
        final List<String> calls = new ArrayList<>();
        s.symRows(s.symId(sym), new RowSink() {
            @Override
            public void range(final int from, final int to) {
                calls.add("range " + from + ".." + to);
            }

            @Override
            public void rows(final int[] rows, final int from, final int to) {
                calls.add("rows " + Arrays.toString(Arrays.copyOfRange(rows, from, to)));
            }
        });
        return calls;
    }

    @Test
    void shouldGiveTheSymIndexAsARangeForARunAndAsAListOtherwiseUpToItsOwnRows() {
        final TableSegment s = segment(new RealtimeTable(TRADE, new SymbolCatalog(), 2));
        assertThat(s.rowCount()).isEqualTo(6);
        assertThat(s.epochDay()).isEqualTo(20_000);
        assertThat(s.timeSorted()).isTrue();
        assertThat(s.symParted()).isFalse();
        assertThat(symRows(s, "A")).as("rows 0-2; row 6 came later").containsExactly("range 0..3");
        assertThat(symRows(s, "B")).as("row 7 came later").containsExactly("rows [3, 5]");
        assertThat(symRows(s, "C")).containsExactly("range 4..5");
        assertThat(s.symId("NOPE")).isEqualTo(-1);
    }

    @Test
    void shouldReadRangesInPlaceAndGatherListedRows() {
        final TableSegment s = segment(new RealtimeTable(TRADE, new SymbolCatalog(), 64));
        final ColumnChunk range = new ColumnChunk();
        s.read(TableSchema.TIME, 2, 3, range);
        assertThat(Arrays.copyOfRange(range.longs(), range.offset(), range.offset() + 3)).containsExactly(12, 13, 14);
        assertThat(range.offset()).as("the column array itself, at the row").isEqualTo(2);
        final ColumnChunk listed = new ColumnChunk();
        s.read(TRADE.indexOf("price"), new int[] {5, 0, 3}, 0, 3, listed);
        assertThat(listed.offset()).isZero();
        assertThat(Arrays.copyOf(listed.doubles(), 3)).containsExactly(7.5, 5.0, 6.5);
        assertThatThrownBy(() -> s.read(TableSchema.TIME, 4, 3, new ColumnChunk())).isInstanceOf(IndexOutOfBoundsException.class)
            .hasMessageContaining("rows=6");
    }

    @Test
    void shouldEndBatchesWhereAColumnChunkEndsSoThatEachRangeReadIsInPlace() {
        final TableSegment s = segment(new RealtimeTable(TRADE, new SymbolCatalog(), 64));
        final int chunk = ColumnStore.CHUNK_ROWS;
        assertThat(s.batchEnd(2, 6)).isEqualTo(6);
        assertThat(s.batchEnd(chunk - 10, 3 * chunk)).as("to the end of the first chunk").isEqualTo(chunk);
        assertThat(s.batchEnd(chunk, 3 * chunk)).isEqualTo(2 * chunk);
        assertThat(s.batchEnd(2 * chunk + 1, 2 * chunk + 5)).isEqualTo(2 * chunk + 5);
        assertThat(s.batchEnd(Integer.MAX_VALUE - 3, Integer.MAX_VALUE)).as("no overflow in the last chunk").isEqualTo(Integer.MAX_VALUE);
    }
}
