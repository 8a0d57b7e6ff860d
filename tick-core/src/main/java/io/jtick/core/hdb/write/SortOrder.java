package io.jtick.core.hdb.write;

import io.jtick.core.hdb.format.SymRanges;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.TableSegment;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Comparator;

/**
 * The row order of a partition: rows grouped by sym (syms ascending by name), by time within a
 * sym, arrival order among equal times (a stable counting sort, then a stable merge sort of any
 * sym whose times arrived out of order). The permutation itself ({@link #rows()}) is built only
 * when a writer asks for it: a plain column is written by {@link PlainColumnScatter} from the
 * sym ranks alone.
 */
final class SortOrder {
    private final TableSegment table;
    private final SymRanges ranges;
    private final int[] rankOfId;
    private final boolean identity;
    private final boolean reordered;
    private int[] rows;
    private boolean rowsBuilt;
    private ScatterStages stages;

    private SortOrder(final TableSegment table, final SymRanges ranges, final int[] rankOfId, final boolean identity,
                      final boolean reordered, final int[] rows) {
        this.table = table;
        this.ranges = ranges;
        this.rankOfId = rankOfId;
        this.identity = identity;
        this.reordered = reordered;
        this.rows = rows;
        this.rowsBuilt = rows != null || identity;
    }

    SymRanges ranges() {
        return ranges;
    }

    /** Sym rank (its code in {@link #ranges()}) of each sym id of the segment; -1 for ids with no rows. */
    int[] rankOfId() {
        return rankOfId;
    }

    /** The staged positions of the table's rows, shared by its plain columns ({@link PlainColumnScatter}); made on first use. */
    synchronized ScatterStages stages() {
        if (stages == null) {
            stages = new ScatterStages(table, rankOfId, ranges);
        }
        return stages;
    }

    /** True when the rows already are in partition order (a sym-parted segment): no permutation. */
    boolean identity() {
        return identity;
    }

    /** True when some sym's rows are not in arrival order within the sym (its times arrived out of order and were sorted). */
    boolean reordered() {
        return reordered;
    }

    /** Row of the segment at each position of the partition, or null when {@link #identity()}; built on first use. */
    synchronized int[] rows() {
        if (!rowsBuilt) {
            rows = place(table, rankOfId, ranges);
            rowsBuilt = true;
        }
        return rows;
    }

    /**
     * Two passes over the sym column (count per sym id, then rank order check), and a check of
     * time order within each sym: none when the segment says its time column is sorted, one
     * sequential pass when its rows already are in sym order, else one over the time column in
     * the new order (the permutation is built then) after which only the syms whose times
     * arrived out of order are read again and sorted.
     */
    static SortOrder of(final TableSegment table) {
        final int n = table.rowCount();
        final int limit = table.symIdLimit();
        final int step = Math.max(1, table.chunkRows());
        final ColumnChunk chunk = new ColumnChunk();
        final int[] counts = new int[Math.max(0, limit)];
        int distinct = 0;
        for (int at = 0; at < n; at += step) {
            final int k = Math.min(step, n - at);
            table.read(TableSchema.SYM, at, k, chunk);
            final int[] ids = chunk.ints();
            final int o = chunk.offset();
            for (int i = 0; i < k; i++) {
                final int id = ids[o + i];
                if (id < 0 || id >= limit) {
                    throw new IllegalArgumentException("sym id out of range [table=" + table.schema().name() + ", row=" + (at + i)
                        + ", id=" + id + ", limit=" + limit + "]");
                }
                if (counts[id]++ == 0) {
                    distinct++;
                }
            }
        }
        final Integer[] ids = new Integer[distinct];
        final String[] nameOf = new String[counts.length];
        int k = 0;
        for (int id = 0; id < counts.length; id++) {
            if (counts[id] > 0) {
                ids[k++] = id;
                nameOf[id] = table.symName(id);
            }
        }
        Arrays.sort(ids, Comparator.comparing((Integer id) -> nameOf[id]));
        final String[] names = new String[distinct];
        final int[] from = new int[distinct];
        final int[] to = new int[distinct];
        final int[] rankOfId = new int[counts.length];
        Arrays.fill(rankOfId, -1);
        int at = 0;
        for (int i = 0; i < distinct; i++) {
            final int id = ids[i];
            if (i > 0 && names[i - 1].equals(nameOf[id])) {
                throw new IllegalArgumentException("two sym ids share a name [sym=" + nameOf[id] + "]");
            }
            names[i] = nameOf[id];
            rankOfId[id] = i;
            from[i] = at;
            at += counts[id];
            to[i] = at;
        }
        final SymRanges ranges = new SymRanges(names, from, to);
        boolean identity = true;
        int last = 0;
        for (int a = 0; a < n && identity; a += step) {
            final int m = Math.min(step, n - a);
            table.read(TableSchema.SYM, a, m, chunk);
            final int[] sym = chunk.ints();
            final int o = chunk.offset();
            for (int i = 0; i < m; i++) {
                final int rank = rankOfId[sym[o + i]];
                if (rank < last) {
                    identity = false;
                    break;
                }
                last = rank;
            }
        }
        if (table.timeSorted()) {
            return new SortOrder(table, ranges, rankOfId, identity, false, null);
        }
        final int[] rows = identity ? null : place(table, rankOfId, ranges);
        final boolean[] unsorted = new boolean[distinct];
        boolean anyUnsorted = false;
        int s = 0;
        long prev = Long.MIN_VALUE;
        for (int a = 0; a < n; a += step) {
            final int m = Math.min(step, n - a);
            if (identity) {
                table.read(TableSchema.TIME, a, m, chunk);
            } else {
                table.read(TableSchema.TIME, rows, a, m, chunk);
            }
            final long[] time = chunk.longs();
            final int o = chunk.offset();
            for (int i = 0; i < m; i++) {
                while (a + i >= to[s]) {
                    s++;
                    prev = Long.MIN_VALUE;
                }
                final long t = time[o + i];
                if (t < prev) {
                    unsorted[s] = true;
                    anyUnsorted = true;
                }
                prev = t;
            }
        }
        if (!anyUnsorted) {
            return new SortOrder(table, ranges, rankOfId, identity, false, rows);
        }
        final int[] sorted = rows != null ? rows : identityRows(n);
        for (int i = 0; i < distinct; i++) {
            if (unsorted[i]) {
                sortByTime(table, sorted, from[i], to[i], chunk);
            }
        }
        return new SortOrder(table, ranges, rankOfId, false, true, sorted);
    }

