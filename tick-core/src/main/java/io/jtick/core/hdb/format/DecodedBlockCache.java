package io.jtick.core.hdb.format;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Decoded blocks of encoded column files, shared by every thread of the process and bounded in
 * bytes: what point and scattered reads hit (one row's value, binary-search probes, as-of
 * matches), so that a block is decoded once for them, not once per row. Scans do not come here:
 * they decode straight into the reader's own buffers ({@link ColumnFile#read}).
 *
 * <p>Memory: the values of the cached blocks (raw bytes, one typed array per block) stay at or
 * under {@link #capacityBytes()}, {@value #DEFAULT_CAPACITY_BYTES} bytes unless set otherwise
 * ({@code tick.hdb.decoded-block-cache} in hdb-service), plus {@value #SLOTS} slots of table.
 * Entries are immutable: a reader keeps using an entry it found even if it is evicted meanwhile
 * (the garbage collector frees it after). Lookups take no lock; inserts and evictions take this
 * object's lock. Replacement is CLOCK (a hit sets the entry's reference bit; the hand clears it
 * or evicts).
 *
 * <p>Keys are a file id and a block number. {@link ColumnFile}s take positive ids; other formats'
 * readers (the Parquet tier's decoded pages) take negative ones, so the two never meet.
 */
public final class DecodedBlockCache {
    /** 64 MiB. */
    public static final long DEFAULT_CAPACITY_BYTES = 64L << 20;
    static final int SLOTS = 1 << 13;
    private static final int WINDOW = 8;
    private static final DecodedBlockCache SHARED = new DecodedBlockCache(DEFAULT_CAPACITY_BYTES);

    private final AtomicReferenceArray<Entry> slots = new AtomicReferenceArray<>(SLOTS);
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private volatile long capacity;
    private long bytes;
    private int hand;

    DecodedBlockCache(final long capacityBytes) {
        capacityBytes(capacityBytes);
    }

    /** The process's cache, which every {@link ColumnFile} uses. */
    public static DecodedBlockCache shared() {
        return SHARED;
    }

    /** One decoded block: rows {@code [firstRow, firstRow + rows)} of one file, values in a typed array (never written once added). */
    public static final class Entry {
        final long fileId;
        final int block;
        final int firstRow;
        final Object values;
        final int bytes;
        volatile boolean referenced;

        public Entry(final long fileId, final int block, final int firstRow, final Object values, final int bytes) {
            this.fileId = fileId;
            this.block = block;
            this.firstRow = firstRow;
            this.values = values;
            this.bytes = bytes;
        }

        /** The decoded values (read only). */
        public Object values() {
            return values;
        }
    }

    /** Bytes of decoded values the cache may hold. */
    public long capacityBytes() {
        return capacity;
    }

    /** Sets the bound (0 turns the cache off: every point read decodes); evicts down to it. */
    public synchronized void capacityBytes(final long capacityBytes) {
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("decoded block cache size must not be negative [bytes=" + capacityBytes + "]");
        }
        capacity = capacityBytes;
        evictOverCapacity();
    }

    /** Bytes of decoded values held now. */
    public synchronized long bytes() {
        return bytes;
    }

    public long hits() {
        return hits.sum();
    }

    public long misses() {
        return misses.sum();
    }

    /** Drops every block (the compression study: each measured run decodes what it reads). */
    public synchronized void clear() {
        for (int i = 0; i < SLOTS; i++) {
            slots.set(i, null);
        }
        bytes = 0;
    }

    /** The cached block, or null (counted as a hit or a miss). */
    public Entry find(final long fileId, final int block) {
        final int h = slot(fileId, block);
        for (int k = 0; k < WINDOW; k++) {
            final Entry e = slots.get((h + k) & (SLOTS - 1));
            if (e != null && e.fileId == fileId && e.block == block) {
                if (!e.referenced) {
                    e.referenced = true;
                }
                hits.increment();
                return e;
            }
        }
        misses.increment();
        return null;
    }

    /** Adds a decoded block (or returns the one another thread added meanwhile; {@code e} itself when over capacity). */
    public synchronized Entry add(final Entry e) {
        if (e.bytes > capacity) {
            return e;
        }
        final int h = slot(e.fileId, e.block);
        int free = -1;
        int victim = -1;
        for (int k = 0; k < WINDOW; k++) {
            final int i = (h + k) & (SLOTS - 1);
            final Entry o = slots.get(i);
            if (o == null) {
                free = free < 0 ? i : free;
            } else if (o.fileId == e.fileId && o.block == e.block) {
                return o;
            } else if (victim < 0 && !o.referenced) {
                victim = i;
            } else {
                o.referenced = false;
            }
        }
        final int at = free >= 0 ? free : victim >= 0 ? victim : h;
        final Entry old = slots.get(at);
        if (old != null) {
            bytes -= old.bytes;
        }
        slots.set(at, e);
        bytes += e.bytes;
        evictOverCapacity();
        return e;
    }

    private void evictOverCapacity() {
        int guard = 2 * SLOTS;
        while (bytes > capacity && guard-- > 0) {
            final int i = hand;
            hand = (hand + 1) & (SLOTS - 1);
            final Entry o = slots.get(i);
            if (o == null) {
                continue;
            }
            if (o.referenced && guard > SLOTS) {
                o.referenced = false;
            } else {
                slots.set(i, null);
                bytes -= o.bytes;
            }
        }
    }

    private static int slot(final long fileId, final int block) {
        long h = fileId * 0x9E3779B97F4A7C15L + block;
        h ^= h >>> 29;
        h *= 0xBF58476D1CE4E5B9L;
        return (int) (h ^ h >>> 32) & (SLOTS - 1);
    }
}
