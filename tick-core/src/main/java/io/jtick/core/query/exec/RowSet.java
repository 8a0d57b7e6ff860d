package io.jtick.core.query.exec;

import io.jtick.core.table.RowSink;
import java.util.Arrays;

/**
 * Rows of one segment to visit, in order: entries that are either a range {@code [from, to)} or a
 * slice {@code list[from, to)} of a row list (a sym index's postings, or rows a filter kept).
 * Lists are never written to. An entry may carry the segment-local sym id that all its rows have
 * ({@link #sym}, -1 when unknown or mixed): the rows of one sym from the sym index, so a grouped
 * scan knows each row's sym without reading the sym column.
 */
final class RowSet implements RowSink {
    int size;
    int[] from = new int[8];
    int[] to = new int[8];
    int[][] lists = new int[8][];
    /** Local sym id of every row of the entry, or -1. */
    int[] sym = new int[8];

    @Override
    public void range(final int f, final int t) {
        range(f, t, -1);
    }

    /** A range whose rows all have local sym id {@code s} (-1: unknown); merged with an adjacent range of the same sym. */
    void range(final int f, final int t, final int s) {
        if (f >= t) {
            return;
        }
        if (size > 0 && lists[size - 1] == null && to[size - 1] == f && sym[size - 1] == s) {
            to[size - 1] = t;
            return;
        }
        add(null, f, t, s);
    }

    @Override
    public void rows(final int[] rows, final int f, final int t) {
        if (f < t) {
            add(rows, f, t, -1);
        }
    }

    /** Appends an entry as it is, never merged with the previous one. */
    void add(final int[] list, final int f, final int t) {
        add(list, f, t, -1);
    }

    private void add(final int[] list, final int f, final int t, final int s) {
        if (size == from.length) {
            from = Arrays.copyOf(from, size << 1);
            to = Arrays.copyOf(to, size << 1);
            lists = Arrays.copyOf(lists, size << 1);
            sym = Arrays.copyOf(sym, size << 1);
        }
        from[size] = f;
        to[size] = t;
        lists[size] = list;
        sym[size] = s;
        size++;
    }

    /** Marks every entry as rows of local sym {@code s} (the set holds one sym's rows). */
    void tagSym(final int s) {
        Arrays.fill(sym, 0, size, s);
    }

    long rowCount() {
        long n = 0;
        for (int i = 0; i < size; i++) {
            n += to[i] - from[i];
        }
        return n;
    }

    /** Appends the entries of another set (ranges of the same sym merge when adjacent). */
    void addAll(final RowSet other) {
        for (int i = 0; i < other.size; i++) {
            if (other.lists[i] == null) {
                range(other.from[i], other.to[i], other.sym[i]);
            } else if (other.from[i] < other.to[i]) {
                add(other.lists[i], other.from[i], other.to[i], other.sym[i]);
            }
        }
    }

    /** The rows {@code [skip, skip + take)} of this set, in order, as a new set sharing the row lists. */
    RowSet slice(final long skip, final long take) {
        final RowSet out = new RowSet();
        long pos = 0;
        final long end = skip + take;
        for (int i = 0; i < size && pos < end; i++) {
            final int n = to[i] - from[i];
            final long a = Math.max(pos, skip);
            final long b = Math.min(pos + n, end);
            if (a < b) {
                final int f = from[i] + (int) (a - pos);
                final int t = from[i] + (int) (b - pos);
                if (lists[i] == null) {
                    out.range(f, t, sym[i]);
                } else {
                    out.add(lists[i], f, t, sym[i]);
                }
            }
            pos += n;
        }
        return out;
    }

    /** Only the last {@code n} rows of this set (the first {@code n} when {@code !last}), sharing the row lists. */
    RowSet edge(final long n, final boolean last) {
        final long total = rowCount();
        return total <= n ? this : slice(last ? total - n : 0, n);
    }

    void clear() {
        size = 0;
        Arrays.fill(lists, null);
    }

    /**
     * Puts the entries in ascending row order. Ranges of a sym-parted segment do not overlap and
     * only need sorting by start; row lists (several syms' postings) are merged into one list.
     */
    void sortByRow(final int rowCount) {
        if (size <= 1) {
            return;
        }
        boolean anyList = false;
        for (int i = 0; i < size; i++) {
            anyList |= lists[i] != null;
        }
        if (!anyList) {
            boolean sorted = true;
            for (int i = 1; i < size && sorted; i++) {
                sorted = from[i] >= to[i - 1];
            }
            if (sorted) {
                return;
            }
            final long[] packed = new long[size];
            for (int i = 0; i < size; i++) {
                packed[i] = (long) from[i] << 32 | i;
            }
            Arrays.sort(packed);
            final int n = size;
            final int[] f = Arrays.copyOf(from, n);
            final int[] t = Arrays.copyOf(to, n);
            final int[] s = Arrays.copyOf(sym, n);
            clear();
            for (int i = 0; i < n; i++) {
                final int k = (int) packed[i];
                range(f[k], t[k], s[k]);
            }
            return;
        }
        final long total = rowCount();
        final int[] merged = new int[(int) total];
        if (total > rowCount / 32) {
            final long[] bits = new long[(rowCount + 63) >>> 6];
            forEachRow((r) -> bits[r >>> 6] |= 1L << r);
            int k = 0;
            for (int w = 0; w < bits.length; w++) {
                long b = bits[w];
                while (b != 0) {
                    merged[k++] = (w << 6) + Long.numberOfTrailingZeros(b);
                    b &= b - 1;
                }
            }
        } else {
            final int[] k = {0};
            forEachRow((r) -> merged[k[0]++] = r);
            Arrays.sort(merged);
        }
        clear();
        rows(merged, 0, merged.length);
    }

    private void forEachRow(final java.util.function.IntConsumer c) {
        for (int i = 0; i < size; i++) {
            final int[] l = lists[i];
            for (int j = from[i]; j < to[i]; j++) {
                c.accept(l == null ? j : l[j]);
            }
        }
    }
}
