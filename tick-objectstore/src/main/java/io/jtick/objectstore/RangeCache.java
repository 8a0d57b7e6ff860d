package io.jtick.objectstore;

import io.jtick.core.metrics.TickMetrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bounded local cache of the cold tier: fixed-size aligned blocks of objects (the last block of
 * an object may be shorter), kept in memory up to a byte budget, least recently used evicted first.
 * A block is keyed by the object's key and its version (its ETag), so a republished object is never
 * read from a stale block. Counts {@code tick.hdb.cold.cache.hits}, {@code .misses},
 * {@code .evictions} and exposes {@code tick.hdb.cold.cache.bytes}.
 *
 * <p>A lookup takes no lock (a concurrent map, and a plain write of the block's last-use stamp), so
 * warm reads of several query threads do not queue on the cache; only an insertion that goes over the
 * budget takes the eviction lock, and it evicts the least recently stamped blocks down to 7/8 of the
 * budget in one pass, so eviction is paid once per many insertions rather than on every one.
 *
 * <p>Under it, when configured, the {@link DiskBlockCache}: a block missing in memory is looked for
 * on disk (and kept in memory when found there), and a block fetched from the store is kept in both,
 * so a restarted HDB reads again from local disk what it fetched before. With a memory budget of 0
 * and a disk tier, every read goes to disk.
 */
final class RangeCache {
    /** One block of one version of one object. */
    record BlockKey(String object, long block) {
    }

    /**
     * A cached block and when it was last read: the cache's clock, which ticks on each insertion, so
     * blocks read since the last insertion tie (an LRU at insertion granularity, without a shared
     * counter written on every read).
     */
    private static final class Entry {
        final byte[] data;
        volatile long used;

        Entry(final byte[] data, final long used) {
            this.data = data;
            this.used = used;
        }
    }

    private final long capacity;
    private final DiskBlockCache disk;
    private final ConcurrentHashMap<BlockKey, Entry> blocks = new ConcurrentHashMap<>(256);
    private final AtomicLong clock = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong hits;
    private final AtomicLong misses;
    private final AtomicLong evictions;

    RangeCache(final long capacity, final TickMetrics metrics) {
        this(capacity, null, metrics);
    }

    /** A memory tier of {@code capacity} bytes over {@code disk} (null: none). */
    RangeCache(final long capacity, final DiskBlockCache disk, final TickMetrics metrics) {
        this.capacity = capacity;
        this.disk = disk;
        this.hits = metrics.counter("tick.hdb.cold.cache.hits");
        this.misses = metrics.counter("tick.hdb.cold.cache.misses");
        this.evictions = metrics.counter("tick.hdb.cold.cache.evictions");
        metrics.gauge("tick.hdb.cold.cache.bytes", this::bytes);
    }

    /** The block from memory or else from disk, or null (counted as a hit or a miss of each tier asked). */
    byte[] get(final BlockKey key) {
        final Entry e = blocks.get(key);
        if (e == null) {
            misses.incrementAndGet();
            final byte[] b = disk == null ? null : disk.get(key);
            if (b != null) {
                keep(key, b);
            }
            return b;
        }
        e.used = clock.get();
        hits.incrementAndGet();
        return e.data;
    }

    /**
     * Keeps a block fetched from the store in memory and on disk, evicting the least recently used ones
     * beyond each budget (a block larger than a budget is not kept in that tier).
     */
    void put(final BlockKey key, final byte[] block) {
        if (disk != null) {
            disk.put(key, block);
        }
        keep(key, block);
    }

    /** Keeps a block in memory. */
    private void keep(final BlockKey key, final byte[] block) {
        if (block.length > capacity) {
            return;
        }
        final Entry old = blocks.put(key, new Entry(block, clock.incrementAndGet()));
        if (bytes.addAndGet(block.length - (old == null ? 0L : old.data.length)) > capacity) {
            evict();
        }
    }

    /** Evicts the least recently used blocks down to 7/8 of the budget. */
    private synchronized void evict() {
        if (bytes.get() <= capacity) {
            return;
        }
        final List<Map.Entry<BlockKey, Entry>> all = new ArrayList<>(blocks.entrySet());
        all.sort((a, b) -> Long.compare(a.getValue().used, b.getValue().used));
        final long target = capacity - capacity / 8;
        for (int i = 0; i < all.size() && bytes.get() > target; i++) {
            final Map.Entry<BlockKey, Entry> e = all.get(i);
            if (blocks.remove(e.getKey(), e.getValue())) {
                bytes.addAndGet(-e.getValue().data.length);
                evictions.incrementAndGet();
            }
        }
    }

    /** True when the block is held in memory or on disk (not counted, not touched). */
    boolean contains(final BlockKey key) {
        return blocks.containsKey(key) || disk != null && disk.contains(key);
    }

    /** The disk tier, or null. */
    DiskBlockCache disk() {
        return disk;
    }

    long bytes() {
        return bytes.get();
    }

    int blockCount() {
        return blocks.size();
    }
}
