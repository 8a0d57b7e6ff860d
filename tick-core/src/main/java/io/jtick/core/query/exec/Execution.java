package io.jtick.core.query.exec;

import io.jtick.core.query.model.Literals;
import io.jtick.core.query.model.Query;
import io.jtick.core.query.model.QueryException;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.plan.Plan;
import io.jtick.core.query.plan.Plan.KeySpec;
import io.jtick.core.query.plan.Plan.PredSpec;
import io.jtick.core.query.result.ResultSink;
import io.jtick.core.query.result.ResultStats;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.QuerySource;
import io.jtick.core.table.RowSink;
import io.jtick.core.table.ScanHint;
import io.jtick.core.table.TableSegment;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One run of a plan over the segments of a {@link QuerySource}: per segment, narrow the rows
 * through the sym index and binary search on time, then scan them batch by batch (filter, as-of
 * match, group and aggregate, or collect rows), then write the result. Segments are visited in
 * date order, so first/last and row order follow time across dates.
 */
public final class Execution {
    private final Plan plan;
    private final QuerySource source;
    private final QueryLimits limits;
    private final long startNanos;
    private final int parallelism;
    private final SymDict dict = new SymDict();
    private final List<TableSegment> open = new ArrayList<>();
    private long rowsScanned;
    private int segmentsRead;

    /** Threads for the other slices of a split scan (CPU-bound tasks that never wait on each other). */
    private static final java.util.concurrent.Executor POOL = java.util.concurrent.ForkJoinPool.commonPool();
    /** Grouped scans of at least this many rows are split across threads. */
    static final long PARALLEL_MIN_ROWS = 1 << 18;

    public Execution(final Plan plan, final QuerySource source, final QueryLimits limits, final long startNanos, final int parallelism) {
        this.plan = plan;
        this.source = source;
        this.limits = limits;
        this.startNanos = startNanos;
        this.parallelism = parallelism;
    }

    public ResultStats run(final ResultSink sink) {
        try {
            final List<TableSegment> segments = segments();
            final Map<Integer, TableSegment> rights = rightSegments();
            final boolean needOrder = plan.needsRowOrder();
            final List<Bound> bounds = new ArrayList<>(segments.size());
            long most = 0;
            for (final TableSegment s : segments) {
                final Bound b = bind(s, rights, needOrder);
                bounds.add(b);
                for (int e = 0; e < b.rows.size; e++) {
                    most = Math.max(most, Math.min(s.chunkRows(), b.rows.to[e] - b.rows.from[e]));
                }
            }
            segmentsRead = bounds.size();
            // buffers as large as the largest batch, not more: a one-sym query does not zero 16K-row arrays
            final int capacity = (int) Math.max(64, Long.highestOneBit(Math.max(1, most - 1)) << 1);
            return plan.grouped() ? grouped(bounds, capacity, sink) : rows(bounds, capacity, sink);
        } finally {
            for (final TableSegment s : open) {
                try {
                    s.close();
                } catch (final Exception ignored) {
                    // closing a segment must not hide the query's own outcome
                }
            }
        }
    }

    // ---- segments -------------------------------------------------------------------------------

    private int fromDay() {
        return plan.query().dates() == null ? QuerySource.ALL_DAYS_FROM : plan.query().dates().from();
    }

    private int toDay() {
        return plan.query().dates() == null ? QuerySource.ALL_DAYS_TO : plan.query().dates().to();
    }

    private List<TableSegment> segments() {
        final List<String> cols = new ArrayList<>();
        for (int c = 0; c < plan.leftColumns(); c++) {
            if (plan.leftUsed()[c]) {
                cols.add(plan.schema().column(c).name());
            }
        }
        final List<TableSegment> got = source.segments(plan.query().table(), fromDay(), toDay(),
            new ScanHint(cols, plan.query().whereJson()));
        open.addAll(got);
        final List<TableSegment> keep = new ArrayList<>();
        for (final TableSegment s : got) {
            if (plan.query().dates() == null || plan.query().dates().contains(s.epochDay())) {
                keep.add(s);
            }
        }
        return keep;
    }

