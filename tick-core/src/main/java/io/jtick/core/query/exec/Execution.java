package io.jtick.core.query.exec;

import io.jtick.core.query.model.QueryException;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.plan.Plan;
import io.jtick.core.query.result.ResultSink;
import io.jtick.core.query.result.ResultStats;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.table.QuerySource;
import io.jtick.core.table.ScanHint;
import io.jtick.core.table.TableSegment;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One run of a plan over the segments of a {@link QuerySource}, stage by stage: fetch the
 * segments (and the as-of table's), bind each to the plan ({@link SegmentBinder}: candidate rows
 * through the sym index and binary search on time, residual conditions), scan the candidates batch
 * by batch ({@link BoundSegment#scan}) into groups ({@link GroupedScan}) or kept rows
 * ({@link RowScan}), then write the result. Segments are visited in date order, so first/last and
 * row order follow time across dates.
 */
public final class Execution {
    final Plan plan;
    final QueryLimits limits;
    final int parallelism;
    /** Query-wide sym ids, shared by every segment and thread of the run. */
    final SymDict dict = new SymDict();
    private final QuerySource source;
    private final long startNanos;
    private final List<TableSegment> open = new ArrayList<>();
    private long rowsScanned;
    private int segmentsRead;

    public Execution(final Plan plan, final QuerySource source, final QueryLimits limits, final long startNanos, final int parallelism) {
        this.plan = plan;
        this.source = source;
        this.limits = limits;
        this.startNanos = startNanos;
        this.parallelism = parallelism;
    }

    /** Runs the plan, streams the result into {@code sink} and ends it; closes every segment it opened. */
    public ResultStats run(final ResultSink sink) {
        try {
            final List<TableSegment> segments = segments();
            final Map<Integer, TableSegment> rights = rightSegments();
            final SegmentBinder binder = new SegmentBinder(plan);
            final boolean needOrder = plan.needsRowOrder();
            final List<BoundSegment> bounds = new ArrayList<>(segments.size());
            long most = 0;
            for (final TableSegment s : segments) {
                final BoundSegment b = binder.bind(s, rights, needOrder);
                bounds.add(b);
                for (int e = 0; e < b.rows.size; e++) {
                    most = Math.max(most, Math.min(s.chunkRows(), b.rows.to[e] - b.rows.from[e]));
                }
            }
            segmentsRead = bounds.size();
            // buffers as large as the largest batch, not more: a one-sym query does not zero 16K-row arrays
            final int capacity = (int) Math.max(64, Long.highestOneBit(Math.max(1, most - 1)) << 1);
            return plan.grouped() ? new GroupedScan(this, binder).run(bounds, capacity, sink)
                : new RowScan(this).run(bounds, capacity, sink);
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

    // ---- result ---------------------------------------------------------------------------------

    /** Counts rows a scan visited (scans on other threads included). */
    synchronized void addScanned(final long rows) {
        rowsScanned += rows;
    }

    /** Sorts a materialized result, applies the limit and sends it. */
    ResultStats finish(final ResultTable table, final int[] cols, final boolean[] desc, final ResultSink sink) {
        final int[] order = cols.length == 0 ? null : table.order(cols, desc, plan.limit());
        final int n = (int) (plan.limit() > 0 ? Math.min(plan.limit(), table.rowCount()) : table.rowCount());
        checkBytes(n);
        table.writeTo(sink, order, 0, n);
        return end(n, sink);
    }

    /** Ends the sink with the run's stats. */
    ResultStats end(final long rows, final ResultSink sink) {
        final ResultStats stats;
        synchronized (this) {
            stats = new ResultStats(rows, rowsScanned, segmentsRead, System.nanoTime() - startNanos);
        }
        sink.end(stats);
        return stats;
    }

    /** Refuses before writing anything when even a lower bound of the encoded size is over the byte limit. */
    void checkBytes(final long rows) {
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
}
