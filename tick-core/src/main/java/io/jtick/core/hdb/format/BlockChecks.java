package io.jtick.core.hdb.format;

import io.jtick.core.schema.ColumnType;

import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * The checksums of one column file's blocks: a plain mapped file's blocks are checked at their first
 * touch by any thread and marked ({@link #plain}); {@link #verifyAll} checks every block (and that
 * encoded ones decode); {@link #preload} reads every block once ahead of queries. A bad block raises
 * {@link CorruptPartitionException} naming the file and block (wrapped in {@link UncheckedIOException}
 * from {@link #plain}). Thread-safe: a mark is set only after its block's checksum passed, so a race
 * costs at most one more checksum.
 */
final class BlockChecks {
    private final Path path;
    private final ColumnType type;
    private final int blockRows;
    private final long rawBytes;
    private final long[] offsets;
    private final int[] lengths;
    private final int[] crcs;
    /** The mapped values, or null past 2 GiB (encoded blocks are then read positionally and checksummed at each read). */
    private final MappedByteBuffer mapped;
    /** Plain files: blocks whose checksum has passed (1); null for an encoded file (its {@link EncodedBlocks} keeps its own). */
    private final byte[] verified;
    private final EncodedBlocks encoded;
    private final long valuesBase;

    BlockChecks(final Path path, final ColumnFileHeader h, final MappedByteBuffer mapped, final boolean plain,
                final EncodedBlocks encoded, final long valuesBase) {
        this.path = path;
        this.type = h.type;
        this.blockRows = h.blockRows;
        this.rawBytes = (long) h.rows * h.type.width();
        this.offsets = h.offsets;
        this.lengths = h.lengths;
        this.crcs = h.crcs;
        this.mapped = mapped;
        this.verified = plain ? new byte[h.blockCount] : null;
        this.encoded = encoded;
        this.valuesBase = valuesBase;
    }

    /** A plain mapped file's {@code block}, checksummed the first time any thread asks. */
    void plain(final int block) {
        if (verified[block] != 0) {
            return;
        }
        final ByteBuffer slice = mapped.duplicate();
        slice.limit((int) (offsets[block] + lengths[block])).position((int) offsets[block]);
        final CRC32C crc = new CRC32C();
        crc.update(slice);
        if ((int) crc.getValue() != crcs[block]) {
            throw new UncheckedIOException(new CorruptPartitionException(path, block, "block checksum mismatch"));
        }
        verified[block] = 1;
    }

    /** Checks every block's checksum (and that encoded blocks decode); throws on the first bad one. */
    void verifyAll() throws CorruptPartitionException {
        final Object scratchValues = verified != null ? null : type.newArray(blockRows);
        for (int b = 0; b < lengths.length; b++) {
            try {
                if (verified != null) {
                    plain(b);
                } else {
                    encoded.decodeInto(b, scratchValues, valuesBase);
                }
            } catch (final UncheckedIOException e) {
                throw corrupt(e);
            }
        }
    }

    /** See {@link ColumnFile#preload}. */
    long preload() throws CorruptPartitionException {
        if (mapped == null) {
            return 0;
        }
        final DecodedBlockCache cache = DecodedBlockCache.shared();
        final boolean decode = verified == null && encoded.cachedWhole() && cache.capacityBytes() - cache.bytes() >= rawBytes;
        long bytes = 0;
        for (int b = 0; b < lengths.length; b++) {
            try {
                if (verified != null) {
                    plain(b);
                } else if (decode) {
                    encoded.cached(b);
                } else {
                    encoded.checksum(b);
                }
            } catch (final UncheckedIOException e) {
                throw corrupt(e);
            }
            bytes += lengths[b];
        }
        return bytes;
    }

    private static CorruptPartitionException corrupt(final UncheckedIOException e) {
        if (e.getCause() instanceof CorruptPartitionException c) {
            return c;
        }
        throw e;
    }
}
