package io.jtick.sql;

import io.jtick.core.query.PreparedQuery;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.model.QueryException;
import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.result.ResultSink;
import io.jtick.core.query.result.ResultStats;
import io.jtick.core.table.QuerySource;
import io.jtick.core.time.NanoClock;

import java.util.ArrayList;
import java.util.List;

/**
 * SQL on a query engine: {@link #prepare} compiles a statement ({@link SqlCompiler}) and prepares
 * its document on the engine (every error, the engine's included, a {@link SqlException}),
 * {@link #execute} streams its rows into a sink as the statement's columns. Stateless and
 * thread-safe, as the engine is.
 */
public final class SqlRunner {
    private final QueryEngine engine;
    private final NanoClock clock;

    public SqlRunner(final QueryEngine engine, final NanoClock clock) {
        this.engine = engine;
        this.clock = clock;
    }

    public QueryEngine engine() {
        return engine;
    }

    /** A statement compiled and prepared: its columns and their types known before it runs. */
    public record Prepared(SqlPlan plan, PreparedQuery query, List<String> names, List<ValueType> types, int engineColumns) {
        /** The statement to run once more without compiling it again (it has no parameters and does not read the clock). */
        public Prepared again() {
            return new Prepared(plan, query.again(), names, types, engineColumns);
        }

        /** True when {@link #again} gives the statement as compiling it again would: no parameters, no {@code now()}. */
        public boolean reusable(final int parameters) {
            return parameters == 0 && !plan.readsClock();
        }
    }

    public Prepared prepare(final String sql, final QuerySource source, final SqlParams params) {
        return prepare(SqlCompiler.compile(sql, source, params, clock.epochNanos()), source);
    }

    /** The clock {@code now()} reads. */
    public NanoClock clock() {
        return clock;
    }

    /**
     * Prepares a plan another front end compiled (q's {@code io.jtick.sql.q.QCompiler}): one plan,
     * one engine, whichever language wrote it.
     */
    public Prepared prepare(final SqlPlan plan, final QuerySource source) {
        try {
            final PreparedQuery q = engine.prepare(plan.json(), source);
            final List<ValueType> engineTypes = new ArrayList<>();
            for (final String t : q.typesHeader().split(",")) {
                engineTypes.add(ValueType.parse(t));
            }
            return new Prepared(plan, q, plan.names(), ProjectingSink.project(engineTypes, plan), engineTypes.size());
        } catch (final QueryException e) {
            throw SqlException.of(e);
        }
    }

    /** Runs a prepared statement; the engine's refusals (over a limit, a source gone) as {@link SqlException}s. */
    public ResultStats execute(final Prepared p, final QuerySource source, final ResultSink sink) {
        try {
            return engine.execute(p.query(), source, new ProjectingSink(sink, p.plan(), p.engineColumns()));
        } catch (final QueryException e) {
            throw SqlException.of(e);
        }
    }

    /** The X-Jtick-Types header of the statement's columns. */
    public static String typesHeader(final Prepared p) {
        final StringBuilder sb = new StringBuilder();
        for (final ValueType t : p.types()) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(t.typeName());
        }
        return sb.toString();
    }
}