    /** The permutation: a stable counting sort of the rows by sym rank. */
    private static int[] place(final TableSegment table, final int[] rankOfId, final SymRanges ranges) {
        final int n = table.rowCount();
        final int step = Math.max(1, table.chunkRows());
        final ColumnChunk chunk = new ColumnChunk();
        final int[] next = new int[ranges.count()];
        for (int r = 0; r < next.length; r++) {
            next[r] = ranges.from(r);
        }
        final int[] rows = new int[n];
        for (int a = 0; a < n; a += step) {
            final int m = Math.min(step, n - a);
            table.read(TableSchema.SYM, a, m, chunk);
            final int[] sym = chunk.ints();
            final int o = chunk.offset();
            for (int i = 0; i < m; i++) {
                rows[next[rankOfId[sym[o + i]]]++] = a + i;
            }
        }
        return rows;
    }

    private static int[] identityRows(final int n) {
        final int[] rows = new int[n];
        for (int i = 0; i < n; i++) {
            rows[i] = i;
        }
        return rows;
    }

    /** Writes the sorted sym codes of rows {@code [at, at + n)} into {@code dst}. */
    void fillSymCodes(final int at, final int n, final UnsafeBuffer dst) {
        int lo = 0;
        int hi = ranges.count() - 1;
        while (lo < hi) {
            final int mid = (lo + hi + 1) >>> 1;
            if (ranges.from(mid) <= at) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        int k = lo;
        for (int i = 0; i < n; i++) {
            final int r = at + i;
            while (r >= ranges.to(k)) {
                k++;
            }
            dst.putInt(i << 2, k, ByteOrder.LITTLE_ENDIAN);
        }
    }

    /** Stable merge sort of {@code rows[lo, hi)} by the rows' times (read through the segment). */
    private static void sortByTime(final TableSegment table, final int[] rows, final int lo, final int hi, final ColumnChunk chunk) {
        final int n = hi - lo;
        final long[] time = new long[n];
        final int step = Math.max(1, table.chunkRows());
        for (int a = 0; a < n; a += step) {
            final int m = Math.min(step, n - a);
            table.read(TableSchema.TIME, rows, lo + a, m, chunk);
            System.arraycopy(chunk.longs(), chunk.offset(), time, a, m);
        }
        final int[] r2 = new int[n];
        final long[] t2 = new long[n];
        for (int width = 1; width < n; width <<= 1) {
            for (int left = 0; left < n; left += width << 1) {
                final int mid = Math.min(left + width, n);
                final int right = Math.min(left + (width << 1), n);
                int i = left;
                int j = mid;
                int o = left;
                while (i < mid && j < right) {
                    if (time[j] < time[i]) {
                        t2[o] = time[j];
                        r2[o++] = rows[lo + j++];
                    } else {
                        t2[o] = time[i];
                        r2[o++] = rows[lo + i++];
                    }
                }
                while (i < mid) {
                    t2[o] = time[i];
                    r2[o++] = rows[lo + i++];
                }
                while (j < right) {
                    t2[o] = time[j];
                    r2[o++] = rows[lo + j++];
                }
            }
            System.arraycopy(r2, 0, rows, lo, n);
            System.arraycopy(t2, 0, time, 0, n);
        }
    }
}
