package io.jtick.core.hdb.format;

import org.agrona.UnsafeApi;

/**
 * The lower bound of a time in a run of non-decreasing 8-byte values (a sym's times in a mapped
 * plain file, a decoded block or sub-block), probed through {@link UnsafeApi#getLong(Object, long)}
 * so that one search serves heap arrays and mapped memory alike.
 *
 * <p>A binary search over 2,048 values touches eight cache lines before its last probes share one;
 * a day's times within a sym are close to evenly spaced, so the search first guesses the row from
 * the run's first and last values (interpolation), then gallops from the guess towards the answer
 * and bisects the last step: the probes after the guess stay within a few cache lines of it. On
 * values that are not evenly spaced the galloping bounds the cost at about twice a binary search's
 * probes; the answer is exact either way.
 */
final class TimeSearch {
    /** Runs at most this long are bisected at once: the guess would save nothing. */
    private static final int SHORT = 16;

    private TimeSearch() {
    }

    /**
     * First index in {@code [lo, hi)} whose value is at least {@code t}, or {@code hi}; value i is
     * the long at {@code base}, {@code address + 8 * i}, non-decreasing over the range.
     */
    static int lowerBound(final Object base, final long address, final int lo, final int hi, final long t) {
        if (hi - lo <= SHORT) {
            return bisect(base, address, lo, hi, t);
        }
        final long first = get(base, address, lo);
        if (first >= t) {
            return lo;
        }
        final int lastRow = hi - 1;
        final long last = get(base, address, lastRow);
        if (last < t) {
            return hi;
        }
        // first < t <= last: the answer is in (lo, lastRow]
        final double share = ((double) t - (double) first) / ((double) last - (double) first);
        final int guess = Math.min(lastRow, Math.max(lo + 1, lo + (int) (share * (lastRow - lo))));
        int below = lo;
        int atOrAbove = lastRow;
        int step = 1;
        if (get(base, address, guess) < t) {
            below = guess;
            while (below + step < atOrAbove) {
                final int p = below + step;
                if (get(base, address, p) < t) {
                    below = p;
                    step <<= 1;
                } else {
                    atOrAbove = p;
                    break;
                }
            }
        } else {
            atOrAbove = guess;
            while (atOrAbove - step > below) {
                final int p = atOrAbove - step;
                if (get(base, address, p) >= t) {
                    atOrAbove = p;
                    step <<= 1;
                } else {
                    below = p;
                    break;
                }
            }
        }
        // value[below] < t <= value[atOrAbove]
        return bisect(base, address, below + 1, atOrAbove, t);
    }

    /** Plain bisection: the first index in {@code [lo, hi)} whose value is at least {@code t}, or {@code hi}. */
    private static int bisect(final Object base, final long address, final int lo, final int hi, final long t) {
        int l = lo;
        int h = hi;
        while (l < h) {
            final int mid = (l + h) >>> 1;
            if (get(base, address, mid) < t) {
                l = mid + 1;
            } else {
                h = mid;
            }
        }
        return l;
    }

    private static long get(final Object base, final long address, final int i) {
        return UnsafeApi.getLong(base, address + ((long) i << 3));
    }
}
