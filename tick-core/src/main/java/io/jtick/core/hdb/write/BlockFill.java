package io.jtick.core.hdb.write;

import io.jtick.core.schema.ColumnType;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.TableSegment;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;

/**
 * Fills a block buffer with a column's values in partition order, read through the segment a
 * chunk at a time: what the column writer does for each block of an encoded column, and what the
 * encoding chooser samples.
 */
final class BlockFill {
    private static final boolean NATIVE_LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private BlockFill() {
    }

    /**
     * Copies the values of {@code count} rows of a column into {@code dst} from byte 0 as
     * little-endian values of the column's width: the rows {@code rows[from..from+count)}, or rows
     * {@code [from, from+count)} when {@code rows} is null. Reads go through the segment at most
     * {@link TableSegment#chunkRows()} rows at a time into {@code chunk}; each chunk is one bulk
     * copy (a byte-order conversion only on a big-endian machine).
     */
    static void copyRows(final TableSegment table, final int column, final int[] rows, final int from, final int count,
                         final ColumnChunk chunk, final UnsafeBuffer dst) {
        final ColumnType type = table.schema().type(column);
        final int width = type.width();
        if (from < 0 || count < 0 || (long) count * width > dst.capacity()) {
            throw new IndexOutOfBoundsException("rows do not fit [table=" + table.schema().name() + ", from=" + from + ", count=" + count
                + ", capacity=" + dst.capacity() + "]");
        }
        final int step = Math.max(1, table.chunkRows());
        for (int done = 0; done < count;) {
            final int k = Math.min(step, count - done);
            if (rows == null) {
                table.read(column, from + done, k, chunk);
            } else {
                table.read(column, rows, from + done, k, chunk);
            }
            final Object values = values(type, chunk);
            if (NATIVE_LITTLE_ENDIAN) {
                UnsafeApi.copyMemory(values, UnsafeApi.arrayBaseOffset(values.getClass()) + (long) chunk.offset() * width,
                    dst.byteArray(), dst.addressOffset() + (long) done * width, (long) k * width);
            } else {
                putLittleEndian(type, chunk, k, dst, done * width);
            }
            done += k;
        }
    }

    /** The chunk's array for a column type. */
    private static Object values(final ColumnType type, final ColumnChunk chunk) {
        return switch (type) {
            case TIMESTAMP, INT64 -> chunk.longs();
            case FLOAT64 -> chunk.doubles();
            case SYMBOL, INT32 -> chunk.ints();
            case FLOAT32 -> chunk.floats();
            case INT16 -> chunk.shorts();
            default -> chunk.bytes();
        };
    }

    private static void putLittleEndian(final ColumnType type, final ColumnChunk chunk, final int k, final UnsafeBuffer dst,
                                        final int at) {
        final ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        final int o = chunk.offset();
        for (int i = 0; i < k; i++) {
            switch (type) {
                case TIMESTAMP, INT64 -> dst.putLong(at + (i << 3), chunk.longs()[o + i], le);
                case FLOAT64 -> dst.putDouble(at + (i << 3), chunk.doubles()[o + i], le);
                case SYMBOL, INT32 -> dst.putInt(at + (i << 2), chunk.ints()[o + i], le);
                case FLOAT32 -> dst.putFloat(at + (i << 2), chunk.floats()[o + i], le);
                case INT16 -> dst.putShort(at + (i << 1), chunk.shorts()[o + i], le);
                default -> dst.putByte(at + i, chunk.bytes()[o + i]);
            }
        }
    }
}
