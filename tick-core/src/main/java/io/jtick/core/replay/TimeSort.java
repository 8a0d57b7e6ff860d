package io.jtick.core.replay;

/**
 * The order of a window's rows by time, stable: rows with equal times keep their input order (the
 * tie order: table, then sym, then row). Input is the concatenation of sorted runs (one per sym),
 * so it is often sorted already (one sym, or one table whose syms do not overlap in time), which a
 * linear check finds first. Otherwise an LSD radix sort on {@code time - min} in 11-bit digits
 * (one counting pass builds every digit's histogram; digits in which all keys agree are skipped),
 * moving (key, index) pairs between two reused buffers. Nothing is allocated once sized.
 */
final class TimeSort {
    private static final int BITS = 11;
    private static final int RADIX = 1 << BITS;
    private static final int MASK = RADIX - 1;
    private static final int MAX_DIGITS = (64 + BITS - 1) / BITS;

    private long[] keysA = new long[0];
    private long[] keysB = new long[0];
    private int[] idxA = new int[0];
    private int[] idxB = new int[0];
    private final int[] counts = new int[MAX_DIGITS * RADIX];

    /**
     * Sorts {@code times[0..n)}.
     *
     * @return the input positions in time order (valid until the next call), or null when the input is already in order
     */
    int[] sort(final long[] times, final int n) {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        boolean sorted = true;
        long prev = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            final long t = times[i];
            sorted &= t >= prev;
            prev = t;
            min = Math.min(min, t);
            max = Math.max(max, t);
        }
        if (sorted) {
            return null;
        }
        ensure(n);
        final long range = max - min;
        final int bits = range < 0 ? 64 : 64 - Long.numberOfLeadingZeros(range);
        final int digits = (bits + BITS - 1) / BITS;
        java.util.Arrays.fill(counts, 0, digits * RADIX, 0);
        long[] keys = keysA;
        int[] idx = idxA;
        for (int i = 0; i < n; i++) {
            final long k = times[i] - min;
            keys[i] = k;
            idx[i] = i;
            for (int d = 0; d < digits; d++) {
                counts[d * RADIX + (int) ((k >>> (d * BITS)) & MASK)]++;
            }
        }
        long[] otherKeys = keysB;
        int[] otherIdx = idxB;
        for (int d = 0; d < digits; d++) {
            final int base = d * RADIX;
            if (counts[base + (int) ((keys[0] >>> (d * BITS)) & MASK)] == n) {
                continue;
            }
            int sum = 0;
            for (int b = 0; b < RADIX; b++) {
                final int c = counts[base + b];
                counts[base + b] = sum;
                sum += c;
            }
            final int shift = d * BITS;
            for (int i = 0; i < n; i++) {
                final long k = keys[i];
                final int at = counts[base + (int) ((k >>> shift) & MASK)]++;
                otherKeys[at] = k;
                otherIdx[at] = idx[i];
            }
            final long[] tk = keys;
            keys = otherKeys;
            otherKeys = tk;
            final int[] ti = idx;
            idx = otherIdx;
            otherIdx = ti;
        }
        return idx;
    }

    private void ensure(final int n) {
        if (keysA.length < n) {
            final int cap = Math.max(n, keysA.length * 2);
            keysA = new long[cap];
            keysB = new long[cap];
            idxA = new int[cap];
            idxB = new int[cap];
        }
    }

    /** Bytes of buffers held. */
    long bytes() {
        return (long) keysA.length * 24;
    }
}
