package io.jtick.core.rdb;

import io.jtick.core.wire.UpdateDecoder;
import io.netty.buffer.ByteBuf;
import org.agrona.UnsafeApi;

/**
 * Maps an update's sym dictionary (its codes {@code 0..symCount-1}) to {@link SymbolCatalog} ids,
 * remembering the mapping of recent dictionaries by their content: a feed that sends the same
 * dictionary again (the same syms in the same order, as a snapshot feed or a fixed batch does)
 * gets the ids without a symbol being looked up. The dictionary found last is compared first, then
 * the one that followed it last time, with no hash (a feed repeating one dictionary, or cycling
 * through a fixed set in order, pays one compare of its bytes); otherwise the cost is one
 * hash (four independent lanes of eight bytes, so the multiplies overlap) and one compare. Dictionaries of fewer than
 * {@value #MIN_SYMS} symbols, or over {@value #MAX_DICTIONARY_BYTES} bytes, are looked up symbol
 * by symbol. Entries are kept in {@value #SLOTS} slots, four-way set associative, replaced round
 * robin within a set; slot arrays are reused, so a steady stream of new dictionaries allocates
 * nothing once the slots have grown to size. Ids stay valid for ever (the catalog never drops a
 * symbol), so an entry never goes stale. Writer thread only.
 */
final class SymDictionaryCache {
    static final int MIN_SYMS = 4;
    static final int MAX_DICTIONARY_BYTES = 1 << 16;
    private static final int SLOTS = 64;
    private static final int WAYS = 4;
    private static final long BYTES_BASE = ColumnCopier.RAW ? UnsafeApi.arrayBaseOffset(byte[].class) : 0;

    private final long[] hashes = new long[SLOTS];
    private final int[] lengths = new int[SLOTS];
    private final int[] counts = new int[SLOTS];
    private final byte[][] content = new byte[SLOTS][];
    private final int[][] ids = new int[SLOTS][];
    /** The slot found right after each slot last time (-1: none yet): compared second, before anything is hashed. */
    private final int[] follows = new int[SLOTS];
    private int[] direct = new int[64];
    private int victim;
    /** The slot found or filled last: compared before anything is hashed. */
    private int last = -1;
    private long hits;
    private long misses;

    SymDictionaryCache() {
        java.util.Arrays.fill(follows, -1);
    }

    /**
     * The catalog id of each code of the update's dictionary, in {@code [0, symCount)} of the
     * returned array (valid until the next call). New symbols are added to the catalog.
     */
    int[] ids(final UpdateDecoder update, final SymbolCatalog catalog) {
        final int n = update.symCount();
        final ByteBuf buf = update.buffer();
        final int from = update.dictionaryOffset();
        final int length = update.dictionaryLength();
        if (!cacheable(n, buf, from, length)) {
            if (direct.length < n) {
                direct = new int[Math.max(n, direct.length << 1)];
            }
            intern(update, catalog, direct, n);
            return direct;
        }
        final int[] found = lookup(update);
        if (found != null) {
            return found;
        }
        final long h = hash(buf, from, length) * 31 + n;
        final int set = (int) (h ^ (h >>> 29)) & (SLOTS - WAYS);
        misses++;
        int s = set + (victim++ & (WAYS - 1));
        for (int e = set; e < set + WAYS; e++) {
            if (content[e] == null) {
                s = e;
                break;
            }
        }
        if (content[s] == null || content[s].length < length) {
            content[s] = new byte[Math.max(length, 64)];
        }
        if (ids[s] == null || ids[s].length < n) {
            ids[s] = new int[Math.max(n, 16)];
        }
        counts[s] = -1; // not a valid entry until its ids are complete
        intern(update, catalog, ids[s], n);
        buf.getBytes(from, content[s], 0, length);
        hashes[s] = h;
        lengths[s] = length;
        counts[s] = n;
        found(s);
        return ids[s];
    }

    /**
     * The catalog ids of the update's dictionary when it is in the cache (valid until the next
     * call), else null; never changes the catalog, so a caller may map the codes while it checks them.
     */
    int[] lookup(final UpdateDecoder update) {
        final int n = update.symCount();
        final ByteBuf buf = update.buffer();
        final int from = update.dictionaryOffset();
        final int length = update.dictionaryLength();
        if (!cacheable(n, buf, from, length)) {
            return null;
        }
        final int l = last;
        if (l >= 0) {
            if (lengths[l] == length && counts[l] == n && same(content[l], buf, from, length)) {
                hits++;
                return ids[l];
            }
            final int f = follows[l];
            if (f >= 0 && lengths[f] == length && counts[f] == n && same(content[f], buf, from, length)) {
                hits++;
                last = f;
                return ids[f];
            }
        }
        final long h = hash(buf, from, length) * 31 + n;
        final int set = (int) (h ^ (h >>> 29)) & (SLOTS - WAYS);
        for (int s = set; s < set + WAYS; s++) {
            if (hashes[s] == h && lengths[s] == length && counts[s] == n && same(content[s], buf, from, length)) {
                hits++;
                found(s);
                return ids[s];
            }
        }
        return null;
    }

