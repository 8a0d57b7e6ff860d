package io.jtick.core.query;

import io.jtick.core.metrics.LatencyStats;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.exec.Execution;
import io.jtick.core.query.model.Query;
import io.jtick.core.query.model.QueryException;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.query.model.QueryParser;
import io.jtick.core.query.plan.Planner;
import io.jtick.core.query.result.ResultSink;
import io.jtick.core.query.result.ResultStats;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.table.QuerySource;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The query engine: a JSON query document (see {@code docs/query.md}) over any
 * {@link QuerySource} — the RDB's tables, HDB partitions, or both through a gateway.
 * {@link #prepare} parses and binds (every error about the document, tables, columns and types is
 * raised there, as a {@link QueryException} naming the problem); {@link #execute} scans the
 * segments, or hands a query that splits to a {@link SplitSource}, and streams the result into a
 * {@link ResultSink}. Stateless between queries and safe for concurrent use; each query runs on its
 * caller's thread (a large grouped scan also on threads of the common fork-join pool).
 *
 * <p>Metrics: {@code tick.query} (latency from parse to the last row), counters
 * {@code tick.query.rows} (rows returned), {@code tick.query.scanned} (rows visited),
 * {@code tick.query.errors} (bad queries) and {@code tick.query.rejected} (over a limit).
 */
public final class QueryEngine {
    private final QueryLimits limits;
    private final int parallelism;
    private final LatencyStats latency;
    private final AtomicLong rows;
    private final AtomicLong scanned;
    private final AtomicLong errors;
    private final AtomicLong rejected;

    /** An engine that splits large grouped scans over every core. */
    public QueryEngine(final TickMetrics metrics, final QueryLimits limits) {
        this(metrics, limits, null, Runtime.getRuntime().availableProcessors());
    }

    /** An engine whose meters carry the tag {@code service=<service>} (rdb, hdb, gateway: one process may run two). */
    public QueryEngine(final TickMetrics metrics, final QueryLimits limits, final String service) {
        this(metrics, limits, service, Runtime.getRuntime().availableProcessors());
    }

    public QueryEngine(final TickMetrics metrics, final QueryLimits limits, final int parallelism) {
        this(metrics, limits, null, parallelism);
    }

    /**
     * @param parallelism threads one query may use for a large grouped scan (1: the caller's only);
     *                    the others come from the common fork-join pool
     */
    public QueryEngine(final TickMetrics metrics, final QueryLimits limits, final String service, final int parallelism) {
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be positive [parallelism=" + parallelism + "]");
        }
        this.limits = limits;
        this.parallelism = parallelism;
        final String tag = service == null ? "" : "|service=" + service;
        this.latency = metrics.latency("tick.query" + tag, "Query time from parse to the last result row");
        this.rows = metrics.counter("tick.query.rows" + tag);
        this.scanned = metrics.counter("tick.query.scanned" + tag);
        this.errors = metrics.counter("tick.query.errors" + tag);
        this.rejected = metrics.counter("tick.query.rejected" + tag);
    }

    /** An engine with the default limits whose metrics go nowhere (tests, benchmarks). */
    public QueryEngine() {
        this(new TickMetrics(), QueryLimits.DEFAULT);
    }

    public QueryLimits limits() {
        return limits;
    }

    /** Parses and binds a query document against the source's schemas. */
    public PreparedQuery prepare(final String json, final QuerySource source) {
        final long start = System.nanoTime();
        try {
            final Query q = QueryParser.parse(json);
            return new PreparedQuery(Planner.plan(q, source.schema(q.table()),
                q.asof() == null ? null : source.schema(q.asof().table())), start);
        } catch (final QueryException e) {
            count(e);
            throw e;
        }
    }

    /** Runs a prepared query, streaming its rows into {@code sink}; records {@code tick.query}. */
    public ResultStats execute(final PreparedQuery query, final QuerySource source, final ResultSink sink) {
        try {
            final SplitQuery split = source instanceof SplitSource s && s.splits() ? SplitQuery.of(query, limits, parallelism) : null;
            final ResultStats stats = split != null ? ((SplitSource) source).execute(split, sink)
                : new Execution(query.plan, source, limits, query.startNanos, parallelism).run(sink);
            rows.getAndAdd(stats.rows());
            scanned.getAndAdd(stats.rowsScanned());
            latency.record(System.nanoTime() - query.startNanos);
            return stats;
        } catch (final QueryException e) {
            count(e);
            throw e;
        }
    }

    /**
     * Prepares and runs a query; {@code sinkFor} gets the prepared query (columns and types known)
     * and returns where the rows go (a service sets response headers there).
     */
    public ResultStats run(final String json, final QuerySource source, final Function<PreparedQuery, ResultSink> sinkFor) {
        final PreparedQuery q = prepare(json, source);
        return execute(q, source, sinkFor.apply(q));
    }

    /** Runs a query and keeps its result in memory. */
    public ResultTable query(final String json, final QuerySource source) {
        final ResultTable table = new ResultTable();
        run(json, source, q -> table);
        return table;
    }

    private void count(final QueryException e) {
        (e.reason() == QueryException.Reason.TOO_LARGE ? rejected : errors).getAndIncrement();
    }
}
