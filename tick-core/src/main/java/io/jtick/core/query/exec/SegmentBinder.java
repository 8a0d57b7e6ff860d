package io.jtick.core.query.exec;

import io.jtick.core.query.model.Literals;
import io.jtick.core.query.model.Query;
import io.jtick.core.query.model.QueryException;
import io.jtick.core.query.plan.Plan;
import io.jtick.core.query.plan.Plan.PredSpec;
import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.TableSegment;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Binds segments to a plan: checks that each has the plan's columns with the plan's types, pairs
 * it with the as-of segment of its date, narrows its candidate rows through the sym index and by
 * binary search on time (where rows are time sorted within a sym or overall), and turns what is
 * left of the conditions into residual {@link Pred}s for the scan.
 *
 * <p>Edge rows: when only the first or last rows can reach the answer and no residual condition
 * remains, the candidates are cut to those rows before anything is read. The last row of each sym
 * ({@code select by sym from t}, {@code LATEST ON time PARTITION BY sym}: every aggregate {@code last},
 * the sym the only key) is the end of the sym's row list; {@code ORDER BY time DESC LIMIT n} (or
 * {@code ASC}) keeps each sym's (or a time-sorted segment's) last (first) n rows, where time is
 * sorted within them. A last trade is then one row read, however many the sym has.
 */
final class SegmentBinder {
    private static final Pred[] NO_PREDS = new Pred[0];

    private final Plan plan;
    /** Grouped with the sym column among the keys: scans by sym range pay off (no sym column read, one group per batch). */
    private final boolean groupsBySym;
    /** Edge rows (class comment): keep this many rows of each sym's candidates; 0 = all. */
    private final long edgeRows;
    /** Edge rows: the last ones (else the first). */
    private final boolean edgeLast;
    /** Edge rows: chosen by time (ORDER BY time), so only where time is sorted within the rows; else by row order (first/last). */
    private final boolean edgeByTime;

    SegmentBinder(final Plan plan) {
        this.plan = plan;
        long edge = 0;
        boolean last = true;
        boolean byTime = false;
        if (plan.grouped()) {
            if (plan.keys().size() == 1 && plan.keys().get(0).symColumn() && !plan.aggs().isEmpty()) {
                boolean allLast = true;
                boolean allFirst = true;
                for (final Plan.AggSpec a : plan.aggs()) {
                    allLast &= a.kind() == Query.AggKind.LAST;
                    allFirst &= a.kind() == Query.AggKind.FIRST;
                }
                edge = allLast || allFirst ? 1 : 0;
                last = allLast;
            }
        } else if (plan.orderColumns().length == 1 && plan.limit() > 0
            && plan.rowOutputs().get(plan.orderColumns()[0]) instanceof Plan.ColSpec c && c.slot() == TableSchema.TIME) {
            edge = plan.limit();
            last = plan.orderDesc()[0];
            byTime = true;
        }
        this.edgeRows = plan.preds().isEmpty() && plan.symNotIn().isEmpty() ? edge : 0;
        this.edgeLast = last;
        this.edgeByTime = byTime;
        boolean bySym = false;
        if (plan.grouped()) {
            for (final Plan.KeySpec k : plan.keys()) {
                bySym |= k.symColumn();
            }
        }
        boolean countsOnly = true;
        for (final Plan.AggSpec a : plan.aggs()) {
            countsOnly &= a.kind() == Query.AggKind.COUNT;
        }
        // count by sym needs no scan at all (the index counts), so no sym ranges either
        this.groupsBySym = bySym && !countsOnly;
    }

    /** The query's lower bound on time within a day's segment (inclusive; {@code Long.MIN_VALUE}: none). */
    long lowerTime(final int day) {
        long lo = Long.MIN_VALUE;
        for (final Literals.TimeLit t : plan.timeLower()) {
            lo = Math.max(lo, t.resolve(day));
        }
        return lo;
    }

