package io.jtick.core.kdb;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import static io.jtick.core.kdb.KdbDescriptor.BYTE_ORDER_OFFSET;
import static io.jtick.core.kdb.KdbDescriptor.COMPRESSED_OFFSET;
import static io.jtick.core.kdb.KdbDescriptor.HEADER_LENGTH;
import static io.jtick.core.kdb.KdbDescriptor.LENGTH_OFFSET;
import static io.jtick.core.kdb.KdbDescriptor.UNCOMPRESSED_LENGTH_OFFSET;

/**
 * kdb+ IPC compression, the LZ77 variant q applies to large messages it sends to other hosts (and
 * KxSystems/javakdb implements): the bytes after the 8-byte header are a sequence of groups, each a
 * flag byte and eight items; flag bit k set makes item k a back reference of three bytes or fewer
 * (a one-byte hash of the two bytes to copy, then how many more bytes follow them, 0..255), clear
 * makes it one literal byte. Both sides keep the same table, XOR of two adjacent bytes → where that
 * pair last started, updated as bytes are produced except inside a copied run. q compresses every
 * message over 2000 bytes it sends to another host, so a remote feed's batches arrive compressed:
 * an instance (one per connection's decoder) keeps its work arrays, grown to the largest message
 * seen, and allocates only the output buffer per message. An instance is not thread-safe.
 */
public final class KdbCompression {
    private final int[] lastAt = new int[256];
    private byte[] src = new byte[0];
    private byte[] dst = new byte[0];

    /**
     * The uncompressed copy of the compressed message at {@code offset} ({@code length} bytes, header
     * included), as a new buffer from {@code alloc}: the same header with the compressed flag cleared
     * and the uncompressed length, then the object.
     *
     * @throws IllegalArgumentException naming the problem when the message is not valid compressed
     *                                  data or its uncompressed length is over {@code maxLength}
     */
    public ByteBuf uncompress(final ByteBuf msg, final int offset, final int length, final ByteBufAllocator alloc,
                              final int maxLength) {
        final boolean le = msg.getByte(offset + BYTE_ORDER_OFFSET) == 1;
        if (length < UNCOMPRESSED_LENGTH_OFFSET + 4) {
            throw new IllegalArgumentException("compressed message too short [length=" + length + "]");
        }
        final int full = le ? msg.getIntLE(offset + UNCOMPRESSED_LENGTH_OFFSET) : msg.getInt(offset + UNCOMPRESSED_LENGTH_OFFSET);
        if (full <= HEADER_LENGTH || full > maxLength) {
            throw new IllegalArgumentException("uncompressed length out of range [length=" + full + ", limit=" + maxLength + "]");
        }
        if (src.length < length) {
            src = new byte[length];
        }
        if (dst.length < full) {
            dst = new byte[full];
        }
        msg.getBytes(offset, src, 0, length);
        expand(UNCOMPRESSED_LENGTH_OFFSET + 4, length, full);
        System.arraycopy(src, 0, dst, 0, HEADER_LENGTH);
        dst[COMPRESSED_OFFSET] = 0;
        final ByteBuf out = alloc.directBuffer(full);
        out.writeBytes(dst, 0, full);
        if (le) {
            out.setIntLE(LENGTH_OFFSET, full);
        } else {
            out.setInt(LENGTH_OFFSET, full);
        }
        return out;
    }

