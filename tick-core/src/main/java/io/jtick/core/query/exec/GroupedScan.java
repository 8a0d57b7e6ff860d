package io.jtick.core.query.exec;

import io.jtick.core.query.model.Query;
import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.plan.Plan;
import io.jtick.core.query.plan.Plan.KeySpec;
import io.jtick.core.query.result.ResultSink;
import io.jtick.core.query.result.ResultStats;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.TableSegment;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The grouped stage of an {@link Execution}: the bound segments' candidate rows scanned batch by
 * batch into {@link Groups} (large scans cut into slices over several threads), or, for
 * {@code count by sym} settled by the sym index alone, counted without reading a row (or from the
 * segment's own counts per sym, {@link TableSegment#symCounts}); then the
 * groups written as a result table, sorted and limited.
 */
final class GroupedScan {
    /**
     * Threads for the other slices of a split scan (CPU-bound tasks that never wait on each other):
     * one per CPU, made once. Not the common fork-join pool: with two CPUs its parallelism is 1 and
     * {@link CompletableFuture} then starts a new thread for every task, so each split query paid a
     * thread start and began with cold thread-local decode buffers.
     */
    private static final Executor POOL = Executors.newFixedThreadPool(Math.max(1, Runtime.getRuntime().availableProcessors()),
        new DefaultThreadFactory("jtick-query-slice", true));
    /** Grouped scans of at least this many rows are split across threads. */
    static final long PARALLEL_MIN_ROWS = 1 << 18;
    /** Slices of a split scan per thread. */
    static final int SLICES_PER_THREAD = 4;

    private final Execution execution;
    private final Plan plan;
    private final SegmentBinder binder;

    GroupedScan(final Execution execution, final SegmentBinder binder) {
        this.execution = execution;
        this.plan = execution.plan;
        this.binder = binder;
    }

    /** Scans (or counts from the index), then writes the groups ordered by key, or by orderBy, and limited. */
    ResultStats run(final List<BoundSegment> bounds, final int capacity, final ResultSink sink) {
        final Groups groups;
        if (countsOnly(bounds)) {
            groups = new Groups(plan, capacity, new SymDict.LocalMap(execution.dict), execution.limits.maxRows());
            for (final BoundSegment bound : bounds) {
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
                    table.symbol(execution.dict.name((int) v));
                } else if (t.isDouble()) {
                    table.value(Double.longBitsToDouble(v));
                } else if (k.expr().nullable() && v == Plan.NULL_LONG) {
                    table.nullValue();
                } else {
                    table.value(v);
                }
            }
            for (final Accumulator a : groups.accs) {
                a.emit(g, table, execution.dict);
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
        return execution.finish(table, cols, desc, sink);
    }

    /**
     * Scans every segment's candidate rows into group state. Large scans (no as-of join) are cut
     * into contiguous slices of the rows in visiting order, {@value #SLICES_PER_THREAD} per thread,
     * each with its own group state; {@code parallelism} threads (the caller and pool threads) take
     * the slices in turn, so a thread that gets no CPU for a while (a busy machine) leaves its share
     * to the others instead of holding up the query. The states are merged in slice order, so
     * first/last stay right.
     */
    private Groups scanGroups(final List<BoundSegment> bounds, final int capacity) {
        long total = 0;
        for (final BoundSegment b : bounds) {
            total += b.rows.rowCount();
        }
        final int threads = plan.hasAsof() || total < PARALLEL_MIN_ROWS ? 1
            : (int) Math.min(execution.parallelism, total / (PARALLEL_MIN_ROWS / 2));
        if (threads <= 1) {
            return scanSlice(bounds, 0, total, new Batch(plan, capacity), new SymDict.LocalMap(execution.dict));
        }
        final int slices = threads * SLICES_PER_THREAD;
        final long per = (total + slices - 1) / slices;
        final Groups[] done = new Groups[slices];
        final AtomicInteger next = new AtomicInteger();
        final Runnable work = () -> {
            final Batch b = new Batch(plan, capacity);
            final SymDict.LocalMap syms = new SymDict.LocalMap(execution.dict);
            for (int k = next.getAndIncrement(); k < slices; k = next.getAndIncrement()) {
                done[k] = scanSlice(bounds, k * per, per, b, syms);
            }
        };
        final List<CompletableFuture<Void>> others = new ArrayList<>();
        for (int t = 1; t < threads; t++) {
            others.add(CompletableFuture.runAsync(work, POOL));
        }
        // every thread is waited for before anything can throw: the caller closes the segments (and
        // may unmap their files) once this returns, so no slice may still be reading them then
        Throwable failure = null;
        try {
            work.run();
        } catch (final RuntimeException | Error e) {
            failure = e;
        }
        for (final CompletableFuture<Void> f : others) {
            try {
                f.join();
            } catch (final CompletionException e) {
                if (failure == null) {
                    failure = e.getCause() != null ? e.getCause() : e;
                }
            }
        }
        if (failure instanceof RuntimeException re) {
            throw re;
        }
        if (failure instanceof Error err) {
            throw err;
        }
        if (failure != null) {
            throw new CompletionException(failure);
        }
        final Groups first = done[0];
        for (int k = 1; k < slices; k++) {
            first.merge(done[k]);
        }
        return first;
    }

    /**
     * Rows {@code [skip, skip + take)} of all segments' candidates, in visiting order, into a new group state;
     * the batch and {@code syms} are the scanning thread's, kept across its slices.
     */
    private Groups scanSlice(final List<BoundSegment> bounds, final long skip, final long take, final Batch b,
                             final SymDict.LocalMap syms) {
        final Groups groups = new Groups(plan, b.capacity, syms, execution.limits.maxRows());
        long scanned = 0;
        long pos = 0;
        for (final BoundSegment bound : bounds) {
            final long n = bound.rows.rowCount();
            final long from = Math.max(skip, pos);
            final long to = Math.min(skip + take, pos + n);
            pos += n;
            if (from >= to) {
                continue;
            }
            final BoundSegment part = from - (pos - n) == 0 && to == pos ? bound
                : bound.withRows(bound.rows.slice(from - (pos - n), to - from));
            b.bind(part.seg, part.columns, part.right);
            groups.bind(part.seg);
            scanned += part.scan(b, batch -> {
                groups.add(batch);
                return true;
            });
        }
        execution.addScanned(scanned);
        return groups;
    }

    /** Only counts, grouped by sym alone, every condition settled by the sym index and time narrowing. */
    private boolean countsOnly(final List<BoundSegment> bounds) {
        if (plan.hasAsof() || plan.keys().size() != 1 || !plan.keys().get(0).symColumn()) {
            return false;
        }
        for (final Plan.AggSpec a : plan.aggs()) {
            if (a.kind() != Query.AggKind.COUNT) {
                return false;
            }
        }
        for (final BoundSegment b : bounds) {
            if (b.preds.length > 0 || plan.timeLower().size() + plan.timeUpper().size() > 0 && !b.seg.timeSorted() && !b.seg.symParted()) {
                return false;
            }
        }
        return true;
    }

    /** {@code count by sym} from the sym index: the length of each sym's rows after time narrowing; no row is read. */
    private void countFromIndex(final BoundSegment bound, final Groups groups) {
        final TableSegment seg = bound.seg;
        groups.bind(seg);
        final int day = seg.epochDay();
        final long lo = binder.lowerTime(day);
        final long hi = binder.upperTime(day);
        if (lo > hi) {
            return;
        }
        final boolean narrow = lo != Long.MIN_VALUE || hi != Long.MAX_VALUE;
        if (!narrow && countFromSegment(seg, groups)) {
            return;
        }
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

    /** All of a segment's rows, per sym, when the segment keeps the counts ({@link TableSegment#symCounts}); false when it does not. */
    private boolean countFromSegment(final TableSegment seg, final Groups groups) {
        final long[] counts = new long[seg.symIdLimit()];
        if (!seg.symCounts(counts)) {
            return false;
        }
        if (plan.symIn() != null) {
            for (final String s : new java.util.LinkedHashSet<>(plan.symIn())) {
                final int id = seg.symId(s);
                if (id >= 0 && counts[id] > 0) {
                    groups.addCount(id, counts[id]);
                }
            }
        } else {
            for (int id = 0; id < counts.length; id++) {
                if (counts[id] > 0) {
                    groups.addCount(id, counts[id]);
                }
            }
        }
        return true;
    }

    private static void countSym(final TableSegment seg, final int id, final RowSet one, final boolean narrow, final int time,
                                 final long lo, final long hi, final ColumnChunk probe, final Groups groups) {
        one.clear();
        seg.symRows(id, one);
        if (narrow) {
            SegmentBinder.narrow(seg, time, one, lo, hi, probe);
        }
        final long n = one.rowCount();
        if (n > 0) {
            groups.addCount(id, n);
        }
    }
}