    private Map<Integer, TableSegment> rightSegments() {
        if (!plan.hasAsof()) {
            return Map.of();
        }
        final List<String> cols = new ArrayList<>(List.of("time", "sym"));
        for (final int c : plan.rightColumns()) {
            final String n = plan.rightSchema().column(c).name();
            if (!cols.contains(n)) {
                cols.add(n);
            }
        }
        Object where = null;
        if (plan.symIn() != null) {
            final Map<String, Object> w = new LinkedHashMap<>();
            w.put("sym", Map.of("in", plan.symIn()));
            where = w;
        }
        final List<TableSegment> got = source.segments(plan.rightSchema().name(), fromDay(), toDay(), new ScanHint(cols, where));
        open.addAll(got);
        final Map<Integer, TableSegment> byDay = new HashMap<>();
        for (final TableSegment s : got) {
            byDay.putIfAbsent(s.epochDay(), s);
        }
        return byDay;
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

    /** A segment bound to the plan: column map, as-of partner, candidate rows, residual conditions. */
    private static final class Bound {
        TableSegment seg;
        int[] columns;
        TableSegment right;
        AsOfJoin join;
        RowSet rows;
        Pred[] preds;

        /** The same binding over other rows (a slice for one thread). */
        Bound withRows(final RowSet other) {
            final Bound b = new Bound();
            b.seg = seg;
            b.columns = columns;
            b.right = right;
            b.join = join;
            b.rows = other;
            b.preds = preds;
            return b;
        }
    }

    private Bound bind(final TableSegment seg, final Map<Integer, TableSegment> rights, final boolean needOrder) {
        final Bound b = new Bound();
        b.seg = seg;
        b.columns = columns(plan.schema(), plan.leftUsed(), seg, plan.slotCount());
        if (plan.hasAsof()) {
            b.right = bindRight(rights, seg);
            b.join = new AsOfJoin(seg, b.right, plan.tolerance());
        }
        final int day = seg.epochDay();
        long lo = Long.MIN_VALUE;
        long hi = Long.MAX_VALUE;
        for (final Literals.TimeLit t : plan.timeLower()) {
            lo = Math.max(lo, t.resolve(day));
        }
        for (final Literals.TimeLit t : plan.timeUpper()) {
            hi = Math.min(hi, t.resolve(day));
        }
        final List<Pred> preds = new ArrayList<>();
        final RowSet rs = new RowSet();
        b.rows = rs;
        if (lo > hi) {
            b.preds = new Pred[0];
            return b;
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
                b.preds = new Pred[0];
                return b;
            }
        }
        final boolean hasTime = lo != Long.MIN_VALUE || hi != Long.MAX_VALUE;
        final boolean withinSym = seg.timeSorted() || seg.symParted();
        final ColumnChunk probe = new ColumnChunk();
        final int time = b.columns[TableSchema.TIME];
        boolean timeDone = !hasTime;
        final RowSet one = new RowSet();
        if (symIds != null) {
            for (final int id : symIds) {
                one.clear();
                seg.symRows(id, one);
                if (hasTime && withinSym) {
                    narrow(seg, time, one, lo, hi, probe);
                }
                rs.addAll(one);
            }
            timeDone |= withinSym;
            if (needOrder && symIds.length > 1) {
                rs.sortByRow(seg.rowCount());
            }
        } else if (seg.timeSorted()) {
            rs.range(0, seg.rowCount());
            if (hasTime) {
                narrow(seg, time, rs, lo, hi, probe);
            }
            timeDone = true;
        } else if (seg.symParted() && hasTime) {
            for (int id = 0; id < seg.symIdLimit(); id++) {
                one.clear();
                seg.symRows(id, one);
                narrow(seg, time, one, lo, hi, probe);
                rs.addAll(one);
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
        b.preds = preds.toArray(new Pred[0]);
        return b;
    }

    /** Narrows each entry of a row set to times within [lo, hi] by binary search (time sorted in each entry). */
    private static void narrow(final TableSegment seg, final int time, final RowSet rs, final long lo, final long hi,
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
        int lo = from;
        int hi = to;
        while (lo < hi) {
            final int mid = (lo + hi) >>> 1;
            if (list == null) {
                seg.read(time, mid, 1, probe);
            } else {
                seg.read(time, list, mid, 1, probe);
            }
            if (probe.longs()[probe.offset()] < t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    // ---- scanning -------------------------------------------------------------------------------

    /** What a scan does with each batch that has kept rows; false stops the scan. */
    private interface Consumer {
        boolean accept(Batch b);
    }

    /** Visits the bound's candidate rows batch by batch until the consumer says stop; returns the rows visited. */
    private static long scan(final Bound bound, final Batch b, final Consumer consumer) {
        final TableSegment seg = bound.seg;
        final RowSet rs = bound.rows;
        final Pred[] preds = bound.preds;
        final int chunk = Math.min(seg.chunkRows(), b.capacity);
        long visited = 0;
        for (int e = 0; e < rs.size; e++) {
            final int[] list = rs.lists[e];
            final int to = rs.to[e];
            for (int p = rs.from[e]; p < to; p += chunk) {
                final int n = Math.min(chunk, to - p);
                if (list == null) {
                    b.setRange(p, n);
                } else {
                    b.setList(list, p, n);
                }
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
                if (bound.join != null) {
                    bound.join.match(b);
                }
                if (!consumer.accept(b)) {
                    return visited;
                }
            }
        }
        return visited;
    }

    // ---- grouped --------------------------------------------------------------------------------

    private ResultStats grouped(final List<Bound> bounds, final int capacity, final ResultSink sink) {
        final Groups groups;
        if (countsOnly(bounds)) {
            groups = new Groups(plan, capacity, dict, limits.maxRows());
            for (final Bound bound : bounds) {
                countFromIndex(bound, groups);
            }
        } else {
            groups = scanGroups(bounds, capacity);
        }
        final ResultTable table = new ResultTable();
        table.begin(plan.outNames(), plan.outTypes());
        for (int g = 0; g < groups.size; g++) {
            for (int j = 0; j < plan.keys().size(); j++) {
                final KeySpec k = plan.keys().get(j);
                final long v = groups.key(g, j);
                final ValueType t = k.expr().type();
                if (k.symColumn()) {
                    table.symbol(dict.name((int) v));
                } else if (t.isDouble()) {
                    table.value(Double.longBitsToDouble(v));
                } else if (k.expr().nullable() && v == Plan.NULL_LONG) {
                    table.nullValue();
                } else {
                    table.value(v);
                }
            }
            for (final Acc a : groups.accs) {
                a.emit(g, table, dict);
            }
            table.endRow();
        }
        int[] cols = plan.orderColumns();
        boolean[] desc = plan.orderDesc();
        if (cols.length == 0) {
            cols = new int[plan.keys().size()];
            desc = new boolean[cols.length];
            for (int i = 0; i < cols.length; i++) {
                cols[i] = i;
            }
        }
        return finish(table, cols, desc, sink);
    }

    /**
     * Scans every segment's candidate rows into group state. Large scans (no as-of join) are cut
     * into {@code parallelism} contiguous slices of the rows in visiting order, one per thread,
     * each with its own group state, merged in slice order so first/last stay right.
     */
    private Groups scanGroups(final List<Bound> bounds, final int capacity) {
        long total = 0;
        for (final Bound b : bounds) {
            total += b.rows.rowCount();
        }
        final int parts = plan.hasAsof() || total < PARALLEL_MIN_ROWS ? 1 : (int) Math.min(parallelism, total / (PARALLEL_MIN_ROWS / 2));
        if (parts <= 1) {
            return scanSlice(bounds, capacity, 0, total);
        }
        final long per = (total + parts - 1) / parts;
        final List<java.util.concurrent.CompletableFuture<Groups>> others = new ArrayList<>();
        for (int k = 1; k < parts; k++) {
            final long skip = k * per;
            others.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> scanSlice(bounds, capacity, skip, per), POOL));
        }
        final Groups first = scanSlice(bounds, capacity, 0, per);
        for (final java.util.concurrent.CompletableFuture<Groups> f : others) {
            final Groups g;
            try {
                g = f.join();
            } catch (final java.util.concurrent.CompletionException e) {
                if (e.getCause() instanceof RuntimeException re) {
                    throw re;
                }
                throw e;
            }
            first.merge(g);
        }
        return first;
    }

    /** Rows {@code [skip, skip + take)} of all segments' candidates, in visiting order, into a new group state. */
    private Groups scanSlice(final List<Bound> bounds, final int capacity, final long skip, final long take) {
        final Batch b = new Batch(plan, capacity);
        final Groups groups = new Groups(plan, capacity, dict, limits.maxRows());
        final long[] scanned = {0};
        long pos = 0;
        for (final Bound bound : bounds) {
            final long n = bound.rows.rowCount();
            final long from = Math.max(skip, pos);
            final long to = Math.min(skip + take, pos + n);
            pos += n;
            if (from >= to) {
                continue;
            }
            final Bound part = from - (pos - n) == 0 && to == pos ? bound : bound.withRows(bound.rows.slice(from - (pos - n), to - from));
            b.bind(part.seg, part.columns, rightOf(part));
            groups.bind(part.seg);
            scanned[0] += scan(part, b, batch -> {
                groups.add(batch);
                return true;
            });
        }
        synchronized (this) {
            rowsScanned += scanned[0];
        }
        return groups;
    }

    /** Only counts, grouped by sym alone, every condition settled by the sym index and time narrowing. */
    private boolean countsOnly(final List<Bound> bounds) {
        if (plan.hasAsof() || plan.keys().size() != 1 || !plan.keys().get(0).symColumn()) {
            return false;
        }
        for (final Plan.AggSpec a : plan.aggs()) {
            if (a.kind() != Query.AggKind.COUNT) {
                return false;
            }
        }
        for (final Bound b : bounds) {
            if (b.preds.length > 0 || plan.timeLower().size() + plan.timeUpper().size() > 0 && !b.seg.timeSorted() && !b.seg.symParted()) {
                return false;
            }
        }
        return true;
    }

    /** {@code count by sym} from the sym index: the length of each sym's rows after time narrowing; no row is read. */
    private void countFromIndex(final Bound bound, final Groups groups) {
        final TableSegment seg = bound.seg;
        groups.bind(seg);
        final int day = seg.epochDay();
        long lo = Long.MIN_VALUE;
        long hi = Long.MAX_VALUE;
        for (final Literals.TimeLit t : plan.timeLower()) {
            lo = Math.max(lo, t.resolve(day));
        }
        for (final Literals.TimeLit t : plan.timeUpper()) {
            hi = Math.min(hi, t.resolve(day));
        }
        if (lo > hi) {
            return;
        }
        final boolean narrow = lo != Long.MIN_VALUE || hi != Long.MAX_VALUE;
        final ColumnChunk probe = new ColumnChunk();
        final RowSet one = new RowSet();
        final int time = bound.columns[TableSchema.TIME];
        if (plan.symIn() != null) {
            for (final String s : new java.util.LinkedHashSet<>(plan.symIn())) {
                final int id = seg.symId(s);
                if (id >= 0) {
                    countSym(seg, id, one, narrow, time, lo, hi, probe, groups);
                }
            }
        } else {
            for (int id = 0; id < seg.symIdLimit(); id++) {
                countSym(seg, id, one, narrow, time, lo, hi, probe, groups);
            }
        }
    }

    private static void countSym(final TableSegment seg, final int id, final RowSet one, final boolean narrow, final int time,
                                 final long lo, final long hi, final ColumnChunk probe, final Groups groups) {
        one.clear();
        seg.symRows(id, one);
        if (narrow) {
            narrow(seg, time, one, lo, hi, probe);
        }
        final long n = one.rowCount();
        if (n > 0) {
            groups.addCount(id, n);
        }
    }

    private static TableSegment rightOf(final Bound bound) {
        return bound.right;
    }

    /** Sorts a materialized result, applies the limit and sends it. */
    private ResultStats finish(final ResultTable table, final int[] cols, final boolean[] desc, final ResultSink sink) {
        final int[] order = cols.length == 0 ? null : table.order(cols, desc);
        final int n = (int) (plan.limit() > 0 ? Math.min(plan.limit(), table.rowCount()) : table.rowCount());
        checkBytes(n);
        table.writeTo(sink, order, 0, n);
        final ResultStats stats = new ResultStats(n, rowsScanned, segmentsRead, System.nanoTime() - startNanos);
        sink.end(stats);
        return stats;
    }

    /** Refuses before writing anything when even a lower bound of the encoded size is over the byte limit. */
    private void checkBytes(final long rows) {
        long perRow = 3;
        for (final ValueType t : plan.outTypes()) {
            switch (t) {
                case TIMESTAMP:
                    perRow += 23;
                    break;
                case DATE:
                    perRow += 13;
                    break;
                case SYMBOL:
                case CHAR:
                    perRow += 4;
                    break;
                default:
                    perRow += 2;
                    break;
            }
        }
        if (rows * perRow > limits.maxBytes()) {
            throw QueryException.tooLarge("result over the byte limit [rows=" + rows + ", bytes>=" + rows * perRow + ", maxBytes="
                + limits.maxBytes() + "]: narrow the query, add a limit or raise tick.query.max-bytes");
        }
    }

    // ---- rows -----------------------------------------------------------------------------------

    /** Rows kept in one segment, in order, and their as-of matches. */
    private static final class Kept {
        /** Marks entries that are slices of {@link #store} while it still grows. */
        static final int[] STORE = new int[0];
        final Bound bound;
        final RowSet rows = new RowSet();
        int[] store = new int[64];
        int stored;
        int[] right;
        int rightCount;

        Kept(final Bound bound) {
            this.bound = bound;
        }

        void add(final int row) {
            if (stored == store.length) {
                store = Arrays.copyOf(store, stored << 1);
            }
            store[stored++] = row;
        }

        void addRight(final int row) {
            if (right == null) {
                right = new int[64];
            } else if (rightCount == right.length) {
                right = Arrays.copyOf(right, rightCount << 1);
            }
            right[rightCount++] = row;
        }
    }

    private ResultStats rows(final List<Bound> bounds, final int capacity, final ResultSink sink) {
        final Batch b = new Batch(plan, capacity);
        final boolean sorted = plan.orderColumns().length > 0;
        final long maxRows = limits.maxRows();
        final long cap = sorted || plan.limit() == 0 ? maxRows + 1 : Math.min(plan.limit(), maxRows + 1);
        final List<Kept> kept = new ArrayList<>();
        final long[] total = {0};
        for (final Bound bound : bounds) {
            if (total[0] >= cap) {
                break;
            }
            if (bound.rows.size == 0) {
                continue;
            }
            final TableSegment seg = bound.seg;
            final Kept k = new Kept(bound);
            kept.add(k);
            b.bind(seg, bound.columns, rightOf(bound));
            // entries: whole range batches as ranges; kept rows of other batches go to k.store, as
            // slices marked STORE and pointed at the final store array afterwards
            rowsScanned += scan(bound, b, batch -> {
                final int take = (int) Math.min(batch.count, cap - total[0]);
                if (batch.isRange && batch.sel == null) {
                    k.rows.range(batch.from, batch.from + take);
                } else {
                    final int start = k.stored;
                    for (int i = 0; i < take; i++) {
                        k.add(batch.row(batch.sel == null ? i : batch.sel[i]));
                    }
                    k.rows.add(Kept.STORE, start, k.stored);
                }
                if (batch.match != null) {
                    for (int i = 0; i < take; i++) {
                        k.addRight(batch.match[batch.sel == null ? i : batch.sel[i]]);
                    }
                }
                total[0] += take;
                return total[0] < cap;
            });
            for (int e = 0; e < k.rows.size; e++) {
                if (k.rows.lists[e] == Kept.STORE) {
                    k.rows.lists[e] = k.store;
                }
            }
        }
        if (total[0] > maxRows) {
            throw QueryException.tooLarge("result over the row limit [rows>" + maxRows + ", maxRows=" + maxRows
                + "]: narrow the query, add a limit or raise tick.query.max-rows");
        }
        if (sorted) {
            final ResultTable table = new ResultTable();
            emitRows(kept, b, capacity, table);
            return finish(table, plan.orderColumns(), plan.orderDesc(), sink);
        }
        checkBytes(total[0]);
        final long n = emitRows(kept, b, capacity, sink);
        final ResultStats stats = new ResultStats(n, rowsScanned, segmentsRead, System.nanoTime() - startNanos);
        sink.end(stats);
        return stats;
    }

    private long emitRows(final List<Kept> kept, final Batch b, final int capacity, final ResultSink sink) {
        final int outs = plan.rowOutputs().size();
        final Ev[] evs = new Ev[outs];
        final int[] kind = new int[outs];
        for (int j = 0; j < outs; j++) {
            evs[j] = Ev.of(plan.rowOutputs().get(j), capacity);
            final ValueType t = evs[j].type;
            kind[j] = t == ValueType.SYMBOL ? 0 : t.isDouble() ? 1 : evs[j].nullable ? 3 : 2;
        }
        sink.begin(plan.outNames(), plan.outTypes());
        long rows = 0;
        for (final Kept k : kept) {
            final TableSegment seg = k.bound.seg;
            b.bind(seg, k.bound.columns, rightOf(k.bound));
            final int chunk = Math.min(seg.chunkRows(), capacity);
            int matchAt = 0;
            final RowSet rs = k.rows;
            for (int e = 0; e < rs.size; e++) {
                final int[] list = rs.lists[e];
                for (int p = rs.from[e]; p < rs.to[e]; p += chunk) {
                    final int n = Math.min(chunk, rs.to[e] - p);
                    if (list == null) {
                        b.setRange(p, n);
                    } else {
                        b.setList(list, p, n);
                    }
                    if (b.match != null) {
                        System.arraycopy(k.right, matchAt, b.match, 0, n);
                        matchAt += n;
                    }
                    for (final Ev ev : evs) {
                        ev.eval(b);
                    }
                    for (int i = 0; i < n; i++) {
                        for (int j = 0; j < outs; j++) {
                            final Ev ev = evs[j];
                            switch (kind[j]) {
                                case 0:
                                    sink.symbol(seg.symName(ev.s[ev.off + i]));
                                    break;
                                case 1:
                                    sink.value(ev.d[ev.off + i]);
                                    break;
                                case 2:
                                    sink.value(ev.l[ev.off + i]);
                                    break;
                                default: {
                                    final long v = ev.l[ev.off + i];
                                    if (v == Plan.NULL_LONG) {
                                        sink.nullValue();
                                    } else {
                                        sink.value(v);
                                    }
                                    break;
                                }
                            }
                        }
                        sink.endRow();
                    }
                    rows += n;
                }
            }
        }
        return rows;
    }

    /**
     * The as-of segment seen through the plan's right schema: column c of the plan's schema reads
     * the segment's column of the same name (segments of other dates may order columns differently).
     */
    private static final class RightView implements TableSegment {
        private final TableSegment seg;
        private final TableSchema schema;
        private final int[] map;

        RightView(final TableSegment seg, final TableSchema schema, final int[] map) {
            this.seg = seg;
            this.schema = schema;
            this.map = map;
        }

        @Override
        public TableSchema schema() {
            return schema;
        }

        @Override
        public int epochDay() {
            return seg.epochDay();
        }

        @Override
        public int rowCount() {
            return seg.rowCount();
        }

        @Override
        public boolean timeSorted() {
            return seg.timeSorted();
        }

        @Override
        public boolean symParted() {
            return seg.symParted();
        }

        @Override
        public int symId(final String sym) {
            return seg.symId(sym);
        }

        @Override
        public String symName(final int symId) {
            return seg.symName(symId);
        }

        @Override
        public int symIdLimit() {
            return seg.symIdLimit();
        }

        @Override
        public void symRows(final int symId, final RowSink sink) {
            seg.symRows(symId, sink);
        }

        @Override
        public void read(final int column, final int from, final int length, final ColumnChunk chunk) {
            seg.read(map[column], from, length, chunk);
        }

        @Override
        public void read(final int column, final int[] rows, final int at, final int length, final ColumnChunk chunk) {
            seg.read(map[column], rows, at, length, chunk);
        }

        @Override
        public int chunkRows() {
            return seg.chunkRows();
        }
    }
}
