package io.jtick.core.replay;

/**
 * The order of a window's rows by time, stable: rows with equal times keep their input order (the
 * tie order: table, then sym, then row). Input is the concatenation of sorted runs (one per sym),
 * so it is often sorted already (one sym, or one table whose syms do not overlap in time), which a
 * linear check finds first. Otherwise an LSD radix sort of {@code (time - min) << indexBits | index}
 * packed in one long (the index in the low bits keeps equal times in input order) between two reused
 * buffers, over the key's high bits only: n rows over a range of 2^k ns are about 2^k / n apart, so
 * the bits below that spacing (less one) are left to one insertion pass at the end, which finds the
 * rows in order but for a few neighbours. A window of 65,536 rows over a 40-bit range then takes two
 * passes of 11 bits where the whole key took three of 13 (measured: 10 % less CPU at 65,536 rows, half
 * at 16,384). Rows crowded into bursts (many within one spacing) would make that pass quadratic: past
 * 8 moves a row it hands over to a comparison sort of the packed longs. When the key and the index do not fit 64 bits together (a
 * window spanning more than about 2^44 ns), the keys and indexes move apart. Nothing is allocated
 * once sized.
 */
final class TimeSort {
    private static final int MAX_BITS = 13;
    /** Moves per row the final insertion pass may make before it hands over to {@link java.util.Arrays#sort(long[], int, int)}. */
    private static final int INSERTION_MOVES = 8;

    private long[] a = new long[0];
    private long[] b = new long[0];
    private int[] ia = new int[0];
    private int[] ib = new int[0];
    private int[] order = new int[0];
    private final int[] counts = new int[1 << MAX_BITS];

    /**
     * Sorts {@code times[0..n)}.
     *
     * @return the input positions in time order (valid until the next call), or null when the input is already in order
     */
    int[] sort(final long[] times, final int n) {
        return sort(times, n, null);
    }

    /**
     * Sorts {@code times[0..n)} and, unless the input is already in order, writes the times in that order to
     * {@code out[0..n)} (null: not wanted), read back from the sort keys rather than looked up by position.
     *
     * @return the input positions in time order (valid until the next call), or null when the input is already in order
     */
    int[] sort(final long[] times, final int n, final long[] out) {
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
        final int keyBits = range < 0 ? 64 : 64 - Long.numberOfLeadingZeros(range);
        final int indexBits = 32 - Integer.numberOfLeadingZeros(Math.max(1, n - 1));
        if (keyBits + indexBits <= 64) {
            return packed(times, n, min, keyBits, indexBits, out);
        }
        return apart(times, n, min, keyBits, out);
    }

    private int[] packed(final long[] times, final int n, final long min, final int keyBits, final int indexBits, final long[] sorted) {
        long[] src = a;
        long[] dst = b;
        for (int i = 0; i < n; i++) {
            src[i] = (times[i] - min) << indexBits | i;
        }
        // the low key bits are left to a final insertion pass: after the radix passes the rows are in order but for
        // neighbours that share the high bits, which a window of n rows over its span has few of
        final int spacingBits = Math.max(0, keyBits - (32 - Integer.numberOfLeadingZeros(Math.max(1, n - 1))));
        final int dropped = Math.max(0, Math.min(keyBits - 1, spacingBits - 1));
        final int sortedBits = keyBits - dropped;
        final int passes = (sortedBits + MAX_BITS - 1) / MAX_BITS;
        final int bits = (sortedBits + passes - 1) / passes;
        final int radix = 1 << bits;
        final long mask = radix - 1;
        for (int p = 0; p < passes; p++) {
            final int shift = indexBits + dropped + p * bits;
            java.util.Arrays.fill(counts, 0, radix, 0);
            for (int i = 0; i < n; i++) {
                counts[(int) ((src[i] >>> shift) & mask)]++;
            }
            int sum = 0;
            for (int d = 0; d < radix; d++) {
                final int c = counts[d];
                counts[d] = sum;
                sum += c;
            }
            for (int i = 0; i < n; i++) {
                final long v = src[i];
                dst[counts[(int) ((v >>> shift) & mask)]++] = v;
            }
            final long[] t = src;
            src = dst;
            dst = t;
        }
        if (dropped > 0) {
            long budget = (long) n * INSERTION_MOVES;
            for (int i = 1; i < n; i++) {
                final long v = src[i];
                if (src[i - 1] > v) {
                    int j = i - 1;
                    do {
                        src[j + 1] = src[j];
                        j--;
                    } while (j >= 0 && src[j] > v);
                    src[j + 1] = v;
                    budget -= i - 1 - j;
                    if (budget < 0) {
                        // many rows within one spacing (times crowded into bursts): finish with a comparison sort
                        java.util.Arrays.sort(src, 0, n);
                        break;
                    }
                }
            }
        }
        final long indexMask = (1L << indexBits) - 1;
        if (sorted == null) {
            for (int i = 0; i < n; i++) {
                order[i] = (int) (src[i] & indexMask);
            }
        } else {
            for (int i = 0; i < n; i++) {
                final long v = src[i];
                order[i] = (int) (v & indexMask);
                sorted[i] = (v >>> indexBits) + min;
            }
        }
        return order;
    }

    private int[] apart(final long[] times, final int n, final long min, final int keyBits, final long[] sorted) {
        if (ia.length < n) {
            ia = new int[a.length];
            ib = new int[a.length];
        }
        long[] keys = a;
        long[] otherKeys = b;
        int[] idx = ia;
        int[] otherIdx = ib;
        for (int i = 0; i < n; i++) {
            keys[i] = times[i] - min;
            idx[i] = i;
        }
        final int passes = (keyBits + MAX_BITS - 1) / MAX_BITS;
        final int bits = (keyBits + passes - 1) / passes;
        final int radix = 1 << bits;
        final long mask = radix - 1;
        for (int p = 0; p < passes; p++) {
            final int shift = p * bits;
            java.util.Arrays.fill(counts, 0, radix, 0);
            for (int i = 0; i < n; i++) {
                counts[(int) ((keys[i] >>> shift) & mask)]++;
            }
            int sum = 0;
            for (int d = 0; d < radix; d++) {
                final int c = counts[d];
                counts[d] = sum;
                sum += c;
            }
            for (int i = 0; i < n; i++) {
                final long k = keys[i];
                final int at = counts[(int) ((k >>> shift) & mask)]++;
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
        System.arraycopy(idx, 0, order, 0, n);
        if (sorted != null) {
            for (int i = 0; i < n; i++) {
                sorted[i] = keys[i] + min;
            }
        }
        return order;
    }

    private void ensure(final int n) {
        if (a.length < n) {
            final int cap = Math.max(n, a.length * 2);
            a = new long[cap];
            b = new long[cap];
            order = new int[cap];
        }
    }

    /** Bytes of buffers held. */
    long bytes() {
        return (long) a.length * 20 + (long) ia.length * 8;
    }
}
