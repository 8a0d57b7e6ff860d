package io.jtick.core.rdb;

import io.jtick.core.schema.ColumnType;
import io.jtick.core.table.ColumnChunk;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ColumnStoreTest {
    private static Object[] longChunks(final int chunks) {
        final Object[] c = new Object[chunks];
        for (int k = 0; k < chunks; k++) {
            final long[] values = new long[ColumnStore.CHUNK_ROWS];
            for (int i = 0; i < values.length; i++) {
                values[i] = (long) k * ColumnStore.CHUNK_ROWS + i;
            }
            c[k] = values;
        }
        return c;
    }

    @Test
    void shouldWrapAChunkInPlaceWhenTheRowsLieInIt() {
        final Object[] chunks = longChunks(2);
        final ColumnChunk chunk = new ColumnChunk();
        ColumnStore.read(ColumnType.INT64, chunks, ColumnStore.CHUNK_ROWS + 10, 100, chunk);
        assertThat(chunk.longs()).isSameAs(chunks[1]);
        assertThat(chunk.offset()).isEqualTo(10);
        assertThat(chunk.longs()[chunk.offset()]).isEqualTo(ColumnStore.CHUNK_ROWS + 10);
    }

    @Test
    void shouldCopyRowsThatStraddleChunks() {
        final Object[] chunks = longChunks(3);
        final ColumnChunk chunk = new ColumnChunk();
        final int from = ColumnStore.CHUNK_ROWS - 5;
        final int length = ColumnStore.CHUNK_ROWS + 20;
        ColumnStore.read(ColumnType.INT64, chunks, from, length, chunk);
        assertThat(chunk.offset()).isZero();
        for (int i = 0; i < length; i++) {
            assertThat(chunk.longs()[i]).isEqualTo(from + i);
        }
    }

    @Test
    void shouldGatherListedRowsFromAnyChunkInAnyOrder() {
        final Object[] chunks = longChunks(3);
        final int[] rows = {2 * ColumnStore.CHUNK_ROWS + 1, 7, ColumnStore.CHUNK_ROWS, ColumnStore.CHUNK_ROWS - 1};
        final ColumnChunk chunk = new ColumnChunk();
        ColumnStore.gather(ColumnType.TIMESTAMP, chunks, rows, 1, 3, chunk);
        assertThat(chunk.length()).isEqualTo(3);
        assertThat(new long[] {chunk.longs()[0], chunk.longs()[1], chunk.longs()[2]})
            .containsExactly(7, ColumnStore.CHUNK_ROWS, ColumnStore.CHUNK_ROWS - 1);
    }

    @Test
    void shouldCountChunksAndArrayBytes() {
        assertThat(ColumnStore.chunksFor(0)).isZero();
        assertThat(ColumnStore.chunksFor(1)).isEqualTo(1);
        assertThat(ColumnStore.chunksFor(ColumnStore.CHUNK_ROWS)).isEqualTo(1);
        assertThat(ColumnStore.chunksFor(ColumnStore.CHUNK_ROWS + 1L)).isEqualTo(2);
        assertThat(ColumnStore.arrayBytes(ColumnType.CHAR, 3)).isEqualTo(24);
        assertThat(ColumnStore.arrayBytes(ColumnType.FLOAT64, ColumnStore.CHUNK_ROWS)).isEqualTo(16 + 8L * ColumnStore.CHUNK_ROWS);
    }
}
