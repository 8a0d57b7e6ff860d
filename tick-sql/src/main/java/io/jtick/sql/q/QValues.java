package io.jtick.sql.q;

import io.jtick.core.kdb.KdbType;

import java.util.List;

/** Building q's compound values: tables ({@code 98}), dictionaries ({@code 99}), keyed tables (a dictionary of two tables). */
public final class QValues {
    private QValues() {
    }

    /** A table of {@code names} to {@code columns} (vectors of one count). */
    public static QValue table(final List<String> names, final List<QValue> columns) {
        return new QValue(KdbType.TABLE, new QValue[] {new QValue(KdbType.SYMBOL, names.toArray(new String[0])),
            new QValue(0, List.copyOf(columns))});
    }

    /** A dictionary of {@code keys} to {@code values}. */
    public static QValue dict(final QValue keys, final QValue values) {
        return new QValue(KdbType.DICT, new QValue[] {keys, values});
    }

    /** Key and value of a dictionary, or names and columns of a table. */
    public static QValue[] parts(final QValue v) {
        return (QValue[]) v.data();
    }

    /** A table with its rows in reverse order. */
    public static QValue reverse(final QValue table) {
        final QValue[] p = parts(table);
        final List<QValue> columns = new java.util.ArrayList<>();
        for (int c = 0; c < p[1].count(); c++) {
            columns.add(reversed(p[1].item(c)));
        }
        return new QValue(KdbType.TABLE, new QValue[] {p[0], new QValue(0, List.copyOf(columns))});
    }

    private static QValue reversed(final QValue v) {
        final Object d = v.data();
        if (d instanceof long[] a) {
            final long[] r = new long[a.length];
            for (int i = 0; i < a.length; i++) {
                r[i] = a[a.length - 1 - i];
            }
            return new QValue(v.type(), r);
        }
        if (d instanceof double[] a) {
            final double[] r = new double[a.length];
            for (int i = 0; i < a.length; i++) {
                r[i] = a[a.length - 1 - i];
            }
            return new QValue(v.type(), r);
        }
        if (d instanceof String[] a) {
            final String[] r = new String[a.length];
            for (int i = 0; i < a.length; i++) {
                r[i] = a[a.length - 1 - i];
            }
            return new QValue(v.type(), r);
        }
        if (d instanceof String chars) {
            return new QValue(v.type(), new StringBuilder(chars).reverse().toString());
        }
        final List<QValue> items = new java.util.ArrayList<>();
        for (final Object o : (List<?>) d) {
            items.add((QValue) o);
        }
        java.util.Collections.reverse(items);
        return new QValue(v.type(), List.copyOf(items));
    }
}
