package io.jtick.core.hdb.write;

import io.jtick.core.hdb.format.Codec;
import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.format.SymRanges;

/**
 * Where a partition's column files are cut into blocks: the raw bytes per block of a column in
 * its encoding ({@link #blockBytes}) and the rows of each block ({@link #blockEnd}: every sym's
 * last row ends a block). The writer, the plain-column scatter and the compression study cut alike.
 */
public final class BlockCuts {
    /**
     * Raw bytes per block of an lz4 or snappy column (the warm tier): a point or window read decodes
     * a block, so small ones keep random access cheap; scans decode every block either way.
     */
    public static final int FAST_CODEC_BLOCK_BYTES = 16 * 1024;
    /** Raw bytes per block of a zstd column (the cold tier): zstd gains more from a larger window. */
    public static final int ZSTD_BLOCK_BYTES = 32 * 1024;

    private BlockCuts() {
    }

    /**
     * Raw bytes per block of a column in {@code encoding} when the table's blocks are {@code tableBlockBytes}:
     * plain columns are mapped and read in place, their blocks are only checksum units
     * ({@code tableBlockBytes}); lz4/snappy columns use at most {@link #FAST_CODEC_BLOCK_BYTES}, zstd
     * at most {@link #ZSTD_BLOCK_BYTES}, a transform without a codec the fast size.
     */
    public static int blockBytes(final ColumnEncoding encoding, final int tableBlockBytes) {
        if (encoding.isPlain()) {
            return tableBlockBytes;
        }
        return Math.min(tableBlockBytes, encoding.codec() == Codec.ZSTD ? ZSTD_BLOCK_BYTES : FAST_CODEC_BLOCK_BYTES);
    }

    /**
     * Where the block starting at row {@code start} ends: every sym's last row ends a block, so its
     * last value is in the block index (storage format version 2) and a one-sym read decodes only its
     * own blocks. A sym longer than what is left of a block gets blocks of equal size (at most
     * {@code maxRows}) that end at its end; shorter syms share a block, cut at the first sym end
     * once the block holds an eighth of {@code maxRows}, or else at the last sym end that fits.
     */
    public static int blockEnd(final SymRanges ranges, final int start, final int rows, final int maxRows) {
        final int max = (int) Math.min(rows, (long) start + maxRows);
        final int min = (int) Math.min(rows, (long) start + Math.max(1, maxRows / 8));
        final int sym = firstEndingAtOrAfter(ranges, start + 1);
        if (sym == ranges.count()) {
            return max;
        }
        final int symEnd = Math.min(rows, ranges.to(sym));
        if (symEnd > max) {
            final long left = symEnd - start;
            final long blocks = (left + maxRows - 1) / maxRows;
            return (int) (start + (left + blocks - 1) / blocks);
        }
        final int j = firstEndingAtOrAfter(ranges, min);
        if (j < ranges.count() && ranges.to(j) <= max) {
            return ranges.to(j);
        }
        return j > sym ? ranges.to(j - 1) : symEnd;
    }

    /** The first sym whose rows end at or after {@code row} (syms in row order), or the sym count. */
    private static int firstEndingAtOrAfter(final SymRanges ranges, final int row) {
        int lo = 0;
        int hi = ranges.count();
        while (lo < hi) {
            final int mid = (lo + hi) >>> 1;
            if (ranges.to(mid) < row) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
