package io.jtick.objectstore;

import io.jtick.core.metrics.TickMetrics;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bounded local cache of the cold tier: fixed-size aligned blocks of objects (the last block of
 * an object may be shorter), kept in memory up to a byte budget, least recently used evicted first.
 * A block is keyed by the object's key and its version (its ETag), so a republished object is never
 * read from a stale block. Counts {@code tick.hdb.cold.cache.hits}, {@code .misses},
 * {@code .evictions} and exposes {@code tick.hdb.cold.cache.bytes}.
 */
final class RangeCache {
    /** One block of one version of one object. */
    record BlockKey(String object, long block) {
    }

    private final long capacity;
    private final LinkedHashMap<BlockKey, byte[]> blocks = new LinkedHashMap<>(256, 0.75f, true);
    private final AtomicLong hits;
    private final AtomicLong misses;
    private final AtomicLong evictions;
    private long bytes;

    RangeCache(final long capacity, final TickMetrics metrics) {
        this.capacity = capacity;
        this.hits = metrics.counter("tick.hdb.cold.cache.hits");
        this.misses = metrics.counter("tick.hdb.cold.cache.misses");
        this.evictions = metrics.counter("tick.hdb.cold.cache.evictions");
        metrics.gauge("tick.hdb.cold.cache.bytes", this::bytes);
    }

    /** The block, or null (counted as a hit or a miss). */
    byte[] get(final BlockKey key) {
        final byte[] b;
        synchronized (this) {
            b = blocks.get(key);
        }
        (b == null ? misses : hits).incrementAndGet();
        return b;
    }

    /** Keeps a block, evicting the least recently used ones beyond the budget (a block larger than the budget is not kept). */
    void put(final BlockKey key, final byte[] block) {
        if (block.length > capacity) {
            return;
        }
        synchronized (this) {
            final byte[] old = blocks.put(key, block);
            bytes += block.length - (old == null ? 0 : old.length);
            final Iterator<Map.Entry<BlockKey, byte[]>> it = blocks.entrySet().iterator();
            while (bytes > capacity && it.hasNext()) {
                final Map.Entry<BlockKey, byte[]> e = it.next();
                bytes -= e.getValue().length;
                it.remove();
                evictions.incrementAndGet();
            }
        }
    }

    /** True when the block is held (not counted, not touched). */
    synchronized boolean contains(final BlockKey key) {
        return blocks.containsKey(key);
    }

    synchronized long bytes() {
        return bytes;
    }

    synchronized int blockCount() {
        return blocks.size();
    }
}
