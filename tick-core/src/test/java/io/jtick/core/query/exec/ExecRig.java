package io.jtick.core.query.exec;

import io.jtick.core.query.model.QueryParser;
import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.plan.Plan;
import io.jtick.core.query.plan.Planner;
import io.jtick.core.query.result.ResultSink;
import io.jtick.core.query.result.ResultStats;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.TableSegment;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Drives the execution pieces by hand over small in-memory segments: a plan from a query document,
 * a {@link Batch} bound to a segment, {@link Groups} fed one batch per segment, and a sink that
 * records what each aggregate emits (null for {@code nullValue}).
 */
final class ExecRig {
    static final int CAPACITY = 64;

    private ExecRig() {
    }

    static Plan plan(final String json, final TableSchema schema) {
        return Planner.plan(QueryParser.parse(json), schema, null);
    }

    static Plan plan(final String json, final TableSchema schema, final TableSchema right) {
        return Planner.plan(QueryParser.parse(json), schema, right);
    }

    /** Plan slot → segment column by name, as the binder does; -1 for slots the segment does not give. */
    static int[] columns(final Plan plan, final TableSegment seg) {
        final int[] map = new int[plan.slotCount()];
        Arrays.fill(map, -1);
        for (int c = 0; c < plan.leftColumns(); c++) {
            map[c] = seg.schema().indexOf(plan.schema().column(c).name());
        }
        return map;
    }

    /** A batch over every row of a segment (at most {@link #CAPACITY}), nothing filtered. */
    static Batch batch(final Plan plan, final TableSegment seg) {
        final Batch b = new Batch(plan, CAPACITY);
        b.bind(seg, columns(plan, seg), null);
        b.setRange(0, seg.rowCount(), -1);
        return b;
    }

    static Groups groups(final Plan plan, final SymDict dict, final TableSegment... segments) {
        final Groups groups = new Groups(plan, CAPACITY, new SymDict.LocalMap(dict), 1_000);
        for (final TableSegment seg : segments) {
            feed(groups, plan, seg);
        }
        return groups;
    }

    static void feed(final Groups groups, final Plan plan, final TableSegment seg) {
        groups.bind(seg);
        groups.add(batch(plan, seg));
    }

    /** Each group's row, in group order: its keys (syms by name, floats as doubles), then what each aggregate emits. */
    static List<List<Object>> rows(final Plan plan, final Groups groups, final SymDict dict) {
        final List<List<Object>> out = new ArrayList<>();
        for (int g = 0; g < groups.size; g++) {
            final Recorder r = new Recorder();
            for (int j = 0; j < plan.keys().size(); j++) {
                final ValueType t = plan.keys().get(j).expr().type();
                final long k = groups.key(g, j);
                r.values.add(t == ValueType.SYMBOL ? dict.name((int) k) : t.isDouble() ? (Object) Double.longBitsToDouble(k) : (Object) k);
            }
            for (final Accumulator a : groups.accs) {
                a.emit(g, r, dict);
            }
            out.add(r.values);
        }
        return out;
    }

    /** Groups every row of the segments (one batch each) and returns the rows. */
    static List<List<Object>> group(final Plan plan, final TableSegment... segments) {
        final SymDict dict = new SymDict();
        return rows(plan, groups(plan, dict, segments), dict);
    }

    /** Records values as objects: Long, Double, String, null. */
    static final class Recorder implements ResultSink {
        final List<Object> values = new ArrayList<>();
        final List<List<Object>> rows = new ArrayList<>();
        List<String> columns;
        List<ValueType> types;
        ResultStats stats;

        @Override
        public void begin(final List<String> cols, final List<ValueType> ts) {
            this.columns = cols;
            this.types = ts;
        }

        @Override
        public void value(final long v) {
            values.add(v);
        }

        @Override
        public void value(final double v) {
            values.add(v);
        }

        @Override
        public void symbol(final String s) {
            values.add(s);
        }

        @Override
        public void nullValue() {
            values.add(null);
        }

        @Override
        public void endRow() {
            rows.add(new ArrayList<>(values));
            values.clear();
        }

        @Override
        public void end(final ResultStats s) {
            this.stats = s;
        }
    }
}
