package io.jtick.parquet;

import java.util.Arrays;

/**
 * A column chunk's dictionary while it is built: its distinct values (as bits: a double's raw long
 * bits, an int widened) in order of first appearance, and an open-addressing table from a value to
 * its id. The table starts at {@link #FIRST_SLOTS} slots and doubles at half full, so that a chunk
 * of a few hundred prices probes a table that stays in cache rather than one sized for the chunk's
 * rows; the slots a chunk took are freed by the next ({@link #clear}) instead of clearing the table
 * whole. Not thread-safe: one per encoding thread.
 */
final class DistinctValues {
    /** Slots a chunk's table starts with (48 KiB of keys and ids). */
    static final int FIRST_SLOTS = 4096;
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    /** The distinct values in order of first appearance. */
    private long[] values = new long[0];
    private int size;
    /** Open addressing from a value to its id + 1 (0: free). */
    private long[] slotKey = new long[0];
    private int[] slotId = new int[0];
    /** Slots of the table the chunk uses (a power of two, at most the arrays' length). */
    private int slots;
    /** The slot of each id, and how many of them are taken. */
    private int[] slotOf = new int[0];
    private int slotsUsed;

    /** The distinct values, {@link #size} of them. */
    long[] values() {
        return values;
    }

    int size() {
        return size;
    }

    /** Forgets the last chunk's values and frees the slots they took. */
    void clear() {
        final int[] slot = slotId;
        for (int k = 0; k < slotsUsed; k++) {
            slot[slotOf[k]] = 0;
        }
        slotsUsed = 0;
        size = 0;
    }

    /** Adds a value known to be new (not looked up in the table: the sym path keeps its own); its id. */
    int add(final long v) {
        if (size == values.length) {
            values = Arrays.copyOf(values, Math.max(64, 2 * values.length));
        }
        values[size] = v;
        return size++;
    }

    /**
     * Assigns {@code ids[i]} the id of {@code bits[i]} for rows {@code [0, n)}, adding the values not
     * seen yet; false as soon as there would be more than {@code most} distinct values (then the ids
     * and values are partial). Starts from a {@link #clear}ed dictionary.
     */
    boolean ids(final long[] bits, final int[] ids, final int n, final int most) {
        table(Math.min(FIRST_SLOTS, Integer.highestOneBit(Math.max(16, 2 * most) - 1) << 1));
        long[] key = slotKey;
        int[] slot = slotId;
        int mask = slots - 1;
        int shift = 64 - Integer.numberOfTrailingZeros(slots);
        try {
            for (int i = 0; i < n; i++) {
                final long v = bits[i];
                if (i > 0 && v == bits[i - 1]) {
                    ids[i] = ids[i - 1];
                    continue;
                }
                int s = (int) ((v * GOLDEN) >>> shift) & mask;
                int found;
                while ((found = slot[s]) != 0 && key[s] != v) {
                    s = (s + 1) & mask;
                }
                if (found == 0) {
                    if (size >= most) {
                        return false;
                    }
                    if (2 * (size + 1) > slots) {
                        rehash(2 * slots);
                        key = slotKey;
                        slot = slotId;
                        mask = slots - 1;
                        shift = 64 - Integer.numberOfTrailingZeros(slots);
                        s = (int) ((v * GOLDEN) >>> shift) & mask;
                        while (slot[s] != 0) {
                            s = (s + 1) & mask;
                        }
                    }
                    key[s] = v;
                    found = add(v) + 1;
                    slot[s] = found;
                    if (slotOf.length < values.length) {
                        slotOf = Arrays.copyOf(slotOf, values.length);
                    }
                    slotOf[found - 1] = s;
                }
                ids[i] = found - 1;
            }
            return true;
        } finally {
            slotsUsed = size;
        }
    }

    /** Uses the first {@code n} (a power of two) slots of the table, all free, growing its arrays when shorter. */
    private void table(final int n) {
        if (slotKey.length < n) {
            slotKey = new long[n];
            slotId = new int[n];
        }
        slots = n;
    }

    /** Moves the values so far into a table of {@code n} slots. */
    private void rehash(final int n) {
        final int held = size;
        slotsUsed = held;
        clear();
        size = held;
        table(n);
        final long[] key = slotKey;
        final int[] slot = slotId;
        final int mask = n - 1;
        final int shift = 64 - Integer.numberOfTrailingZeros(n);
        for (int k = 0; k < size; k++) {
            final long v = values[k];
            int s = (int) ((v * GOLDEN) >>> shift) & mask;
            while (slot[s] != 0) {
                s = (s + 1) & mask;
            }
            key[s] = v;
            slot[s] = k + 1;
            slotOf[k] = s;
        }
        slotsUsed = size;
    }
}