    /** Fills {@code dst[8, full)} from the compressed items in {@code src[from, end)}. */
    private void expand(final int from, final int end, final int full) {
        final byte[] src = this.src;
        final byte[] dst = this.dst;
        final int[] lastAt = this.lastAt;
        java.util.Arrays.fill(lastAt, 0);
        int in = from;
        int out = HEADER_LENGTH;
        int hashed = HEADER_LENGTH;
        int flags = 0;
        int bit = 0;
        while (out < full) {
            if (bit == 0) {
                flags = next(src, in++, end);
                bit = 1;
            }
            if ((flags & bit) != 0) {
                final int from2 = lastAt[next(src, in++, end)];
                final int run = 2 + next(src, in++, end);
                if (from2 < HEADER_LENGTH || out + run > full) {
                    throw new IllegalArgumentException("bad back reference in compressed message [at=" + (in - 2) + "]");
                }
                for (int k = 0; k < run; k++) {
                    dst[out + k] = dst[from2 + k];
                }
                for (; hashed <= out; hashed++) {
                    lastAt[(dst[hashed] ^ dst[hashed + 1]) & 0xff] = hashed;
                }
                out += run;
                hashed = out;
            } else {
                dst[out++] = (byte) next(src, in++, end);
                for (; hashed < out - 1; hashed++) {
                    lastAt[(dst[hashed] ^ dst[hashed + 1]) & 0xff] = hashed;
                }
            }
            bit = (bit << 1) & 0xff;
        }
    }

    private static int next(final byte[] src, final int at, final int end) {
        if (at >= end) {
            throw new IllegalArgumentException("compressed message ends early [at=" + at + "]");
        }
        return src[at] & 0xff;
    }

    /**
     * The compressed form of the message at {@code msg}'s reader index (whole, header included, in
     * its own byte order), as q would send it; null when compressing would not make it at least
     * half as small (q then sends it as it is). For clients, tests and benchmarks.
     */
    public static ByteBuf compress(final ByteBuf msg, final ByteBufAllocator alloc) {
        final int n = msg.readableBytes();
        final byte[] src = new byte[n];
        msg.getBytes(msg.readerIndex(), src);
        final byte[] dst = new byte[n / 2];
        if (dst.length < UNCOMPRESSED_LENGTH_OFFSET + 4 + 17) {
            return null;
        }
        final int[] lastAt = new int[256];
        int in = HEADER_LENGTH;
        int out = UNCOMPRESSED_LENGTH_OFFSET + 4;
        int flagAt = -1;
        int flags = 0;
        int bit = 0;
        int pendingHash = 0;
        int pendingAt = 0;
        while (in < n) {
            if (bit == 0) {
                if (out > dst.length - 17) {
                    return null;
                }
                if (flagAt >= 0) {
                    dst[flagAt] = (byte) flags;
                }
                flagAt = out++;
                flags = 0;
                bit = 1;
            }
            final boolean pair = in <= n - 3;
            final int h = pair ? (src[in] ^ src[in + 1]) & 0xff : 0;
            final int candidate = pair ? lastAt[h] : 0;
            if (pendingAt > 0) {
                lastAt[pendingHash] = pendingAt;
                pendingAt = 0;
            }
            if (candidate == 0 || src[candidate] != src[in]) {
                if (pair) {
                    pendingHash = h;
                    pendingAt = in;
                }
                dst[out++] = src[in++];
            } else {
                lastAt[h] = in;
                flags |= bit;
                int a = candidate + 2;
                in += 2;
                final int runStart = in;
                final int limit = Math.min(in + 255, n);
                while (in < limit && src[a] == src[in]) {
                    a++;
                    in++;
                }
                dst[out++] = (byte) h;
                dst[out++] = (byte) (in - runStart);
            }
            bit = (bit << 1) & 0xff;
        }
        dst[flagAt] = (byte) flags;
        final boolean le = src[BYTE_ORDER_OFFSET] == 1;
        final ByteBuf c = alloc.directBuffer(out);
        c.writeBytes(src, 0, HEADER_LENGTH);
        c.writeBytes(dst, HEADER_LENGTH, out - HEADER_LENGTH);
        c.setByte(COMPRESSED_OFFSET, 1);
        if (le) {
            c.setIntLE(LENGTH_OFFSET, out);
            c.setIntLE(UNCOMPRESSED_LENGTH_OFFSET, n);
        } else {
            c.setInt(LENGTH_OFFSET, out);
            c.setInt(UNCOMPRESSED_LENGTH_OFFSET, n);
        }
        return c;
    }
}
