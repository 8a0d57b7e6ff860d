package io.jtick.parquet;

import io.jtick.core.schema.ColumnType;
import io.jtick.core.table.ColumnChunk;
import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ValuesType;
import org.apache.parquet.column.values.ValuesReader;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A decoded page's values into the engine's typed arrays, for each column type: dictionary values by
 * the page's ids, delta-packed integers narrowed to the column's width, plain fixed-width values
 * copied, and the other encodings through parquet-java's {@link ValuesReader}. Stateless; the id and
 * delta buffers are per thread.
 */
final class PageValues {
    private PageValues() {
    }

    private static final ThreadLocal<int[]> SCRATCH_INTS = ThreadLocal.withInitial(() -> new int[8192]);
    private static final ThreadLocal<long[]> SCRATCH_LONGS = ThreadLocal.withInitial(() -> new long[8192]);

    /** This thread's id buffer of at least {@code n} ints (a page's ids, looked up at once). */
    static int[] scratchInts(final int n) {
        int[] a = SCRATCH_INTS.get();
        if (a.length < n) {
            a = new int[n];
            SCRATCH_INTS.set(a);
        }
        return a;
    }

    /** A DELTA_BINARY_PACKED page of an integer column, decoded in bulk. */
    static void deltas(final ColumnType type, final byte[] data, final int from, final int to, final int n, final Object out,
                               final int at) throws IOException {
        if (out instanceof long[] a) {
            BulkDecoding.deltaLongs(data, from, to, n, a, at);
            return;
        }
        long[] v = SCRATCH_LONGS.get();
        if (v.length < n) {
            v = new long[n];
            SCRATCH_LONGS.set(v);
        }
        BulkDecoding.deltaLongs(data, from, to, n, v, 0);
        switch (type) {
            case INT32 -> {
                final int[] a = (int[]) out;
                for (int i = 0; i < n; i++) {
                    a[at + i] = (int) v[i];
                }
            }
            case INT16 -> {
                final short[] a = (short[]) out;
                for (int i = 0; i < n; i++) {
                    a[at + i] = (short) v[i];
                }
            }
            case BYTE -> {
                final byte[] a = (byte[]) out;
                for (int i = 0; i < n; i++) {
                    a[at + i] = (byte) v[i];
                }
            }
            default -> throw new IllegalStateException("not delta-decoded [type=" + type + "]");
        }
    }

    /** A dictionary page's values by the page's ids. */
    static void lookUp(final ColumnType type, final Object dictionary, final int[] ids, final int idsAt,
                               final int n, final Object out, final int at) {
        switch (type) {
            case TIMESTAMP, INT64 -> {
                final long[] d = (long[]) dictionary;
                final long[] a = (long[]) out;
                for (int i = 0; i < n; i++) {
                    a[at + i] = d[ids[idsAt + i]];
                }
            }
            case INT32 -> {
                final int[] d = (int[]) dictionary;
                final int[] a = (int[]) out;
                for (int i = 0; i < n; i++) {
                    a[at + i] = d[ids[idsAt + i]];
                }
            }
            case INT16 -> {
                final int[] d = (int[]) dictionary;
                final short[] a = (short[]) out;
                for (int i = 0; i < n; i++) {
                    a[at + i] = (short) d[ids[idsAt + i]];
                }
            }
            case BYTE -> {
                final int[] d = (int[]) dictionary;
                final byte[] a = (byte[]) out;
                for (int i = 0; i < n; i++) {
                    a[at + i] = (byte) d[ids[idsAt + i]];
                }
            }
            case FLOAT64 -> {
                final double[] d = (double[]) dictionary;
                final double[] a = (double[]) out;
                for (int i = 0; i < n; i++) {
                    a[at + i] = d[ids[idsAt + i]];
                }
            }
            case FLOAT32 -> {
                final float[] d = (float[]) dictionary;
                final float[] a = (float[]) out;
                for (int i = 0; i < n; i++) {
                    a[at + i] = d[ids[idsAt + i]];
                }
            }
            case CHAR -> {
                final byte[] d = (byte[]) dictionary;
                final byte[] a = (byte[]) out;
                for (int i = 0; i < n; i++) {
                    a[at + i] = d[ids[idsAt + i]];
                }
            }
            default -> throw new IllegalStateException("not read through a dictionary [type=" + type + "]");
        }
    }

