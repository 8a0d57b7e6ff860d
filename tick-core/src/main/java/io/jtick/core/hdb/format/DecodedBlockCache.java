package io.jtick.core.hdb.format;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Decoded blocks of encoded column files, shared by every thread of the process and bounded in
 * bytes: what point and scattered reads hit (one row's value, binary-search probes, as-of
 * matches), so that a block is decoded once for them, not once per row, and the blocks of a column
 * small enough to keep whole ({@link #keepsWhole}) once read a second time, so that a query asked
 * again copies them instead of decoding them. Other scans do not come here: they decode straight
 * into the reader's own buffers ({@link ColumnFile#read}).
 *
 * <p>Memory: the values of the cached blocks (raw bytes, one typed array per block) stay at or
 * under {@link #capacityBytes()}: by default a quarter of the heap and at least
 * {@value #DEFAULT_CAPACITY_BYTES} bytes ({@link #defaultCapacityBytes()}; {@code tick.hdb.decoded-block-cache}
 * in hdb-service sets it), plus a table of one slot per {@value #BYTES_PER_SLOT} bytes of capacity
 * (at least {@value #MIN_SLOTS}), so that a full cache of the smallest blocks (Parquet pages of 8,192
 * four-byte values) still has room in its table.
 * Entries are immutable: a reader keeps using an entry it found even if it is evicted meanwhile
 * (the garbage collector frees it after). Lookups take no lock; inserts and evictions take this
 * object's lock. Replacement is CLOCK (a hit sets the entry's reference bit; the hand clears it
 * or evicts).
 *
 * <p>Keys are a file id and a block number. {@link ColumnFile}s take positive ids; other formats'
 * readers (the Parquet tier's decoded pages) take negative ones, so the two never meet.
 */
public final class DecodedBlockCache {
    /** 64 MiB: the least default capacity. */
    public static final long DEFAULT_CAPACITY_BYTES = 64L << 20;
    static final int MIN_SLOTS = 1 << 13;
    static final int BYTES_PER_SLOT = 16 << 10;
    private static final int MAX_SLOTS = 1 << 22;
    private static final int WINDOW = 8;
    private static final DecodedBlockCache SHARED = new DecodedBlockCache(defaultCapacityBytes());

    /** Replaced (under this object's lock) when the capacity asks for another size; lookups read it once. */
    private volatile AtomicReferenceArray<Entry> slots = new AtomicReferenceArray<>(MIN_SLOTS);
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private volatile long capacity;
    /** Counts {@link #clear()}s: readers that count reads of a block towards caching it start again when it changes. */
    private volatile int generation;
    private long bytes;
    private int hand;

    DecodedBlockCache(final long capacityBytes) {
        capacityBytes(capacityBytes);
    }

    /**
     * The capacity of the process's cache unless set: a quarter of the heap ({@code -Xmx}), at least
     * {@value #DEFAULT_CAPACITY_BYTES} bytes, so that the scans of a large day's columns (a 10M-row
     * day: 40-80 MB a column) stay decoded when the heap has room for them.
     */
    public static long defaultCapacityBytes() {
        final long heap = Runtime.getRuntime().maxMemory();
        return heap == Long.MAX_VALUE ? DEFAULT_CAPACITY_BYTES : Math.max(DEFAULT_CAPACITY_BYTES, heap / 4);
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

    /**
     * True when a column of {@code rawBytes} decoded is small enough for a scan to keep all of it
     * here: a quarter of the capacity, so a query's two or three largest columns of one day (a 10M-row
     * day's 80 MB price column under {@code ./jtick up}'s ~430 MB cache) stay decoded between queries
     * while one scan cannot push everything else out.
     */
    public boolean keepsWhole(final long rawBytes) {
        return rawBytes <= capacity >> 2;
    }

    /** Sets the bound (0 turns the cache off: every point read decodes); evicts down to it, and sizes the table to it. */
    public synchronized void capacityBytes(final long capacityBytes) {
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("decoded block cache size must not be negative [bytes=" + capacityBytes + "]");
        }
        capacity = capacityBytes;
        evictOverCapacity();
        final int want = slotsFor(capacityBytes);
        final AtomicReferenceArray<Entry> old = slots;
        if (want != old.length()) {
            slots = new AtomicReferenceArray<>(want);
            hand = 0;
            bytes = 0;
            for (int i = 0; i < old.length(); i++) {
                final Entry e = old.get(i);
                if (e != null) {
                    add(e);
                }
            }
        }
    }

    /** Slots for a capacity: one per {@value #BYTES_PER_SLOT} bytes, a power of two from {@value #MIN_SLOTS}. */
    static int slotsFor(final long capacityBytes) {
        final long n = Math.min(MAX_SLOTS, Math.max(MIN_SLOTS, capacityBytes / BYTES_PER_SLOT));
        return Long.bitCount(n) == 1 ? (int) n : (int) Long.highestOneBit(n) << 1;
    }

    /** Slots in the table now. */
    int slotCount() {
        return slots.length();
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

    /**
     * Drops every block and what readers counted towards caching one ({@link #generation()}): the
     * cache is then as after a start, and the next reads decode what they read (the compression
     * study's first-read runs).
     */
    public synchronized void clear() {
        final AtomicReferenceArray<Entry> s = slots;
        for (int i = 0; i < s.length(); i++) {
            s.set(i, null);
        }
        bytes = 0;
        generation++;
    }

    /** Changes at every {@link #clear()}: counts of reads towards caching a block taken under another generation no longer hold. */
    public int generation() {
        return generation;
    }

    /**
     * Drops the blocks of one file (a {@link ColumnFile} that closes: no reader can ask for them again,
     * and the start-up query warm-up's deleted partitions would otherwise hold their share of the heap
     * until other blocks push them out). One pass over the table, under this object's lock.
     */
    public synchronized void evictFile(final long fileId) {
        final AtomicReferenceArray<Entry> s = slots;
        for (int i = 0; i < s.length(); i++) {
            final Entry e = s.get(i);
            if (e != null && e.fileId == fileId) {
                s.set(i, null);
                bytes -= e.bytes;
            }
        }
    }

    /** The cached block, or null (counted as a hit or a miss). */
    public Entry find(final long fileId, final int block) {
        final AtomicReferenceArray<Entry> s = slots;
        final int mask = s.length() - 1;
        final int h = slot(fileId, block) & mask;
        for (int k = 0; k < WINDOW; k++) {
            final Entry e = s.get((h + k) & mask);
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
        final AtomicReferenceArray<Entry> table = slots;
        final int mask = table.length() - 1;
        final int h = slot(e.fileId, e.block) & mask;
        int free = -1;
        int victim = -1;
        for (int k = 0; k < WINDOW; k++) {
            final int i = (h + k) & mask;
            final Entry o = table.get(i);
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
        final Entry old = table.get(at);
        if (old != null) {
            bytes -= old.bytes;
        }
        table.set(at, e);
        bytes += e.bytes;
        evictOverCapacity();
        return e;
    }

    private void evictOverCapacity() {
        final AtomicReferenceArray<Entry> table = slots;
        final int n = table.length();
        int guard = 2 * n;
        while (bytes > capacity && guard-- > 0) {
            final int i = hand;
            hand = (hand + 1) & (n - 1);
            final Entry o = table.get(i);
            if (o == null) {
                continue;
            }
            if (o.referenced && guard > n) {
                o.referenced = false;
            } else {
                table.set(i, null);
                bytes -= o.bytes;
            }
        }
    }

    private static int slot(final long fileId, final int block) {
        long h = fileId * 0x9E3779B97F4A7C15L + block;
        h ^= h >>> 29;
        h *= 0xBF58476D1CE4E5B9L;
        return (int) (h ^ h >>> 32);
    }
}
