package io.jtick.core.query.exec;

import io.jtick.core.table.TableSegment;

/**
 * A segment bound to the plan ({@link SegmentBinder}): plan slot → segment column, the as-of
 * partner and its join, the candidate rows, and the residual conditions the scan applies.
 */
final class BoundSegment {
    /** What a scan does with each batch that has kept rows; false stops the scan. */
    interface BatchConsumer {
        boolean accept(Batch b);
    }

    final TableSegment seg;
    /** Segment column of each left slot (-1: not read). */
    final int[] columns;
    /** The as-of segment of the same date, through the plan's right schema; null when none. */
    final TableSegment right;
    /** Null without an as-of join. */
    final AsOfJoin join;
    final RowSet rows;
    final Pred[] preds;

    BoundSegment(final TableSegment seg, final int[] columns, final TableSegment right, final AsOfJoin join, final RowSet rows,
                 final Pred[] preds) {
        this.seg = seg;
        this.columns = columns;
        this.right = right;
        this.join = join;
        this.rows = rows;
        this.preds = preds;
    }

    /** The same binding over other rows (a slice for one thread). */
    BoundSegment withRows(final RowSet other) {
        return new BoundSegment(seg, columns, right, join, other, preds);
    }

    /** Visits the candidate rows batch by batch (filtered, as-of matched) until the consumer says stop; returns the rows visited. */
    long scan(final Batch b, final BatchConsumer consumer) {
        final RowSet rs = rows;
        final int chunk = Math.min(seg.chunkRows(), b.capacity);
        long visited = 0;
        for (int e = 0; e < rs.size; e++) {
            final int[] list = rs.lists[e];
            final int to = rs.to[e];
            final int sym = rs.sym[e];
            for (int p = rs.from[e]; p < to;) {
                final int n;
                if (list == null) {
                    n = Math.min(chunk, seg.batchEnd(p, to) - p);
                    b.setRange(p, n, sym);
                } else {
                    n = Math.min(chunk, to - p);
                    b.setList(list, p, n, sym);
                }
                p += n;
                visited += n;
                if (preds.length > 0) {
                    int[] in = null;
                    int count = n;
                    int[] out = b.selA;
                    for (final Pred pred : preds) {
                        count = pred.filter(b, in, count, out);
                        in = out;
                        out = out == b.selA ? b.selB : b.selA;
                        if (count == 0) {
                            break;
                        }
                    }
                    b.sel = count == n ? null : in;
                    b.count = count;
                    if (count == 0) {
                        continue;
                    }
                }
                if (join != null) {
                    join.match(b);
                }
                if (!consumer.accept(b)) {
                    return visited;
                }
            }
        }
        return visited;
    }
}
