package io.jtick.core.table;

import io.jtick.core.schema.ColumnType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.reflect.Array;

import static org.assertj.core.api.Assertions.assertThat;

class ColumnChunkTest {
    @Test
    void shouldViewAWrappedArrayAtItsOffsetWithoutCopying() {
        final long[] column = {10, 11, 12, 13, 14};
        final ColumnChunk chunk = new ColumnChunk();

        assertThat(chunk.wrap(column, 2, 3)).isSameAs(chunk);

        assertThat(chunk.longs()).isSameAs(column);
        assertThat(chunk.offset()).isEqualTo(2);
        assertThat(chunk.length()).isEqualTo(3);
        assertThat(chunk.longs()[chunk.offset()]).isEqualTo(12);
    }

    @ParameterizedTest
    @EnumSource(ColumnType.class)
    void shouldWrapEachColumnTypeInTheArrayOfItsKind(final ColumnType type) {
        final Object column = type.newArray(4);
        final ColumnChunk chunk = new ColumnChunk().wrap(type, column, 1, 2);

        assertThat(arrayOf(chunk, type)).isSameAs(column);
        assertThat(chunk.offset()).isEqualTo(1);
        assertThat(chunk.length()).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(ColumnType.class)
    void shouldGatherListedRowsIntoItsOwnBufferAtOffsetZero(final ColumnType type) {
        final Object column = type.newArray(6);
        for (int i = 0; i < 6; i++) {
            set(column, i, 10 + i);
        }
        final int[] rows = {0, 5, 3, 1, 4};
        final ColumnChunk chunk = new ColumnChunk().gather(type, column, rows, 1, 3);

        final Object view = arrayOf(chunk, type);
        assertThat(view).isNotSameAs(column).isSameAs(chunk.buffer(type, 3));
        assertThat(chunk.offset()).isZero();
        assertThat(chunk.length()).isEqualTo(3);
        // rows[1..4) = 5, 3, 1, in the order listed (not sorted)
        assertThat(get(view, 0)).isEqualTo(15);
        assertThat(get(view, 1)).isEqualTo(13);
        assertThat(get(view, 2)).isEqualTo(11);
    }

    @Test
    void shouldReuseABufferThatIsLargeEnoughAndGrowOneThatIsNot() {
        final ColumnChunk chunk = new ColumnChunk();
        final long[] first = chunk.longBuffer(8);

        assertThat(first).hasSize(8);
        assertThat(chunk.longBuffer(4)).isSameAs(first);
        assertThat(chunk.longBuffer(8)).isSameAs(first);
        final long[] grown = chunk.longBuffer(9);
        assertThat(grown).isNotSameAs(first).hasSize(9);
        assertThat(chunk.longBuffer(2)).isSameAs(grown);

        assertThat(chunk.intBuffer(3)).isSameAs(chunk.intBuffer(1)).hasSize(3);
        assertThat(chunk.doubleBuffer(3)).isSameAs(chunk.doubleBuffer(3)).hasSize(3);
        assertThat(chunk.floatBuffer(3)).isSameAs(chunk.floatBuffer(2)).hasSize(3);
        assertThat(chunk.shortBuffer(3)).isSameAs(chunk.shortBuffer(2)).hasSize(3);
        assertThat(chunk.byteBuffer(3)).isSameAs(chunk.byteBuffer(2)).hasSize(3);
    }

    @Test
    void shouldKeepTheViewsOfOtherKindsWhenWrappingOneKind() {
        final long[] longs = {1};
        final double[] doubles = {2.0};
        final ColumnChunk chunk = new ColumnChunk().wrap(longs, 0, 1);

        chunk.wrap(doubles, 0, 1);

        assertThat(chunk.longs()).isSameAs(longs);
        assertThat(chunk.doubles()).isSameAs(doubles);
    }

    @Test
    void shouldLeaveTheAttachmentToTheSegment() {
        final ColumnChunk chunk = new ColumnChunk();
        assertThat(chunk.attachment).isNull();

        chunk.attachment = "block 7";
        chunk.wrap(new int[] {1, 2}, 0, 2);

        assertThat(chunk.attachment).isEqualTo("block 7");
    }

    private static Object arrayOf(final ColumnChunk chunk, final ColumnType type) {
        return switch (type) {
            case TIMESTAMP, INT64 -> chunk.longs();
            case FLOAT64 -> chunk.doubles();
            case SYMBOL, INT32 -> chunk.ints();
            case FLOAT32 -> chunk.floats();
            case INT16 -> chunk.shorts();
            default -> chunk.bytes();
        };
    }

    private static void set(final Object array, final int i, final int v) {
        if (array instanceof long[] a) {
            a[i] = v;
        } else if (array instanceof double[] a) {
            a[i] = v;
        } else if (array instanceof int[] a) {
            a[i] = v;
        } else if (array instanceof float[] a) {
            a[i] = v;
        } else if (array instanceof short[] a) {
            a[i] = (short) v;
        } else {
            ((byte[]) array)[i] = (byte) v;
        }
    }

    private static int get(final Object array, final int i) {
        return ((Number) Array.get(array, i)).intValue();
    }
}
