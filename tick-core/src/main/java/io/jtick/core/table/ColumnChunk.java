package io.jtick.core.table;

import io.jtick.core.schema.ColumnType;

/**
 * A view of one column's values for a run of rows, filled by {@link TableSegment#read}: after the
 * call, the value of the i-th requested row is at {@code array[offset() + i]} for
 * {@code i < length()}, where the array is the one matching the column's type:
 *
 * <table>
 *   <caption>array per column type</caption>
 *   <tr><th>column type</th><th>array</th></tr>
 *   <tr><td>timestamp (epoch ns), int64</td><td>{@link #longs()}</td></tr>
 *   <tr><td>symbol (segment-local sym id), int32</td><td>{@link #ints()}</td></tr>
 *   <tr><td>float64</td><td>{@link #doubles()}</td></tr>
 *   <tr><td>float32</td><td>{@link #floats()}</td></tr>
 *   <tr><td>int16</td><td>{@link #shorts()}</td></tr>
 *   <tr><td>byte, bool (0/1), char (one ASCII byte)</td><td>{@link #bytes()}</td></tr>
 * </table>
 *
 * <p>Zero copy or decoded, the implementation chooses: an in-memory table wraps its own column
 * array at the row's index ({@code wrap(column, from, n)}); a disk segment decodes or copies into
 * this chunk's reusable buffer ({@code longBuffer(n)} ...) and wraps that at offset 0. The engine
 * only reads the array, never writes to it, and only until its next {@code read} with this chunk.
 *
 * <p>One chunk belongs to one reader (one column of one query on one thread); the engine keeps a
 * chunk per column and reuses it for every batch, so buffers are allocated once per query.
 * {@link #attachment} is free for the segment implementation, e.g. to remember the block it
 * decoded last so that the next, usually adjacent, range is served without decoding again.
 */
public final class ColumnChunk {
    private long[] longs;
    private int[] ints;
    private double[] doubles;
    private float[] floats;
    private short[] shorts;
    private byte[] bytes;
    private int offset;
    private int length;

    private long[] longBuf;
    private int[] intBuf;
    private double[] doubleBuf;
    private float[] floatBuf;
    private short[] shortBuf;
    private byte[] byteBuf;

    /** Per-reader state of the segment implementation (for example its decoded-block cache); the engine never touches it. */
    public Object attachment;

    public ColumnChunk wrap(final long[] values, final int offset, final int length) {
        this.longs = values;
        return at(offset, length);
    }

    public ColumnChunk wrap(final int[] values, final int offset, final int length) {
        this.ints = values;
        return at(offset, length);
    }

    public ColumnChunk wrap(final double[] values, final int offset, final int length) {
        this.doubles = values;
        return at(offset, length);
    }

    public ColumnChunk wrap(final float[] values, final int offset, final int length) {
        this.floats = values;
        return at(offset, length);
    }

    public ColumnChunk wrap(final short[] values, final int offset, final int length) {
        this.shorts = values;
        return at(offset, length);
    }

    public ColumnChunk wrap(final byte[] values, final int offset, final int length) {
        this.bytes = values;
        return at(offset, length);
    }

    private ColumnChunk at(final int offset, final int length) {
        this.offset = offset;
        this.length = length;
        return this;
    }

    public long[] longs() {
        return longs;
    }

    public int[] ints() {
        return ints;
    }

    public double[] doubles() {
        return doubles;
    }

    public float[] floats() {
        return floats;
    }

    public short[] shorts() {
        return shorts;
    }

    public byte[] bytes() {
        return bytes;
    }

    /** Index of the first requested row's value in the array. */
    public int offset() {
        return offset;
    }

    /** Values in the view. */
    public int length() {
        return length;
    }

    /** This chunk's own reusable buffer of at least {@code capacity} longs (contents undefined). */
    public long[] longBuffer(final int capacity) {
        if (longBuf == null || longBuf.length < capacity) {
            longBuf = new long[capacity];
        }
        return longBuf;
    }