    static void decodeValues(final ColumnDescriptor descriptor, final ColumnType type, final Encoding encoding, final int n,
                             final ByteBuffer data, final Object out, final int at) throws IOException {
        if (encoding == Encoding.PLAIN && plainBulk(type, n, data.order(ByteOrder.LITTLE_ENDIAN), out, at)) {
            return;
        }
        final ValuesReader r = encoding.getValuesReader(descriptor, ValuesType.VALUES);
        r.initFromPage(n, ByteBufferInputStream.wrap(data));
        switch (type) {
            case TIMESTAMP, INT64 -> {
                final long[] a = (long[]) out;
                for (int i = at; i < at + n; i++) {
                    a[i] = r.readLong();
                }
            }
            case INT32 -> {
                final int[] a = (int[]) out;
                for (int i = at; i < at + n; i++) {
                    a[i] = r.readInteger();
                }
            }
            case FLOAT64 -> {
                final double[] a = (double[]) out;
                for (int i = at; i < at + n; i++) {
                    a[i] = r.readDouble();
                }
            }
            case FLOAT32 -> {
                final float[] a = (float[]) out;
                for (int i = at; i < at + n; i++) {
                    a[i] = r.readFloat();
                }
            }
            case INT16 -> {
                final short[] a = (short[]) out;
                for (int i = at; i < at + n; i++) {
                    a[i] = (short) r.readInteger();
                }
            }
            case BYTE -> {
                final byte[] a = (byte[]) out;
                for (int i = at; i < at + n; i++) {
                    a[i] = (byte) r.readInteger();
                }
            }
            case BOOL -> {
                final byte[] a = (byte[]) out;
                for (int i = at; i < at + n; i++) {
                    a[i] = (byte) (r.readBoolean() ? 1 : 0);
                }
            }
            case CHAR -> {
                final byte[] a = (byte[]) out;
                for (int i = at; i < at + n; i++) {
                    a[i] = r.readBytes().getBytesUnsafe()[0];
                }
            }
            default -> throw new IllegalStateException("not read through pages [type=" + type + "]");
        }
    }

    /** PLAIN fixed-width values copied in bulk (little-endian); false for the types that need the values reader. */
    private static boolean plainBulk(final ColumnType type, final int n, final ByteBuffer data, final Object out, final int at) {
        switch (type) {
            case TIMESTAMP, INT64 -> data.asLongBuffer().get((long[]) out, at, n);
            case INT32 -> data.asIntBuffer().get((int[]) out, at, n);
            case FLOAT64 -> data.asDoubleBuffer().get((double[]) out, at, n);
            case FLOAT32 -> data.asFloatBuffer().get((float[]) out, at, n);
            default -> {
                return false;
            }
        }
        return true;
    }

    /** Copies {@code n} values of {@code chunk} (from its offset) into {@code dst} at {@code at}, an array of the chunk's type. */
    static void copy(final ColumnChunk chunk, final Object dst, final int at, final int n) {
        final Object src;
        if (dst instanceof long[]) {
            src = chunk.longs();
        } else if (dst instanceof int[]) {
            src = chunk.ints();
        } else if (dst instanceof double[]) {
            src = chunk.doubles();
        } else if (dst instanceof float[]) {
            src = chunk.floats();
        } else if (dst instanceof short[]) {
            src = chunk.shorts();
        } else {
            src = chunk.bytes();
        }
        System.arraycopy(src, chunk.offset(), dst, at, n);
    }
}
