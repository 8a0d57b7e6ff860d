package io.jtick.objectstore;

import io.jtick.parquet.PositionedInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * One data object read as a Parquet {@link InputFile} through the cache: a read takes the aligned
 * blocks it spans from the {@link RangeCache} (memory, then disk) and fetches each run of missing
 * ones with one ranged GET, so a first query downloads the footer and the column chunks it decodes,
 * nothing else. A store failure surfaces as the store's {@link io.jtick.core.hdb.format.PartitionUnavailableException}.
 */
final class ObjectInputFile implements InputFile {
    private final S3ColdStore store;
    private final Manifest manifest;
    private final String cacheKey;

    ObjectInputFile(final S3ColdStore store, final Manifest manifest) {
        this.store = store;
        this.manifest = manifest;
        this.cacheKey = manifest.key() + "@" + manifest.etag();
    }

    @Override
    public long getLength() {
        return manifest.bytes();
    }

    @Override
    public SeekableInputStream newStream() {
        return new Stream();
    }

    /** Copies {@code dst.remaining()} bytes at {@code pos} into {@code dst}. */
    void readAt(final long pos, final ByteBuffer dst) throws EOFException {
        final long length = manifest.bytes();
        if (pos + dst.remaining() > length) {
            throw new EOFException("read past the end of " + manifest.key() + " [pos=" + pos + ", want=" + dst.remaining() + ", length="
                + length + "]");
        }
        final int block = store.blockBytes();
        final RangeCache cache = store.cache();
        long at = pos;
        while (dst.hasRemaining()) {
            final long b = at / block;
            byte[] data = cache == null ? null : cache.get(new RangeCache.BlockKey(cacheKey, b));
            if (data == null) {
                // fetch the run of missing blocks this read still spans in one ranged GET
                final long lastByte = at + dst.remaining() - 1;
                long lastBlock = b;
                while (lastBlock < lastByte / block && (cache == null || !cached(cache, lastBlock + 1))) {
                    lastBlock++;
                }
                final long from = b * block;
                final long to = Math.min(length, (lastBlock + 1) * block) - 1;
                final byte[] run = store.get(manifest, from, to);
                for (long k = b; k <= lastBlock; k++) {
                    final int off = (int) ((k - b) * block);
                    // a run of one block is kept as fetched; a longer run is cut into its blocks
                    final byte[] one = lastBlock == b ? run : java.util.Arrays.copyOfRange(run, off, (int) Math.min(run.length,
                        off + (long) block));
                    if (cache != null) {
                        cache.put(new RangeCache.BlockKey(cacheKey, k), one);
                    }
                    if (k == b) {
                        data = one;
                    }
                }
                if (cache == null || lastBlock > b) {
                    // copy straight from the run: later blocks of it may already be evicted again
                    final int off = (int) (at - from);
                    final int n = (int) Math.min(dst.remaining(), run.length - off);
                    dst.put(run, off, n);
                    at += n;
                    continue;
                }
            }
            final int off = (int) (at - b * block);
            final int n = Math.min(dst.remaining(), data.length - off);
            dst.put(data, off, n);
            at += n;
        }
    }

    private boolean cached(final RangeCache cache, final long block) {
        return cache.contains(new RangeCache.BlockKey(cacheKey, block));
    }

    /** One reader's position. */
    private final class Stream extends PositionedInputStream {
        Stream() {
            super(manifest.bytes());
        }

        /** Blocks live in the cache; a read ends at the object's end. */
        @Override
        protected int readAt(final long position, final ByteBuffer dst) throws IOException {
            final int n = (int) Math.min(dst.remaining(), manifest.bytes() - position);
            ObjectInputFile.this.readAt(position, dst.slice(dst.position(), n));
            dst.position(dst.position() + n);
            return n;
        }
    }
}
