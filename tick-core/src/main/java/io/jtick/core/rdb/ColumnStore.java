package io.jtick.core.rdb;

import io.jtick.core.schema.ColumnType;
import io.jtick.core.table.ColumnChunk;

/**
 * How an RDB table holds a column in memory: a list of primitive arrays ("chunks") of
 * {@link #CHUNK_ROWS} rows each, as {@link ColumnType#newArray} makes them; row {@code r} is
 * element {@code r & MASK} of chunk {@code r >>> SHIFT}. Growth adds a chunk and copies nothing,
 * so a table of n rows holds at most one partly filled chunk per column beyond its n rows, and
 * growing leaves no garbage behind. Only the first chunk may be shorter (a small table starts
 * small and doubles its first chunk until it is full size).
 *
 * <p>A chunk is 32,768 rows: 256 KB for an 8-byte column, under half of G1's smallest region,
 * so no chunk is a humongous object whose region tail is wasted; and a multiple of the query
 * engine's reads ({@link io.jtick.core.table.TableSegment#DEFAULT_CHUNK_ROWS} rows), so reads that
 * start aligned stay within one chunk and are zero copy. Reads that straddle two chunks are copied
 * into the reader's buffer.
 */
final class ColumnStore {
    static final int SHIFT = 15;
    /** Rows per full chunk. */
    static final int CHUNK_ROWS = 1 << SHIFT;
    static final int MASK = CHUNK_ROWS - 1;

    private ColumnStore() {
    }

    /** Chunks needed for {@code rows} rows. */
    static int chunksFor(final long rows) {
        return (int) ((rows + MASK) >>> SHIFT);
    }

    /** Heap bytes of a primitive array of {@code length} values of {@code type} (16-byte header, 8-byte alignment). */
    static long arrayBytes(final ColumnType type, final int length) {
        return (16L + (long) length * type.width() + 7) & ~7L;
    }

    /**
     * Rows {@code [from, from + length)} of a column into {@code chunk}: the chunk array itself at
     * the row when the rows lie in one chunk, else copied piece by piece into the chunk's buffer.
     */
    static void read(final ColumnType type, final Object[] chunks, final int from, final int length, final ColumnChunk chunk) {
        final int k = from >>> SHIFT;
        final int at = from & MASK;
        if (length == 0 || at + length <= CHUNK_ROWS) {
            chunk.wrap(type, chunks[length == 0 ? 0 : k], at, length);
            return;
        }
        final Object dst = chunk.buffer(type, length);
        int done = 0;
        int row = from;
        while (done < length) {
            final int off = row & MASK;
            final int n = Math.min(length - done, CHUNK_ROWS - off);
            System.arraycopy(chunks[row >>> SHIFT], off, dst, done, n);
            done += n;
            row += n;
        }
        chunk.wrap(type, dst, 0, length);
    }

    /** Values of the rows {@code rows[at..at+length)} (any order) of a column, gathered into {@code chunk}'s buffer. */
    static void gather(final ColumnType type, final Object[] chunks, final int[] rows, final int at, final int length,
                       final ColumnChunk chunk) {
        switch (type) {
            case TIMESTAMP:
            case INT64: {
                final long[] dst = chunk.longBuffer(length);
                for (int i = 0; i < length; i++) {
                    final int r = rows[at + i];
                    dst[i] = ((long[]) chunks[r >>> SHIFT])[r & MASK];
                }
                chunk.wrap(dst, 0, length);
                return;
            }
            case FLOAT64: {
                final double[] dst = chunk.doubleBuffer(length);
                for (int i = 0; i < length; i++) {
                    final int r = rows[at + i];
                    dst[i] = ((double[]) chunks[r >>> SHIFT])[r & MASK];
                }
                chunk.wrap(dst, 0, length);
                return;
            }
            case SYMBOL:
            case INT32: {
                final int[] dst = chunk.intBuffer(length);
                for (int i = 0; i < length; i++) {
                    final int r = rows[at + i];
                    dst[i] = ((int[]) chunks[r >>> SHIFT])[r & MASK];
                }
                chunk.wrap(dst, 0, length);
                return;
            }
            case FLOAT32: {
                final float[] dst = chunk.floatBuffer(length);
                for (int i = 0; i < length; i++) {
                    final int r = rows[at + i];
                    dst[i] = ((float[]) chunks[r >>> SHIFT])[r & MASK];
                }
                chunk.wrap(dst, 0, length);
                return;
            }
            case INT16: {
                final short[] dst = chunk.shortBuffer(length);
                for (int i = 0; i < length; i++) {
                    final int r = rows[at + i];
                    dst[i] = ((short[]) chunks[r >>> SHIFT])[r & MASK];
                }
                chunk.wrap(dst, 0, length);
                return;
            }
            default: {
                final byte[] dst = chunk.byteBuffer(length);
                for (int i = 0; i < length; i++) {
                    final int r = rows[at + i];
                    dst[i] = ((byte[]) chunks[r >>> SHIFT])[r & MASK];
                }
                chunk.wrap(dst, 0, length);
            }
        }
    }
}
