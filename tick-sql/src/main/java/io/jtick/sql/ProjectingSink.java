package io.jtick.sql;

import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.result.ResultSink;
import io.jtick.core.query.result.ResultStats;

import java.util.ArrayList;
import java.util.List;

/**
 * The engine's rows as the statement's: columns picked and ordered by the plan's projection, the
 * first {@code offset} rows skipped. Holds one row (its longs, doubles and strings) at a time.
 */
final class ProjectingSink implements ResultSink {
    private static final byte LONG = 0;
    private static final byte DOUBLE = 1;
    private static final byte SYMBOL = 2;
    private static final byte NULL = 3;

    private final ResultSink out;
    private final SqlPlan plan;
    private final boolean identity;
    private final long[] longs;
    private final double[] doubles;
    private final String[] symbols;
    private final byte[] kinds;
    private int column;
    private long skip;
    private long sent;

    ProjectingSink(final ResultSink out, final SqlPlan plan, final int engineColumns) {
        this.out = out;
        this.plan = plan;
        this.skip = plan.offset();
        boolean id = plan.projection().length == engineColumns;
        for (int i = 0; id && i < plan.projection().length; i++) {
            id = plan.projection()[i] == i;
        }
        this.identity = id;
        this.longs = new long[engineColumns];
        this.doubles = new double[engineColumns];
        this.symbols = new String[engineColumns];
        this.kinds = new byte[engineColumns];
    }

    /** The statement's column types from the engine's. */
    static List<ValueType> project(final List<ValueType> engine, final SqlPlan plan) {
        final List<ValueType> out = new ArrayList<>();
        for (final int p : plan.projection()) {
            out.add(engine.get(p));
        }
        return out;
    }

    @Override
    public void begin(final List<String> columns, final List<ValueType> types) {
        out.begin(plan.names(), project(types, plan));
    }

    @Override
    public void value(final long v) {
        if (skip == 0 && identity) {
            out.value(v);
            return;
        }
        kinds[column] = LONG;
        longs[column++] = v;
    }

    @Override
    public void value(final double v) {
        if (skip == 0 && identity) {
            out.value(v);
            return;
        }
        kinds[column] = DOUBLE;
        doubles[column++] = v;
    }

    @Override
    public void symbol(final String s) {
        if (skip == 0 && identity) {
            out.symbol(s);
            return;
        }
        kinds[column] = SYMBOL;
        symbols[column++] = s;
    }

    @Override
    public void nullValue() {
        if (skip == 0 && identity) {
            out.nullValue();
            return;
        }
        kinds[column++] = NULL;
    }

    @Override
    public void endRow() {
        column = 0;
        if (skip > 0) {
            skip--;
            return;
        }
        if (!identity) {
            for (final int p : plan.projection()) {
                switch (kinds[p]) {
                    case LONG -> out.value(longs[p]);
                    case DOUBLE -> out.value(doubles[p]);
                    case SYMBOL -> out.symbol(symbols[p]);
                    default -> out.nullValue();
                }
            }
        }
        sent++;
        out.endRow();
    }

    @Override
    public void end(final ResultStats stats) {
        out.end(stats.rows() == sent ? stats : new ResultStats(sent, stats.rowsScanned(), stats.segments(), stats.elapsedNanos()));
    }
}
