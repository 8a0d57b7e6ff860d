package io.jtick.core.query.exec;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.IntSort;
import io.jtick.core.table.TableSegment;

import java.util.Arrays;

/**
 * As-of join of one left segment with the right segment of the same date ({@code aj[`sym`time;t;q]}):
 * for each kept left row, the last right row with the same sym and {@code time <= t} (the last one
 * among equal times), or none when there is no such row or it is older than the tolerance. A
 * sym's right rows and times are gathered once, on first use, and probed with a cursor that moves
 * forward while left times grow (galloping), else by binary search.
 */
final class AsOfJoin {
    private final TableSegment left;
    private final TableSegment right;
    private final int rightTime;
    private final long tolerance;
    private int[] leftToRight = new int[0];
    private SymRows[] bySym = new SymRows[0];
    private final ColumnChunk chunk = new ColumnChunk();

    /** One sym's right rows in time order. */
    private static final class SymRows {
        long[] times;
        int[] rows;
        int n;
        int cursor = -1;
        long lastProbe = Long.MIN_VALUE;

        int find(final long t) {
            if (t >= lastProbe) {
                int c = cursor;
                if (c + 1 < n && times[c + 1] <= t) {
                    int step = 1;
                    while (c + step < n && times[c + step] <= t) {
                        c += step;
                        step <<= 1;
                    }
                    // times[c] <= t; the answer is in [c, min(c + step, n) - 1]
                    int lo = c;
                    int hi = Math.min(c + step, n);
                    while (hi - lo > 1) {
                        final int mid = (lo + hi) >>> 1;
                        if (times[mid] <= t) {
                            lo = mid;
                        } else {
                            hi = mid;
                        }
                    }
                    c = lo;
                }
                cursor = c;
            } else {
                int lo = 0;
                int hi = n;
                while (lo < hi) {
                    final int mid = (lo + hi) >>> 1;
                    if (times[mid] <= t) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                cursor = lo - 1;
            }
            lastProbe = t;
            return cursor;
        }
    }

    AsOfJoin(final TableSegment left, final TableSegment right, final long tolerance) {
        this.left = left;
        this.right = right;
        this.tolerance = tolerance;
        this.rightTime = right == null ? -1 : right.schema().indexOf("time");
    }

    /** Fills {@code b.match} for the batch's kept positions. */
    void match(final Batch b) {
        final int[] sel = b.sel;
        final int count = b.count;
        final int[] match = b.match;
        if (right == null) {
            for (int i = 0; i < count; i++) {
                match[sel == null ? i : sel[i]] = -1;
            }
            return;
        }
        b.load(TableSchema.SYM);
        b.load(TableSchema.TIME);
        final int[] syms = b.s[TableSchema.SYM];
        final int os = b.off[TableSchema.SYM];
        final long[] times = b.l[TableSchema.TIME];
        final int ot = b.off[TableSchema.TIME];
        for (int i = 0; i < count; i++) {
            final int p = sel == null ? i : sel[i];
            final SymRows r = rows(syms[os + p]);
            if (r == null) {
                match[p] = -1;
                continue;
            }
            final long t = times[ot + p];
            final int k = r.find(t);
            match[p] = k >= 0 && (tolerance < 0 || t - r.times[k] <= tolerance) ? r.rows[k] : -1;
        }
    }

    private SymRows rows(final int leftSym) {
        if (leftSym >= leftToRight.length) {
            leftToRight = SymDict.grown(leftToRight, leftSym, -2);
        }
        int rid = leftToRight[leftSym];
        if (rid == -2) {
            rid = right.symId(left.symName(leftSym));
            leftToRight[leftSym] = rid;
        }
        if (rid < 0) {
            return null;
        }
        if (rid >= bySym.length) {
            bySym = Arrays.copyOf(bySym, Math.max(rid + 1, Math.max(64, bySym.length << 1)));
        }
        SymRows r = bySym[rid];
        if (r == null) {
            r = load(rid);
            bySym[rid] = r;
        }
        return r;
    }

    private SymRows load(final int rid) {
        final RowSet rs = new RowSet();
        right.symRows(rid, rs);
        final int n = (int) rs.rowCount();
        final SymRows r = new SymRows();
        r.rows = new int[n];
        r.times = new long[n];
        r.n = n;
        final int max = right.chunkRows();
        int k = 0;
        for (int e = 0; e < rs.size; e++) {
            final int[] list = rs.lists[e];
            for (int p = rs.from[e]; p < rs.to[e]; p += max) {
                final int len = Math.min(max, rs.to[e] - p);
                if (list == null) {
                    right.read(rightTime, p, len, chunk);
                    for (int i = 0; i < len; i++) {
                        r.rows[k + i] = p + i;
                    }
                } else {
                    right.read(rightTime, list, p, len, chunk);
                    System.arraycopy(list, p, r.rows, k, len);
                }
                System.arraycopy(chunk.longs(), chunk.offset(), r.times, k, len);
                k += len;
            }
        }
        if (!right.timeSorted() && !right.symParted()) {
            sortByTime(r);
        }
        return r;
    }

    /** Stable sort of a sym's rows by time (rows were ascending, so equal times keep row order). */
    private static void sortByTime(final SymRows r) {
        final int[] idx = new int[r.n];
        for (int i = 0; i < idx.length; i++) {
            idx[i] = i;
        }
        final long[] t = r.times;
        IntSort.sort(idx, (x, y) -> Long.compare(t[x], t[y]));
        final long[] times = new long[r.n];
        final int[] rows = new int[r.n];
        for (int i = 0; i < idx.length; i++) {
            times[i] = t[idx[i]];
            rows[i] = r.rows[idx[i]];
        }
        r.times = times;
        r.rows = rows;
    }
}