    /** The query's upper bound on time within a day's segment (inclusive; {@code Long.MAX_VALUE}: none). */
    long upperTime(final int day) {
        long hi = Long.MAX_VALUE;
        for (final Literals.TimeLit t : plan.timeUpper()) {
            hi = Math.min(hi, t.resolve(day));
        }
        return hi;
    }

    /** Plan slot → segment column, checking that the segment has each column with the plan's type. */
    private static int[] columns(final TableSchema want, final boolean[] used, final TableSegment seg, final int slots) {
        final int[] map = new int[slots];
        Arrays.fill(map, -1);
        final TableSchema have = seg.schema();
        for (int c = 0; c < want.columnCount(); c++) {
            if (used != null && !used[c]) {
                continue;
            }
            final ColumnDef def = want.column(c);
            final int i = have.indexOf(def.name());
            if (i < 0 || have.type(i) != def.type()) {
                throw QueryException.bad((i < 0 ? "column missing in segment" : "column type differs in segment") + " [table="
                    + want.name() + ", date=" + java.time.LocalDate.ofEpochDay(seg.epochDay()) + ", column=" + def.name()
                    + (i < 0 ? "" : ", type=" + have.type(i).typeName() + ", expected=" + def.type().typeName()) + "]");
            }
            map[c] = i;
        }
        return map;
    }

    /** The as-of segment of the same date, seen through the plan's right schema; null when that date has none. */
    private TableSegment bindRight(final Map<Integer, TableSegment> rights, final TableSegment seg) {
        final TableSegment r = rights.get(seg.epochDay());
        if (r == null) {
            return null;
        }
        final boolean[] used = new boolean[plan.rightSchema().columnCount()];
        used[TableSchema.TIME] = true;
        used[TableSchema.SYM] = true;
        for (final int c : plan.rightColumns()) {
            used[c] = true;
        }
        return new RightView(r, plan.rightSchema(), columns(plan.rightSchema(), used, r, plan.rightSchema().columnCount()));
    }

