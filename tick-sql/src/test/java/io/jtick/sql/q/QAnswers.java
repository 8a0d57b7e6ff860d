package io.jtick.sql.q;

import io.jtick.core.kdb.KdbType;

import java.util.ArrayList;
import java.util.List;

/** q answers flattened for comparison with the engine's rows: a keyed table's keys, then its values, cells boxed as ResultTable does. */
final class QAnswers {
    private QAnswers() {
    }

    static List<String> names(final QValue v) {
        if (v.type() == KdbType.DICT) {
            final List<String> out = new ArrayList<>(names(QValues.parts(v)[0]));
            out.addAll(names(QValues.parts(v)[1]));
            return out;
        }
        return List.of((String[]) QValues.parts(v)[0].data());
    }

    static List<List<Object>> rows(final QValue v) {
        final List<QValue> cols = new ArrayList<>();
        columns(v, cols);
        final int n = cols.isEmpty() ? 0 : cols.get(0).count();
        final List<List<Object>> out = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            final List<Object> row = new ArrayList<>();
            for (final QValue c : cols) {
                row.add(cell(c.item(r)));
            }
            out.add(row);
        }
        return out;
    }

    private static void columns(final QValue v, final List<QValue> out) {
        if (v.type() == KdbType.DICT) {
            columns(QValues.parts(v)[0], out);
            columns(QValues.parts(v)[1], out);
            return;
        }
        final QValue cols = QValues.parts(v)[1];
        for (int c = 0; c < cols.count(); c++) {
            out.add(cols.item(c));
        }
    }

    /** An atom boxed: null for q's nulls, symbols and chars as strings. */
    static Object cell(final QValue a) {
        if (a.type() == -KdbType.SYMBOL) {
            return a.data();
        }
        if (a.data() instanceof Double d) {
            return Double.isNaN(d) ? null : d;
        }
        final long l = a.longValue();
        return l == QValue.NULL_LONG ? null : l;
    }
}
