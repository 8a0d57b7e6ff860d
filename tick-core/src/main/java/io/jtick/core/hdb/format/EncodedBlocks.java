package io.jtick.core.hdb.format;

import io.jtick.core.schema.ColumnType;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The encoded blocks of one column file and where their decoded values go: each block is read
 * from the map (or positionally past 2 GiB), checksummed, decompressed and un-transformed
 * ({@link BlockDecoder}) straight into the caller's array, into a reader's own {@link DecodedBlock}
 * ({@link #load}), or into the process's {@link DecodedBlockCache} ({@link #cached}); which one a
 * read takes is {@link #view}'s and {@link ColumnFile#read}'s choice. A block whose checksum,
 * length or encoding is wrong raises {@link CorruptPartitionException} wrapped in
 * {@link UncheckedIOException}. The per-thread buffers of the decode path live here.
 *
 * <p>{@link ColumnFile#close} closes this first: a decode after that throws
 * {@link IllegalStateException} instead of reading an unmapped file.
 */
final class EncodedBlocks {
    private static final ThreadLocal<DecodeScratch> SCRATCH = ThreadLocal.withInitial(DecodeScratch::new);
    private static final long BYTE_BASE = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final long LONG_BASE = UnsafeApi.arrayBaseOffset(long[].class);
    /** Binary searches in a block (of a column the shared cache keeps whole) after which the block is decoded into the cache. */
    static final int SEARCHES_TO_CACHE = 4;
    /**
     * Reads of a block (of a column the shared cache keeps whole) at which it is decoded into the cache:
     * the first decodes only what it reads (a version 3 file's sub-blocks); a block read again is kept decoded.
     */
    static final int READS_TO_CACHE = 2;

    private final long id;
    private final Path path;
    private final ColumnType type;
    private final ColumnEncoding encoding;
    private final int width;
    private final int blockRows;
    private final long rawBytes;
    private final int[] blockFirstRow;
    private final long[] blockOffsets;
    private final int[] blockLengths;
    private final int[] blockCrcs;
    private final FileChannel channel;
    /** The values region mapped read-only, or null past 2 GiB (blocks are then read positionally). */
    private final MappedByteBuffer mapped;
    /** Unsafe offset of element 0 in this column's typed array ({@link ColumnType#newArray}). */
    private final long valuesBase;
    /** Rows per sub-block (version 3), 0 when each block decodes only whole. */
    private final int subRows;
    /** Version 3: blocks whose checksum has passed once (1), so that reads of a few rows of them do not checksum the block each time. */
    private final byte[] verified;
    /** Version 3: binary searches in each block that decoded a sub-block, up to {@value #SEARCHES_TO_CACHE} ({@link #lowerBound}). */
    private final byte[] searches;
    /**
     * Reads of each block not found in the shared cache, up to {@value #READS_TO_CACHE}, of a
     * column the cache keeps whole ({@link #copy}); with {@link #searches}, counted since the
     * cache's {@link #countedGeneration}.
     */
    private final byte[] reads;
    /** The shared cache's {@link DecodedBlockCache#generation()} the counts belong to; older counts are dropped. */
    private volatile int countedGeneration;
    private volatile boolean closed;
    /** Set once a block of this file went into the shared cache, so that {@link #close} drops them only when there are some. */
    private volatile boolean addedToCache;

    EncodedBlocks(final long id, final Path path, final ColumnFileHeader h, final FileChannel channel, final MappedByteBuffer mapped,
                  final long valuesBase) {
        this.id = id;
        this.path = path;
        this.type = h.type;
        this.encoding = h.encoding;
        this.width = h.type.width();
        this.blockRows = h.blockRows;
        this.rawBytes = (long) h.rows * width;
        this.blockFirstRow = h.firstRows;
        this.blockOffsets = h.offsets;
        this.blockLengths = h.lengths;
        this.blockCrcs = h.crcs;
        this.channel = channel;
        this.mapped = mapped;
        this.valuesBase = valuesBase;
        this.subRows = h.subRows;
        this.verified = h.subRows > 0 ? new byte[h.blockCount] : null;
        this.searches = h.subRows > 0 ? new byte[h.blockCount] : null;
        this.reads = new byte[h.blockCount];
        this.countedGeneration = DecodedBlockCache.shared().generation();
    }

    /** Empties this thread's own part block. */
    static void clearThreadBlock() {
        SCRATCH.get().held.fileId = -1;
    }

    private int rowsIn(final int block) {
        return blockFirstRow[block + 1] - blockFirstRow[block];
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("column file closed [file=" + path + "]");
        }
    }

    /** Marks the blocks closed and drops those it put in the shared cache; the owning {@link ColumnFile} unmaps the file after. */
    void close() {
        closed = true;
        if (addedToCache) {
            DecodedBlockCache.shared().evictFile(id);
        }
    }

    /**
     * Copies rows {@code [inBlock, inBlock + n)} of {@code block} ({@code rows} rows) into
     * {@code (dst, at)} for {@link ColumnFile#read}: for a column the shared cache keeps whole, as
     * {@link #copyKept}; else a whole block from the shared cache or decoded straight into
     * {@code dst}, a part block through its sub-blocks, this thread's own block, the shared cache or
     * {@code holder}, by the reader's kind (see {@link ColumnFile#read}).
     */
    void copy(final int block, final int inBlock, final int rows, final int n, final Object dst, final long at,
              final DecodedBlock holder) {
        if (cachedWhole()) {
            if (holder != null && holder.fileId == id && holder.block == block) {
                UnsafeApi.copyMemory(holder.values, valuesBase + (long) inBlock * width, dst, at, (long) n * width);
                holder.touched(block);
            } else {
                copyKept(block, inBlock, rows, n, dst, at, holder);
            }
            return;
        }
        if (readsPart(block, n, holder)) {
            final DecodedBlockCache.Entry e = DecodedBlockCache.shared().find(id, block);
            if (e != null) {
                UnsafeApi.copyMemory(e.values, valuesBase + (long) inBlock * width, dst, at, (long) n * width);
            } else {
                decodeRows(block, inBlock, n, dst, at);
            }
            if (holder != null) {
                holder.touched(block);
            }
            return;
        }
        if (holder == null && n == rows) {
            final DecodedBlockCache.Entry e = DecodedBlockCache.shared().find(id, block);
            if (e != null) {
                UnsafeApi.copyMemory(e.values, valuesBase, dst, at, (long) n * width);
            } else {
                decodeInto(block, dst, at);
            }
        } else if (holder == null) {
            // a part block for a reader that keeps no holder: this thread's own (sequential readers decode each block once)
            // (or the shared cache's copy when a point read or binary search just decoded it)
            final DecodedBlockCache.Entry e = DecodedBlockCache.shared().find(id, block);
            if (e != null) {
                UnsafeApi.copyMemory(e.values, valuesBase + (long) inBlock * width, dst, at, (long) n * width);
            } else {
                final DecodedBlock own = SCRATCH.get().held;
                load(block, own);
                UnsafeApi.copyMemory(own.values, valuesBase + (long) inBlock * width, dst, at, (long) n * width);
            }
        } else if (!holder.scanning()) {
            final DecodedBlockCache.Entry e = cached(block);
            UnsafeApi.copyMemory(e.values, valuesBase + (long) inBlock * width, dst, at, (long) n * width);
            holder.touched(block);
        } else if (n == rows) {
            decodeInto(block, dst, at);
            holder.touched(block);
        } else {
            load(block, holder);
            UnsafeApi.copyMemory(holder.values, valuesBase + (long) inBlock * width, dst, at, (long) n * width);
        }
    }

    /**
     * {@link #copy} for a column the shared cache keeps whole: from the cache when the block is
     * there; else the block is decoded into the cache on its {@value #READS_TO_CACHE}th read (a
     * query asked again finds it decoded), and before that only what is read is decoded: a whole
     * block straight into {@code dst}, part of a version 3 block its sub-blocks, part of another
     * block into {@code holder} or this thread's own block.
     */
    private void copyKept(final int block, final int inBlock, final int rows, final int n, final Object dst, final long at,
                          final DecodedBlock holder) {
        DecodedBlockCache.Entry e = DecodedBlockCache.shared().find(id, block);
        if (e == null && readAgain(block, inBlock, n)) {
            e = decodeToCache(block);
        }
        if (e != null) {
            UnsafeApi.copyMemory(e.values, valuesBase + (long) inBlock * width, dst, at, (long) n * width);
        } else if (n == rows) {
            decodeInto(block, dst, at);
        } else if (subRows > 0) {
            decodeRows(block, inBlock, n, dst, at);
        } else {
            final DecodedBlock own = load(block, holder != null ? holder : SCRATCH.get().held);
            UnsafeApi.copyMemory(own.values, valuesBase + (long) inBlock * width, dst, at, (long) n * width);
        }
        if (holder != null) {
            holder.touched(block);
        }
    }

    /**
     * Counts a read of rows {@code [inBlock, inBlock + n)} of {@code block} ({@link #counted}); true on its
     * {@value #READS_TO_CACHE}th. A read that goes on where this thread's last read of the block ended is
     * the same read (a scan's next batch) and does not count.
     */
    private boolean readAgain(final int block, final int inBlock, final int n) {
        final DecodeScratch s = SCRATCH.get();
        final boolean goesOn = s.readFile == id && s.readBlock == block && s.readEnd == inBlock;
        s.readFile = id;
        s.readBlock = block;
        s.readEnd = inBlock + n;
        return !goesOn && counted(reads, block, READS_TO_CACHE);
    }

    /**
     * Counts one more use of {@code block} in {@code counts} since the shared cache was last emptied;
     * true at the {@code limit}th. Not atomic: a count lost to a race only delays the caching by a use.
     */
    private boolean counted(final byte[] counts, final int block, final int limit) {
        final int g = DecodedBlockCache.shared().generation();
        if (g != countedGeneration) {
            Arrays.fill(reads, (byte) 0);
            if (searches != null) {
                Arrays.fill(searches, (byte) 0);
            }
            countedGeneration = g;
        }
        final int c = counts[block];
        if (c + 1 >= limit) {
            return true;
        }
        counts[block] = (byte) (c + 1);
        return false;
    }

    /**
     * Reads, checks and decodes block {@code block} straight into {@code (dst, dstOffset)} (Unsafe
     * base and offset; room for the block's raw bytes): the stored bytes are checksummed and
     * decompressed from the map, un-transformed from the decompressed bytes.
     */
    void decodeInto(final int block, final Object dst, final long dstOffset) {
        if (subRows > 0) {
            decodeRows(block, 0, rowsIn(block), dst, dstOffset);
            return;
        }
        checkOpen();
        final int rawLength = rowsIn(block) * width;
        final int encodedLength = rawLength + encoding.transform().overhead();
        final int storedLength = blockLengths[block];
        final DecodeScratch s = SCRATCH.get();
        try {
            final long base = stored(block, s);
            final ByteBuffer src = mapped != null ? mapped : s.storedBuffer();
            final int srcOff = (int) (base - BufferUtil.address(src));
            final Codec codec = encoding.codec();
            if (codec == Codec.NONE) {
                if (storedLength != encodedLength) {
                    throw new IOException("stored length differs from raw length [stored=" + storedLength + ", raw=" + encodedLength + "]");
                }
                s.decoder.decode(encoding.transform(), null, base, rawLength, type, dst, dstOffset);
            } else {
                final ByteBuffer out = s.out(encodedLength);
                codec.decompress(src, srcOff, storedLength, out, encodedLength);
                s.decoder.decode(encoding.transform(), null, BufferUtil.address(out), rawLength, type, dst, dstOffset);
            }
        } catch (final CorruptPartitionException e) {
            throw new UncheckedIOException(e);
        } catch (final IOException | IllegalArgumentException e) {
            throw new UncheckedIOException(new CorruptPartitionException(path, block, "block does not decode: " + e.getMessage(), e));
        }
    }

    /** True when a read of some rows of a block decodes only their sub-blocks (version 3). */
    boolean partial() {
        return subRows > 0;
    }

    /**
     * True when a read of {@code n} rows of {@code block} decodes only the sub-blocks that hold
     * them (version 3) rather than the whole block: fewer rows than the block has, a column too
     * large to stay decoded in the shared cache, and the block not already in the reader's holder.
     */
    boolean readsPart(final int block, final int n, final DecodedBlock holder) {
        return subRows > 0 && n < rowsIn(block) && !(holder != null && holder.fileId == id && holder.block == block) && !cachedWhole();
    }

    /**
     * Version 3: decodes rows {@code [inBlock, inBlock + n)} of {@code block} into {@code (dst, at)},
     * only the sub-blocks that hold them (the block is checksummed whole the first time it is read).
     * A sub-block wholly inside the rows decodes straight into {@code dst}; the first and last,
     * when they hold rows outside, decode into this thread's scratch and the rows are copied out;
     * the sub-block this thread's last time search decoded ({@link #lowerBound}) is copied from there.
     */
    void decodeRows(final int block, final int inBlock, final int n, final Object dst, final long at) {
        checkOpen();
        final DecodeScratch s = SCRATCH.get();
        final int rows = rowsIn(block);
        try {
            final long base = stored(block, s);
            final int k = ColumnFileDescriptor.subBlocks(rows, subRows);
            final int end = inBlock + n;
            long to = at;
            for (int i = inBlock / subRows; i < k && i * subRows < end; i++) {
                final int first = i * subRows;
                final int count = Math.min(subRows, rows - first);
                final int a = Math.max(inBlock, first);
                final int z = Math.min(end, first + count);
                final DecodeScratch.SearchedSub searched = s.searched(id, block, i);
                if (searched != null) {
                    // a sub-block the time search just decoded (a window's read of the time column it searched)
                    UnsafeApi.copyMemory(searched.values, LONG_BASE + (long) (a - first) * width, dst, to, (long) (z - a) * width);
                } else if (a == first && z == first + count) {
                    decodeSub(block, base, k, i, count, s, dst, to);
                } else {
                    final byte[] tmp = s.sub(subRows * width);
                    decodeSub(block, base, k, i, count, s, tmp, BYTE_BASE);
                    UnsafeApi.copyMemory(tmp, BYTE_BASE + (long) (a - first) * width, dst, to, (long) (z - a) * width);
                }
                to += (long) (z - a) * width;
            }
        } catch (final CorruptPartitionException e) {
            throw new UncheckedIOException(e);
        } catch (final IOException | IllegalArgumentException e) {
            throw new UncheckedIOException(new CorruptPartitionException(path, block, "block does not decode: " + e.getMessage(), e));
        }
    }

    /**
     * First row in {@code [lo, hi)} (rows of {@code block}, a long column non-decreasing over them)
     * whose value is at least {@code t}, or {@code hi}: in the shared cache's decoded block when it
     * has it ({@link #searchedWhole}), else the sub-blocks' first values (version 3) pick the one
     * sub-block to decode, which is then searched.
     */
    int lowerBound(final int block, final int lo, final int hi, final long t) {
        checkOpen();
        final DecodedBlockCache.Entry whole = searchedWhole(block);
        if (whole != null) {
            return TimeSearch.lowerBound(whole.values, valuesBase - (long) whole.firstRow * width, lo, hi, t);
        }
        final DecodeScratch s = SCRATCH.get();
        final int firstRow = blockFirstRow[block];
        final int rows = rowsIn(block);
        try {
            final long base = stored(block, s);
            final int k = ColumnFileDescriptor.subBlocks(rows, subRows);
            // sub-blocks that start inside (lo, hi) have their first value in the range: search them
            int a = (lo - firstRow) / subRows + 1;
            int z = (hi - 1 - firstRow) / subRows + 1;
            while (a < z) {
                final int mid = (a + z) >>> 1;
                if (UnsafeApi.getLong(null, base + 4L * k + 8L * mid) < t) {
                    a = mid + 1;
                } else {
                    z = mid;
                }
            }
            // rows from sub-block a on are >= t: the answer is in sub-block a - 1 (within [lo, hi)) or is its end
            final int sub = a - 1;
            final int subFirst = firstRow + sub * subRows;
            final int count = Math.min(subRows, rows - sub * subRows);
            DecodeScratch.SearchedSub searched = s.searched(id, block, sub);
            if (searched == null) {
                searched = s.older(subRows);
                decodeSub(block, base, k, sub, count, s, searched.values, LONG_BASE);
                searched.file = id;
                searched.block = block;
                searched.index = sub;
            }
            final long[] values = searched.values;
            return TimeSearch.lowerBound(values, LONG_BASE - (long) subFirst * Long.BYTES, Math.max(lo, subFirst),
                Math.min(hi, subFirst + count), t);
        } catch (final CorruptPartitionException e) {
            throw new UncheckedIOException(e);
        } catch (final IOException | IllegalArgumentException e) {
            throw new UncheckedIOException(new CorruptPartitionException(path, block, "block does not decode: " + e.getMessage(), e));
        }
    }

    /**
     * The shared cache's decoded {@code block} for a binary search, or null to search one decoded
     * sub-block instead: the cache's entry when it has one; else, for a column the cache keeps
     * whole, the block decoded into the cache once {@value #SEARCHES_TO_CACHE} searches have gone
     * to it (a time column searched per sym by a time window each time the query runs: each search
     * would decode a sub-block again).
     */
    private DecodedBlockCache.Entry searchedWhole(final int block) {
        final DecodedBlockCache.Entry e = DecodedBlockCache.shared().find(id, block);
        if (e != null || !cachedWhole()) {
            return e;
        }
        return counted(searches, block, SEARCHES_TO_CACHE) ? cached(block) : null;
    }

    /** Checksums {@code block}'s stored bytes once (a version 3 block is then marked verified), for {@link ColumnFile#preload}. */
    void checksum(final int block) {
        checkOpen();
        try {
            stored(block, SCRATCH.get());
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The address of {@code block}'s stored bytes (in the map, or read into this thread's buffer
     * past 2 GiB), checksummed: a mapped version 3 block the first time it is read, any other on every read.
     */
    private long stored(final int block, final DecodeScratch s) throws IOException {
        final int storedLength = blockLengths[block];
        final ByteBuffer src;
        final int srcOff;
        if (mapped != null) {
            src = mapped;
            srcOff = (int) blockOffsets[block];
        } else {
            src = s.stored(storedLength);
            final ByteBuffer into = src.duplicate();
            into.clear().limit(storedLength);
            ColumnFileHeader.readFully(channel, into, blockOffsets[block]);
            srcOff = 0;
        }
        if (verified == null || verified[block] == 0 || mapped == null) {
            final ByteBuffer crcView = src.duplicate();
            crcView.limit(srcOff + storedLength).position(srcOff);
            s.crc.reset();
            s.crc.update(crcView);
            if ((int) s.crc.getValue() != blockCrcs[block]) {
                throw new CorruptPartitionException(path, block, "block checksum mismatch");
            }
            if (verified != null) {
                verified[block] = 1;
            }
        }
        return BufferUtil.address(src) + srcOff;
    }

    /**
     * Decompresses and un-transforms sub-block {@code i} ({@code count} rows) of the block stored
     * at {@code base} into {@code (dst, to)}.
     */
    private void decodeSub(final int block, final long base, final int k, final int i, final int count, final DecodeScratch s,
                           final Object dst, final long to) throws IOException {
        final int tableBytes = ColumnFileDescriptor.subTableBytes(k, type);
        final int from = i == 0 ? 0 : UnsafeApi.getInt(null, base + 4L * (i - 1));
        final int end = k == 1 ? blockLengths[block] : UnsafeApi.getInt(null, base + 4L * i);
        if (from < 0 || end < from || end > blockLengths[block] - tableBytes) {
            throw new CorruptPartitionException(path, block, "sub-block out of place [sub=" + i + ", from=" + from + ", end=" + end + "]");
        }
        final int rawLength = count * width;
        final int encodedLength = rawLength + encoding.transform().overhead();
        final ByteBuffer out = s.out(encodedLength);
        final ByteBuffer src = mapped != null ? mapped : s.storedBuffer();
        final long srcAddress = BufferUtil.address(src);
        encoding.codec().decompress(src, (int) (base - srcAddress) + tableBytes + from, end - from, out, encodedLength);
        s.decoder.decode(encoding.transform(), null, BufferUtil.address(out), rawLength, type, dst, to);
    }

    /**
     * True when the shared cache keeps this column's raw values whole ({@link DecodedBlockCache#keepsWhole}): every reader
     * then goes through the cache (a small table stays decoded between queries); a larger column
     * is scanned past it.
     */
    boolean cachedWhole() {
        return DecodedBlockCache.shared().keepsWhole(rawBytes);
    }

    /** A block from the shared cache, decoded into it on a miss. */
    DecodedBlockCache.Entry cached(final int block) {
        final DecodedBlockCache.Entry e = DecodedBlockCache.shared().find(id, block);
        return e != null ? e : decodeToCache(block);
    }

    /** Decodes a block the shared cache was just found not to hold into it. */
    private DecodedBlockCache.Entry decodeToCache(final int block) {
        final DecodedBlockCache cache = DecodedBlockCache.shared();
        final int rows = rowsIn(block);
        final Object values = type.newArray(rows);
        decodeInto(block, values, valuesBase);
        if (!addedToCache) {
            addedToCache = true;
        }
        return cache.add(new DecodedBlockCache.Entry(id, block, blockFirstRow[block], values, rows * width));
    }

    /**
     * Decodes {@code block} into {@code holder} unless it holds it already; returns the holder,
     * whose typed array then has row {@code firstRow(block) + i} at index {@code i}.
     */
    DecodedBlock load(final int block, final DecodedBlock holder) {
        if (holder.fileId == id && holder.block == block) {
            return holder;
        }
        final int rows = rowsIn(block);
        if (holder.values == null || holder.type != type || holder.capacity < rows) {
            holder.values = type.newArray(Math.max(rows, blockRows));
            holder.type = type;
            holder.capacity = Math.max(rows, blockRows);
        }
        holder.fileId = -1;
        decodeInto(block, holder.values, valuesBase);
        holder.fileId = id;
        holder.block = block;
        holder.firstRow = blockFirstRow[block];
        holder.rows = rows;
        holder.touched(block);
        return holder;
    }

    /**
     * The decoded values of {@code block} for a read of its rows {@code [inBlock, inBlock + n)} by the reader of
     * {@code holder}: the shared cache's entry while the reader is small, its own holder once it scans (as {@link ColumnFile#read});
     * for a column the cache keeps whole, the cache's entry when there or on the block's second read, else the holder.
     * Returns the typed array and sets {@code holder.viewFirstRow} to the row of its element 0.
     */
    Object view(final int block, final int inBlock, final int n, final DecodedBlock holder) {
        final boolean kept = cachedWhole();
        if ((!holder.scanning() || kept) && !(holder.fileId == id && holder.block == block)) {
            // a column the cache keeps whole: from the cache, into it on the block's second read, else into the holder
            DecodedBlockCache.Entry e = DecodedBlockCache.shared().find(id, block);
            if (e == null && (!kept || readAgain(block, inBlock, n))) {
                e = decodeToCache(block);
            }
            if (e != null) {
                holder.touched(block);
                holder.viewFirstRow = e.firstRow;
                return e.values;
            }
        }
        load(block, holder);
        holder.viewFirstRow = holder.firstRow;
        return holder.values;
    }
}
