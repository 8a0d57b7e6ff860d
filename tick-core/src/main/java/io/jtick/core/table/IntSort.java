package io.jtick.core.table;

/** A stable merge sort of an int array under a comparator, without boxing. */
public final class IntSort {
    /** Compares two ints. */
    @FunctionalInterface
    public interface IntComparator {
        int compare(int a, int b);
    }

    private IntSort() {
    }

    public static void sort(final int[] a, final IntComparator c) {
        if (a.length < 2) {
            return;
        }
        final int[] tmp = a.clone();
        sort(tmp, a, 0, a.length, c);
    }

    /** Sorts src[lo, hi) into dst[lo, hi); src and dst start with equal contents. */
    private static void sort(final int[] src, final int[] dst, final int lo, final int hi, final IntComparator c) {
        final int n = hi - lo;
        if (n < 16) {
            for (int i = lo + 1; i < hi; i++) {
                final int v = dst[i];
                int j = i - 1;
                while (j >= lo && c.compare(dst[j], v) > 0) {
                    dst[j + 1] = dst[j];
                    j--;
                }
                dst[j + 1] = v;
            }
            return;
        }
        final int mid = (lo + hi) >>> 1;
        sort(dst, src, lo, mid, c);
        sort(dst, src, mid, hi, c);
        if (c.compare(src[mid - 1], src[mid]) <= 0) {
            System.arraycopy(src, lo, dst, lo, n);
            return;
        }
        for (int i = lo, p = lo, q = mid; i < hi; i++) {
            if (q >= hi || p < mid && c.compare(src[p], src[q]) <= 0) {
                dst[i] = src[p++];
            } else {
                dst[i] = src[q++];
            }
        }
    }
}