    /** Slot {@code s} found or filled after the last one: it becomes the last one's follower. */
    private void found(final int s) {
        if (last >= 0) {
            follows[last] = s;
        }
        last = s;
    }

    private static boolean cacheable(final int n, final ByteBuf buf, final int from, final int length) {
        return n >= MIN_SYMS && length <= MAX_DICTIONARY_BYTES && from >= 0 && length >= 0 && from <= buf.capacity() - length;
    }

    /** Dictionaries found in the cache. */
    long hits() {
        return hits;
    }

    /** Dictionaries of {@value #MIN_SYMS} or more symbols looked up symbol by symbol. */
    long misses() {
        return misses;
    }

    /** Heap bytes the slots hold. */
    long bytes() {
        long b = 0;
        for (int s = 0; s < SLOTS; s++) {
            b += content[s] == null ? 0 : 16 + content[s].length;
            b += ids[s] == null ? 0 : 16 + 4L * ids[s].length;
        }
        return b + 16 + 4L * direct.length;
    }

    private static void intern(final UpdateDecoder update, final SymbolCatalog catalog, final int[] into, final int n) {
        final ByteBuf buf = update.buffer();
        for (int code = 0; code < n; code++) {
            into[code] = catalog.intern(buf, update.symOffset(code), update.symLength(code));
        }
    }

    /**
     * A 64-bit hash of {@code buf[from, from + length)}: four lanes of eight bytes each step (their
     * multiplies do not wait on each other), then the words left over and the tail on the first.
     */
    static long hash(final ByteBuf buf, final int from, final int length) {
        long h0 = 0x9E3779B97F4A7C15L;
        long h1 = 0xC2B2AE3D27D4EB4FL;
        long h2 = 0x165667B19E3779F9L;
        long h3 = 0x85EBCA77C2B2AE63L;
        final int words = length >>> 3;
        final int quads = words >>> 2;
        final boolean raw = ColumnCopier.RAW && (buf.hasMemoryAddress() || buf.hasArray());
        final Object base = raw && !buf.hasMemoryAddress() ? buf.array() : null;
        final long addr = !raw ? 0 : buf.hasMemoryAddress() ? buf.memoryAddress() + from : BYTES_BASE + buf.arrayOffset() + from;
        for (int q = 0; q < quads; q++) {
            final int at = q << 5;
            h0 = mix(h0, raw ? UnsafeApi.getLong(base, addr + at) : buf.getLongLE(from + at));
            h1 = mix(h1, raw ? UnsafeApi.getLong(base, addr + at + 8) : buf.getLongLE(from + at + 8));
            h2 = mix(h2, raw ? UnsafeApi.getLong(base, addr + at + 16) : buf.getLongLE(from + at + 16));
            h3 = mix(h3, raw ? UnsafeApi.getLong(base, addr + at + 24) : buf.getLongLE(from + at + 24));
        }
        for (int i = quads << 2; i < words; i++) {
            final int at = i << 3;
            h0 = mix(h0, raw ? UnsafeApi.getLong(base, addr + at) : buf.getLongLE(from + at));
        }
        long tail = 0;
        for (int i = words << 3; i < length; i++) {
            tail = tail << 8 | (buf.getByte(from + i) & 0xFF);
        }
        long h = mix(mix(mix(h0, h1), h2), h3);
        h = (h ^ tail ^ length) * 0x94D049BB133111EBL;
        return h ^ (h >>> 29);
    }

    private static long mix(final long h, final long word) {
        final long x = (h ^ word) * 0xBF58476D1CE4E5B9L;
        return x ^ (x >>> 31);
    }

    /** True when {@code a[0, length)} equals {@code buf[from, from + length)}. */
    static boolean same(final byte[] a, final ByteBuf buf, final int from, final int length) {
        if (a == null || a.length < length) {
            return false;
        }
        final int words = length >>> 3;
        if (ColumnCopier.RAW && (buf.hasMemoryAddress() || buf.hasArray())) {
            final Object base = buf.hasMemoryAddress() ? null : buf.array();
            final long addr = buf.hasMemoryAddress() ? buf.memoryAddress() + from : BYTES_BASE + buf.arrayOffset() + from;
            for (int i = 0; i < words; i++) {
                if (UnsafeApi.getLong(a, BYTES_BASE + ((long) i << 3)) != UnsafeApi.getLong(base, addr + ((long) i << 3))) {
                    return false;
                }
            }
        } else {
            for (int i = 0; i < words; i++) {
                final int at = i << 3;
                for (int k = 0; k < 8; k++) {
                    if (a[at + k] != buf.getByte(from + at + k)) {
                        return false;
                    }
                }
            }
        }
        for (int i = words << 3; i < length; i++) {
            if (a[i] != buf.getByte(from + i)) {
                return false;
            }
        }
        return true;
    }
}