    public int[] intBuffer(final int capacity) {
        if (intBuf == null || intBuf.length < capacity) {
            intBuf = new int[capacity];
        }
        return intBuf;
    }

    public double[] doubleBuffer(final int capacity) {
        if (doubleBuf == null || doubleBuf.length < capacity) {
            doubleBuf = new double[capacity];
        }
        return doubleBuf;
    }

    public float[] floatBuffer(final int capacity) {
        if (floatBuf == null || floatBuf.length < capacity) {
            floatBuf = new float[capacity];
        }
        return floatBuf;
    }

    public short[] shortBuffer(final int capacity) {
        if (shortBuf == null || shortBuf.length < capacity) {
            shortBuf = new short[capacity];
        }
        return shortBuf;
    }

    public byte[] byteBuffer(final int capacity) {
        if (byteBuf == null || byteBuf.length < capacity) {
            byteBuf = new byte[capacity];
        }
        return byteBuf;
    }

    /** Wraps a primitive column array (as {@link ColumnType#newArray} makes it) at {@code offset}: zero copy. */
    public ColumnChunk wrap(final ColumnType type, final Object column, final int offset, final int length) {
        return switch (type) {
            case TIMESTAMP, INT64 -> wrap((long[]) column, offset, length);
            case FLOAT64 -> wrap((double[]) column, offset, length);
            case SYMBOL, INT32 -> wrap((int[]) column, offset, length);
            case FLOAT32 -> wrap((float[]) column, offset, length);
            case INT16 -> wrap((short[]) column, offset, length);
            default -> wrap((byte[]) column, offset, length);
        };
    }

    /** This chunk's reusable buffer of at least {@code capacity} values of a column type. */
    public Object buffer(final ColumnType type, final int capacity) {
        return switch (type) {
            case TIMESTAMP, INT64 -> longBuffer(capacity);
            case FLOAT64 -> doubleBuffer(capacity);
            case SYMBOL, INT32 -> intBuffer(capacity);
            case FLOAT32 -> floatBuffer(capacity);
            case INT16 -> shortBuffer(capacity);
            default -> byteBuffer(capacity);
        };
    }

    /**
     * Copies the values at {@code rowList[at..at+length)} of a primitive column array (as
     * {@link ColumnType#newArray} makes it) into this chunk's buffer and wraps it.
     */
    public ColumnChunk gather(final ColumnType type, final Object column, final int[] rowList, final int at, final int length) {
        switch (type) {
            case TIMESTAMP:
            case INT64: {
                final long[] src = (long[]) column;
                final long[] dst = longBuffer(length);
                for (int i = 0; i < length; i++) {
                    dst[i] = src[rowList[at + i]];
                }
                return wrap(dst, 0, length);
            }
            case FLOAT64: {
                final double[] src = (double[]) column;
                final double[] dst = doubleBuffer(length);
                for (int i = 0; i < length; i++) {
                    dst[i] = src[rowList[at + i]];
                }
                return wrap(dst, 0, length);
            }
            case SYMBOL:
            case INT32: {
                final int[] src = (int[]) column;
                final int[] dst = intBuffer(length);
                for (int i = 0; i < length; i++) {
                    dst[i] = src[rowList[at + i]];
                }
                return wrap(dst, 0, length);
            }
            case FLOAT32: {
                final float[] src = (float[]) column;
                final float[] dst = floatBuffer(length);
                for (int i = 0; i < length; i++) {
                    dst[i] = src[rowList[at + i]];
                }
                return wrap(dst, 0, length);
            }
            case INT16: {
                final short[] src = (short[]) column;
                final short[] dst = shortBuffer(length);
                for (int i = 0; i < length; i++) {
                    dst[i] = src[rowList[at + i]];
                }
                return wrap(dst, 0, length);
            }
            default: {
                final byte[] src = (byte[]) column;
                final byte[] dst = byteBuffer(length);
                for (int i = 0; i < length; i++) {
                    dst[i] = src[rowList[at + i]];
                }
                return wrap(dst, 0, length);
            }
        }
    }
}
