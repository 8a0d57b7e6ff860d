package io.jtick.core.rdb;

import java.util.Arrays;

/**
 * Rows per sym id of one RDB table, for {@code count by sym} without a pass over the whole sym
 * column: running totals over the table's first whole column chunks ({@link ColumnStore#CHUNK_ROWS}
 * rows each), which never change once full, kept between queries; a query adds the rows of its
 * snapshot past the last counted chunk (at most the part-filled last chunk when queries come
 * often) by a scan of the sym column. Kept off the insert path: extended by the sym index's
 * follower ({@link SymIndexAgent}) in growing steps as it sorts the filled chunks, and by the queries that ask for
 * what it has not covered (a table without the index or its follower: everything, at the first query).
 *
 * <p>Threads: {@link #count} extends the totals under this object's lock, one thread at a time, and
 * publishes an immutable {@link Totals} through a volatile once its array is written. A query whose
 * snapshot ends before the newest totals (a segment taken earlier) uses the newest of the few older
 * totals kept ({@value #KEPT}) that ends within its snapshot, or counts from row 0, and never reads a
 * row past its own count: it sees exactly its snapshot's rows.
 */
final class SymCounts {
    /** Totals kept for segments that were taken before the newest totals were made. */
    static final int KEPT = 4;

    /** Rows of each sym id in chunks {@code [0, chunks)}; ids at or past {@code rows.length} have none. */
    static final class Totals {
        final int chunks;
        final int[] rows;
        /** The totals made before these, or null: with these, a chain of at most {@value #KEPT}. */
        final Totals older;

        Totals(final int chunks, final int[] rows, final Totals older) {
            this.chunks = chunks;
            this.rows = rows;
            this.older = older;
        }
    }

    private static final Totals NONE = new Totals(0, new int[0], null);

    private volatile Totals totals = NONE;

    /**
     * Any thread: adds to {@code out[id]} the rows of each sym id among the table's rows
     * {@code [0, rows)}, whose sym column chunks are {@code symChunks} (a holder read after the row
     * count, so those rows are published and no longer change). Whole chunks not counted yet are
     * counted once, here, for every later query.
     *
     * @param out room for every sym id of those rows (the catalog's size after the count was read)
     */
    void count(final Object[] symChunks, final int rows, final long[] out) {
        final int full = rows >>> ColumnStore.SHIFT;
        Totals t = totals;
        if (t.chunks < full) {
            t = extend(symChunks, full);
        }
        while (t != null && t.chunks > full) {
            t = t.older;
        }
        final int from;
        if (t == null) {
            from = 0;
        } else {
            final int[] r = t.rows;
            for (int id = 0, n = Math.min(r.length, out.length); id < n; id++) {
                out[id] += r[id];
            }
            from = t.chunks << ColumnStore.SHIFT;
        }
        scan(symChunks, from, rows, out);
    }

    /** Chunks the newest totals cover. */
    int countedChunks() {
        return totals.chunks;
    }

    /**
     * The follower's extension to {@code full} chunks, in growing steps: only once the chunks not
     * yet counted reach an eighth of those counted. Each step copies the totals (an int per sym id),
     * so a day makes O(log chunks) copies, and a first count scans at most about an eighth of the rows
     * past them.
     */
    void follow(final Object[] symChunks, final int full) {
        final int counted = totals.chunks;
        if (full - counted >= Math.max(1, counted >>> 3)) {
            extend(symChunks, full);
        }
    }

    /**
     * Totals over at least {@code full} chunks (whole, published chunks of {@code symChunks}): the newest,
     * extended under the lock when they fall short. The queries' {@link #count} and the follower's {@link #follow} call it.
     */
    private synchronized Totals extend(final Object[] symChunks, final int full) {
        final Totals now = totals;
        if (now.chunks >= full) {
            return now;
        }
        int[] r = Arrays.copyOf(now.rows, now.rows.length);
        for (int k = now.chunks; k < full; k++) {
            final int[] s = (int[]) symChunks[k];
            for (int i = 0; i < ColumnStore.CHUNK_ROWS; i++) {
                final int id = s[i];
                if (id >= r.length) {
                    r = Arrays.copyOf(r, Math.max(id + 1, r.length + (r.length >>> 1) + 16));
                }
                r[id]++;
            }
        }
        final Totals next = new Totals(full, r, kept(now, KEPT - 1));
        totals = next;
        return next;
    }

    /** The first {@code keep} totals of the chain from {@code t} (copies of the nodes: published totals never change). */
    private static Totals kept(final Totals t, final int keep) {
        return t == null || keep <= 0 ? null : new Totals(t.chunks, t.rows, kept(t.older, keep - 1));
    }

    /** Adds the sym ids of rows {@code [from, to)} to {@code out}. */
    private static void scan(final Object[] symChunks, final int from, final int to, final long[] out) {
        for (int row = from; row < to;) {
            final int at = row & ColumnStore.MASK;
            final int end = Math.min(at + (to - row), ColumnStore.CHUNK_ROWS);
            final int[] s = (int[]) symChunks[row >>> ColumnStore.SHIFT];
            for (int i = at; i < end; i++) {
                out[s[i]]++;
            }
            row += end - at;
        }
    }
}
