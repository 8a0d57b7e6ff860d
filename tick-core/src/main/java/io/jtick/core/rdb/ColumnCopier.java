package io.jtick.core.rdb;

import io.netty.buffer.ByteBuf;
import org.agrona.UnsafeApi;

import java.nio.ByteOrder;

/**
 * Bulk copies of little-endian column blocks from a {@link ByteBuf} into primitive arrays: one
 * {@code copyMemory} per column when the buffer exposes its memory (direct address or backing
 * array) and the platform is little-endian, else a per-value loop over {@code getXxxLE}.
 * The fast path needs Agrona's {@link UnsafeApi} (JVM flag
 * {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED}); without it the loop runs.
 */
final class ColumnCopier {
    /** True when raw memory copies give the right values: little-endian host and UnsafeApi usable. */
    static final boolean RAW = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN && unsafeUsable();

    private static final long BYTES_BASE = RAW ? UnsafeApi.arrayBaseOffset(byte[].class) : 0;
    private static final long SHORTS_BASE = RAW ? UnsafeApi.arrayBaseOffset(short[].class) : 0;
    private static final long INTS_BASE = RAW ? UnsafeApi.arrayBaseOffset(int[].class) : 0;
    private static final long FLOATS_BASE = RAW ? UnsafeApi.arrayBaseOffset(float[].class) : 0;
    private static final long LONGS_BASE = RAW ? UnsafeApi.arrayBaseOffset(long[].class) : 0;
    private static final long DOUBLES_BASE = RAW ? UnsafeApi.arrayBaseOffset(double[].class) : 0;

    private ColumnCopier() {
    }

    private static boolean unsafeUsable() {
        try {
            final long[] probe = new long[1];
            final byte[] src = {1, 0, 0, 0, 0, 0, 0, 0};
            UnsafeApi.copyMemory(src, UnsafeApi.arrayBaseOffset(byte[].class), probe, UnsafeApi.arrayBaseOffset(long[].class), 8);
            return probe[0] == 1L;
        } catch (final LinkageError | RuntimeException e) {
            return false;
        }
    }

    /**
     * Copies {@code bytes} from {@code buf[index..]} to {@code dst} at byte offset {@code dstBase + dstByteOffset};
     * returns false when the buffer exposes neither an address nor an array (caller loops).
     */
    private static boolean raw(final ByteBuf buf, final int index, final Object dst, final long dstOffset, final int bytes) {
        if (!RAW) {
            return false;
        }
        if (buf.hasMemoryAddress()) {
            UnsafeApi.copyMemory(null, buf.memoryAddress() + index, dst, dstOffset, bytes);
            return true;
        }
        if (buf.hasArray()) {
            UnsafeApi.copyMemory(buf.array(), BYTES_BASE + buf.arrayOffset() + index, dst, dstOffset, bytes);
            return true;
        }
        return false;
    }

    private static void check(final ByteBuf buf, final int index, final int bytes, final int dstLength, final int at, final int n) {
        if (at < 0 || n < 0 || at > dstLength - n) {
            throw new IndexOutOfBoundsException("column array too small [at=" + at + ", n=" + n + ", length=" + dstLength + "]");
        }
        if (index < 0 || index > buf.capacity() - bytes) {
            throw new IndexOutOfBoundsException("column block outside buffer [index=" + index + ", bytes=" + bytes
                + ", capacity=" + buf.capacity() + "]");
        }
    }

    static void copy(final ByteBuf buf, final int index, final long[] dst, final int at, final int n) {
        check(buf, index, n << 3, dst.length, at, n);
        if (!raw(buf, index, dst, LONGS_BASE + ((long) at << 3), n << 3)) {
            for (int i = 0; i < n; i++) {
                dst[at + i] = buf.getLongLE(index + (i << 3));
            }
        }
    }

    static void copy(final ByteBuf buf, final int index, final double[] dst, final int at, final int n) {
        check(buf, index, n << 3, dst.length, at, n);
        if (!raw(buf, index, dst, DOUBLES_BASE + ((long) at << 3), n << 3)) {
            for (int i = 0; i < n; i++) {
                dst[at + i] = Double.longBitsToDouble(buf.getLongLE(index + (i << 3)));
            }
        }
    }

    static void copy(final ByteBuf buf, final int index, final int[] dst, final int at, final int n) {
        check(buf, index, n << 2, dst.length, at, n);
        if (!raw(buf, index, dst, INTS_BASE + ((long) at << 2), n << 2)) {
            for (int i = 0; i < n; i++) {
                dst[at + i] = buf.getIntLE(index + (i << 2));
            }
        }
    }

    static void copy(final ByteBuf buf, final int index, final float[] dst, final int at, final int n) {
        check(buf, index, n << 2, dst.length, at, n);
        if (!raw(buf, index, dst, FLOATS_BASE + ((long) at << 2), n << 2)) {
            for (int i = 0; i < n; i++) {
                dst[at + i] = Float.intBitsToFloat(buf.getIntLE(index + (i << 2)));
            }
        }
    }

    static void copy(final ByteBuf buf, final int index, final short[] dst, final int at, final int n) {
        check(buf, index, n << 1, dst.length, at, n);
        if (!raw(buf, index, dst, SHORTS_BASE + ((long) at << 1), n << 1)) {
            for (int i = 0; i < n; i++) {
                dst[at + i] = buf.getShortLE(index + (i << 1));
            }
        }
    }

    /**
     * Copies {@code n} sym codes from {@code buf[index..]} into {@code dst[at..]} as catalog ids,
     * {@code dst[at + i] = ids[code]}, checking each code against the dictionary's size in the same
     * pass (one read of the codes instead of a copy, a check and a remap).
     *
     * @return true when every code was inside {@code [0, dictSize)}; otherwise the values written are
     *     meaningless and the caller rejects the update
     */
    static boolean remap(final ByteBuf buf, final int index, final int[] dst, final int at, final int n, final int[] ids,
                         final int dictSize) {
        check(buf, index, n << 2, dst.length, at, n);
        if (dictSize < 1 || dictSize > ids.length) {
            throw new IllegalArgumentException("dictionary larger than its ids [size=" + dictSize + ", ids=" + ids.length + "]");
        }
        int bad = 0;
        if (RAW && (buf.hasMemoryAddress() || buf.hasArray())) {
            final Object base = buf.hasMemoryAddress() ? null : buf.array();
            final long addr = buf.hasMemoryAddress() ? buf.memoryAddress() + index : BYTES_BASE + buf.arrayOffset() + index;
            for (int i = 0; i < n; i++) {
                final int code = UnsafeApi.getInt(base, addr + ((long) i << 2));
                final boolean in = Integer.compareUnsigned(code, dictSize) < 0;
                bad |= in ? 0 : 1;
                dst[at + i] = ids[in ? code : 0];
            }
        } else {
            for (int i = 0; i < n; i++) {
                final int code = buf.getIntLE(index + (i << 2));
                final boolean in = Integer.compareUnsigned(code, dictSize) < 0;
                bad |= in ? 0 : 1;
                dst[at + i] = ids[in ? code : 0];
            }
        }
        return bad == 0;
    }

    /** Single bytes have no byte order: Netty's own bulk copy serves every buffer kind. */
    static void copy(final ByteBuf buf, final int index, final byte[] dst, final int at, final int n) {
        buf.getBytes(index, dst, at, n);
    }
}
