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
}