    /**
     * Binds one segment: its columns, its as-of partner among {@code rights} (by date), its
     * candidate rows and residual conditions. {@code needOrder}: rows of several syms must come
     * in row order (else each sym's rows may come together).
     */
    BoundSegment bind(final TableSegment seg, final Map<Integer, TableSegment> rights, final boolean needOrder) {
        final int[] columns = columns(plan.schema(), plan.leftUsed(), seg, plan.slotCount());
        TableSegment right = null;
        AsOfJoin join = null;
        if (plan.hasAsof()) {
            right = bindRight(rights, seg);
            join = new AsOfJoin(seg, right, plan.tolerance());
        }
        final int day = seg.epochDay();
        final long lo = lowerTime(day);
        final long hi = upperTime(day);
        final List<Pred> preds = new ArrayList<>();
        final RowSet rs = new RowSet();
        if (lo > hi) {
            return new BoundSegment(seg, columns, right, join, rs, NO_PREDS);
        }
        int[] symIds = null;
        if (plan.symIn() != null) {
            symIds = new int[plan.symIn().size()];
            int n = 0;
            for (final String s : plan.symIn()) {
                final int id = seg.symId(s);
                if (id >= 0) {
                    symIds[n++] = id;
                }
            }
            symIds = Arrays.copyOf(symIds, n);
            Arrays.sort(symIds);
            if (n == 0) {
                return new BoundSegment(seg, columns, right, join, rs, NO_PREDS);
            }
        }
        final boolean hasTime = lo != Long.MIN_VALUE || hi != Long.MAX_VALUE;
        final boolean withinSym = seg.timeSorted() || seg.symParted();
        final ColumnChunk probe = new ColumnChunk();
        final int time = columns[TableSchema.TIME];
        boolean timeDone = !hasTime;
        final RowSet one = new RowSet();
        // edge rows of each sym, when time is resolved by the sym's candidates and, for ORDER BY time, sorted in them
        final boolean symEdges = edgeRows > 0 && (!hasTime || withinSym) && (!edgeByTime || withinSym);
        if (symIds != null) {
            for (final int id : symIds) {
                one.clear();
                seg.symRows(id, one);
                if (hasTime && withinSym) {
                    narrow(seg, time, one, lo, hi, probe);
                }
                one.tagSym(id);
                rs.addAll(symEdges ? one.edge(edgeRows, edgeLast) : one);
            }
            timeDone |= withinSym;
            if (needOrder && symIds.length > 1) {
                rs.sortByRow(seg.rowCount());
            }
        } else if (symEdges && !edgeByTime) {
            // the first/last row of every sym through the sym index, not a scan of the table
            for (int id = 0; id < seg.symIdLimit(); id++) {
                one.clear();
                seg.symRows(id, one);
                if (hasTime) {
                    narrow(seg, time, one, lo, hi, probe);
                }
                one.tagSym(id);
                rs.addAll(one.edge(edgeRows, edgeLast));
            }
            if (needOrder) {
                rs.sortByRow(seg.rowCount());
            }
            timeDone = true;
        } else if (seg.timeSorted()) {
            rs.range(0, seg.rowCount());
            if (hasTime) {
                narrow(seg, time, rs, lo, hi, probe);
            }
            if (seg.symParted() && seg.symIdLimit() == 1) {
                rs.tagSym(0);
            }
            if (edgeRows > 0 && edgeByTime) {
                final RowSet cut = rs.edge(edgeRows, edgeLast);
                if (cut != rs) {
                    rs.clear();
                    rs.addAll(cut);
                }
            }
            timeDone = true;
        } else if (seg.symParted() && (hasTime || groupsBySym)) {
            // p#: each sym's range, narrowed to the time range, visited in row order
            for (int id = 0; id < seg.symIdLimit(); id++) {
                one.clear();
                seg.symRows(id, one);
                if (hasTime) {
                    narrow(seg, time, one, lo, hi, probe);
                }
                one.tagSym(id);
                rs.addAll(symEdges ? one.edge(edgeRows, edgeLast) : one);
            }
            rs.sortByRow(seg.rowCount());
            timeDone = true;
        } else {
            rs.range(0, seg.rowCount());
        }
        if (!timeDone) {
            preds.add(new Pred.LongRange(TableSchema.TIME, lo, hi));
        }
        if (!plan.symNotIn().isEmpty()) {
            int max = -1;
            final int[] ids = new int[plan.symNotIn().size()];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = seg.symId(plan.symNotIn().get(i));
                max = Math.max(max, ids[i]);
            }
            if (max >= 0) {
                final boolean[] keep = new boolean[max + 1];
                Arrays.fill(keep, true);
                for (final int id : ids) {
                    if (id >= 0) {
                        keep[id] = false;
                    }
                }
                preds.add(new Pred.SymMask(TableSchema.SYM, keep, true));
            }
        }
        for (final PredSpec p : plan.preds()) {
            preds.add(Pred.of(p, day));
        }
        return new BoundSegment(seg, columns, right, join, rs, preds.toArray(NO_PREDS));
    }

    /** Narrows each entry of a row set to times within [lo, hi] by binary search (time sorted in each entry). */
    static void narrow(final TableSegment seg, final int time, final RowSet rs, final long lo, final long hi,
                               final ColumnChunk probe) {
        for (int e = 0; e < rs.size; e++) {
            final int a = lowerBound(seg, time, rs.lists[e], rs.from[e], rs.to[e], lo, probe);
            final int z = hi == Long.MAX_VALUE ? rs.to[e] : lowerBound(seg, time, rs.lists[e], a, rs.to[e], hi + 1, probe);
            rs.from[e] = a;
            rs.to[e] = z;
        }
    }

    /** First position in [from, to) whose time is >= t. */
    private static int lowerBound(final TableSegment seg, final int time, final int[] list, final int from, final int to,
                                  final long t, final ColumnChunk probe) {
        if (t == Long.MIN_VALUE) {
            return from;
        }
        if (list == null) {
            return seg.lowerBound(time, from, to, t, probe);
        }
        int lo = from;
        int hi = to;
        while (lo < hi) {
            final int mid = (lo + hi) >>> 1;
            seg.read(time, list, mid, 1, probe);
            if (probe.longs()[probe.offset()] < t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
