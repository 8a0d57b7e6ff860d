package io.jtick.core.hdb.format;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/** Per-thread buffers of the decode path: the decompressed bytes, stored bytes read past the map, the checksum, the decoder's tiles. */
final class DecodeScratch {
    final CRC32C crc = new CRC32C();
    final BlockDecoder decoder = new BlockDecoder();
    /** The part block of the last holder-less {@link ColumnFile#read} on this thread. */
    final DecodedBlock held = new DecodedBlock();
    private ByteBuffer out = ByteBuffer.allocateDirect(0);
    private ByteBuffer stored = ByteBuffer.allocateDirect(0);
    /** One sub-block's values for a partial read's edges. */
    private byte[] sub = new byte[0];
    /** The last two long sub-blocks binary searches decoded: a window's two searches and its read take them from here. */
    private final SearchedSub[] searched = {new SearchedSub(), new SearchedSub()};
    /** The slot of {@link #searched} used last. */
    private int searchedLast;
    /** The file, block and end (row in the block) of this thread's last read of a column the shared cache keeps whole. */
    long readFile = -1;
    int readBlock;
    int readEnd;

    byte[] sub(final int bytes) {
        if (sub.length < bytes) {
            sub = new byte[bytes];
        }
        return sub;
    }

    /** The decoded sub-block {@code index} of {@code block} of file {@code file} when a search left it here, or null. */
    SearchedSub searched(final long file, final int block, final int index) {
        for (int i = 0; i < searched.length; i++) {
            final SearchedSub x = searched[i];
            if (x.file == file && x.block == block && x.index == index) {
                searchedLast = i;
                return x;
            }
        }
        return null;
    }

    /** The slot used less recently, emptied, with room for {@code n} values, to decode a sub-block into. */
    SearchedSub older(final int n) {
        searchedLast ^= 1;
        final SearchedSub x = searched[searchedLast];
        x.file = -1;
        if (x.values.length < n) {
            x.values = new long[n];
        }
        return x;
    }

    ByteBuffer storedBuffer() {
        return stored;
    }

    ByteBuffer out(final int bytes) {
        if (out.capacity() < bytes) {
            out = ByteBuffer.allocateDirect(Math.max(bytes, 64 << 10));
        }
        return out;
    }

    ByteBuffer stored(final int bytes) {
        if (stored.capacity() < bytes) {
            stored = ByteBuffer.allocateDirect(Math.max(bytes, 64 << 10));
        }
        return stored;
    }

    /** A long sub-block a binary search decoded: its values, file id (-1 when empty), block and index in the block. */
    static final class SearchedSub {
        long[] values = new long[0];
        long file = -1;
        int block;
        int index;
    }
}
