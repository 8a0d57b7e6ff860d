package io.jtick.parquet;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Decodes whole Parquet pages of the encodings jtick's writer produces straight into the arrays
 * the engine reads, in tight loops: the RLE/bit-packed hybrid of dictionary ids and
 * DELTA_BINARY_PACKED integers (parquet-java reads both one value per call through its
 * {@code ValuesReader}s, which was most of a scan's time). Decoding only; pages are still written
 * by parquet-java. The formats are the Parquet specification's ({@code Encodings.md}):
 *
 * <ul>
 *   <li>hybrid: runs, each a ULEB128 header; an even header is an RLE run of {@code header >>> 1}
 *       copies of one value stored in {@code ceil(bitWidth / 8)} little-endian bytes; an odd header
 *       is {@code header >>> 1} groups of 8 values bit-packed least significant bit first;</li>
 *   <li>delta: a header (block size, miniblocks per block, value count, zigzag first value), then
 *       blocks of a zigzag minimum delta, one bit width per miniblock, and the miniblocks bit-packed
 *       like the hybrid's groups; a value is the previous one plus the minimum delta plus the
 *       packed number, in wrapping 64-bit arithmetic.</li>
 * </ul>
 *
 * A bit-packed value is read with one little-endian 8-byte load at its byte and a shift, plus one
 * byte for widths whose bits reach past those 8 bytes (over 56); near the end of the page the
 * bytes are assembled one by one. Malformed input (a run or a miniblock past the page's end, a bit
 * width over 32 for ids or over 64 for deltas) throws {@link IOException}. Stateless.
 */
final class BulkDecoding {
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private BulkDecoding() {
    }

    /**
     * Dictionary ids of a data page's values section (one byte of bit width, then the hybrid
     * runs, as RLE_DICTIONARY/PLAIN_DICTIONARY pages store them): {@code n} ids into
     * {@code out[at..at+n)}.
     */
    static void dictionaryIds(final byte[] b, final int pos, final int limit, final int n, final int[] out, final int at)
        throws IOException {
        if (n == 0) {
            return;
        }
        if (pos >= limit) {
            throw new IOException("truncated dictionary page: no bit width");
        }
        hybrid(b, pos + 1, limit, b[pos] & 0xFF, n, out, at);
    }

    /** {@code n} values of the RLE/bit-packed hybrid of {@code bitWidth} (0..32) bits from {@code b[pos..limit)}. */
    static void hybrid(final byte[] b, final int pos, final int limit, final int bitWidth, final int n, final int[] out, final int at)
        throws IOException {
        if (bitWidth < 0 || bitWidth > 32) {
            throw new IOException("bad bit width of RLE/bit-packed values [width=" + bitWidth + "]");
        }
        final int valueBytes = (bitWidth + 7) >>> 3;
        int p = pos;
        int i = at;
        final int end = at + n;
        while (i < end) {
            // ULEB128 run header
            long header = 0;
            int shift = 0;
            for (;;) {
                if (p >= limit) {
                    throw new IOException("truncated RLE/bit-packed run header [decoded=" + (i - at) + " of " + n + "]");
                }
                final int x = b[p++];
                header |= (long) (x & 0x7F) << shift;
                if (x >= 0) {
                    break;
                }
                shift += 7;
                if (shift > 35) {
                    throw new IOException("bad RLE/bit-packed run header: longer than 5 bytes");
                }
            }
            if ((header & 1) == 0) {
                final long count = header >>> 1;
                if (p + valueBytes > limit) {
                    throw new IOException("truncated RLE run value");
                }
                int v = 0;
                for (int k = 0; k < valueBytes; k++) {
                    v |= (b[p + k] & 0xFF) << (8 * k);
                }
                p += valueBytes;
                final int m = (int) Math.min(count, end - i);
                Arrays.fill(out, i, i + m, v);
                i += m;
            } else {
                final long groups = header >>> 1;
                final long bytes = groups * bitWidth;
                // the last run may be cut short by its writer after the values the page holds
                final int m = (int) Math.min(groups * 8, end - i);
                final int needed = (int) (((long) m * bitWidth + 7) >>> 3);
                if (p + needed > limit) {
                    throw new IOException("truncated bit-packed run [bytes=" + needed + ", left=" + (limit - p) + "]");
                }
                unpackInts(b, p, limit, bitWidth, m, out, i);
                i += m;
                p = (int) Math.min(limit, p + bytes);
            }
        }
    }

    /** {@code n} values of {@code width} (0..32) bits packed LSB first from byte {@code p} into {@code out[at..)}. */
    private static void unpackInts(final byte[] b, final int p, final int limit, final int width, final int n, final int[] out,
                                   final int at) {
        if (width == 0) {
            Arrays.fill(out, at, at + n, 0);
            return;
        }
        final long mask = (1L << width) - 1;
        // values whose 8-byte load stays inside the array
        final int safe = safeCount(b.length - 8 - p, width, n);
        long bit = 0;
        int i = 0;
        for (; i < safe; i++, bit += width) {
            final long w = (long) LONG_LE.get(b, p + (int) (bit >>> 3));
            out[at + i] = (int) ((w >>> (bit & 7)) & mask);
        }
        for (; i < n; i++, bit += width) {
            out[at + i] = (int) (slowBits(b, p + (int) (bit >>> 3), limit, (int) (bit & 7), width) & mask);
        }
    }

    /** How many of {@code n} values of {@code width} bits start within {@code room} bytes (so a wide load at each stays in the array). */
    private static int safeCount(final int room, final int width, final int n) {
        return room < 0 ? 0 : (int) Math.min(n, (long) room * 8 / width + 1);
    }

    /** The 64 bits from byte {@code q} shifted by {@code shift}, bytes at or past {@code limit} read as 0. */
    private static long slowBits(final byte[] b, final int q, final int limit, final int shift, final int width) {
        long w = 0;
        final int bytes = (shift + width + 7) >>> 3;
        for (int k = 0; k < bytes && k < 8; k++) {
            if (q + k < limit) {
                w |= (long) (b[q + k] & 0xFF) << (8 * k);
            }
        }
        long v = w >>> shift;
        if (bytes > 8 && q + 8 < limit) {
            v |= (long) (b[q + 8] & 0xFF) << (64 - shift);
        }
        return v;
    }

    /** DELTA_BINARY_PACKED: {@code n} values into {@code out[at..at+n)}. */
    static void deltaLongs(final byte[] b, final int pos, final int limit, final int n, final long[] out, final int at)
        throws IOException {
        final Cursor c = new Cursor(b, pos, limit);
        final long blockSize = c.uleb();
        final long miniblocks = c.uleb();
        final long total = c.uleb();
        long last = c.zigzag();
        if (blockSize <= 0 || blockSize % 128 != 0 || miniblocks <= 0 || blockSize % miniblocks != 0
            || (blockSize / miniblocks) % 32 != 0 || miniblocks > 1024) {
            throw new IOException("bad DELTA_BINARY_PACKED header [block=" + blockSize + ", miniblocks=" + miniblocks + "]");
        }
        if (total < n) {
            throw new IOException("DELTA_BINARY_PACKED page holds " + total + " values, " + n + " wanted");
        }
        if (n == 0) {
            return;
        }
        final int perMini = (int) (blockSize / miniblocks);
        final int[] widths = new int[(int) miniblocks];
        out[at] = last;
        int i = at + 1;
        final int end = at + n;
        while (i < end) {
            final long minDelta = c.zigzag();
            if (c.p + widths.length > limit) {
                throw new IOException("truncated DELTA_BINARY_PACKED block: bit widths");
            }
            for (int k = 0; k < widths.length; k++) {
                widths[k] = b[c.p + k] & 0xFF;
                if (widths[k] > 64) {
                    throw new IOException("bad DELTA_BINARY_PACKED bit width [width=" + widths[k] + "]");
                }
            }
            c.p += widths.length;
            for (int k = 0; k < widths.length && i < end; k++) {
                final int w = widths[k];
                final int m = Math.min(perMini, end - i);
                final int needed = (int) (((long) m * w + 7) >>> 3);
                if (c.p + needed > limit) {
                    throw new IOException("truncated DELTA_BINARY_PACKED miniblock [bytes=" + needed + ", left=" + (limit - c.p) + "]");
                }
                last = unpackDeltas(b, c.p, limit, w, m, minDelta, last, out, i);
                i += m;
                c.p = Math.min(limit, c.p + perMini / 8 * w);
            }
        }
    }

    /** Unpacks {@code n} deltas of {@code width} (0..64) bits into running values; returns the last value. */
    private static long unpackDeltas(final byte[] b, final int p, final int limit, final int width, final int n, final long minDelta,
                                     final long previous, final long[] out, final int at) {
        long v = previous;
        if (width == 0) {
            for (int i = 0; i < n; i++) {
                v += minDelta;
                out[at + i] = v;
            }
            return v;
        }
        final long mask = width == 64 ? -1L : (1L << width) - 1;
        final int safe = safeCount(b.length - 9 - p, width, n);
        long bit = 0;
        int i = 0;
        if (width <= 56) {
            for (; i < safe; i++, bit += width) {
                final long w = (long) LONG_LE.get(b, p + (int) (bit >>> 3));
                v += minDelta + ((w >>> (bit & 7)) & mask);
                out[at + i] = v;
            }
        } else {
            for (; i < safe; i++, bit += width) {
                final int q = p + (int) (bit >>> 3);
                final int s = (int) (bit & 7);
                long w = (long) LONG_LE.get(b, q) >>> s;
                if (s != 0) {
                    w |= (long) (b[q + 8] & 0xFF) << (64 - s);
                }
                v += minDelta + (w & mask);
                out[at + i] = v;
            }
        }
        for (; i < n; i++, bit += width) {
            v += minDelta + (slowBits(b, p + (int) (bit >>> 3), limit, (int) (bit & 7), width) & mask);
            out[at + i] = v;
        }
        return v;
    }

    /** A read position over a page's bytes for the varints of the delta format. */
    private static final class Cursor {
        final byte[] b;
        final int limit;
        int p;

        Cursor(final byte[] b, final int p, final int limit) {
            this.b = b;
            this.p = p;
            this.limit = limit;
        }

        long uleb() throws IOException {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (p >= limit) {
                    throw new IOException("truncated DELTA_BINARY_PACKED varint");
                }
                final int x = b[p++];
                v |= (long) (x & 0x7F) << shift;
                if (x >= 0) {
                    return v;
                }
            }
            throw new IOException("bad DELTA_BINARY_PACKED varint: longer than 10 bytes");
        }

        long zigzag() throws IOException {
            final long u = uleb();
            return (u >>> 1) ^ -(u & 1);
        }
    }
}
