package io.jtick.sql.q;

import io.jtick.core.kdb.KdbType;
import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.result.ResultSink;
import io.jtick.core.query.result.ResultStats;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The engine's rows gathered column by column into q vectors, exact types kept: timestamp (or
 * timespan for a {@code time:timespan} table's time), symbol, float, real, long, int, short, byte,
 * boolean, char, date. A kdb+ answer needs each column's count before its values, so the result
 * is held (bounded by {@code tick.query.max-rows}).
 */
final class QTableSink implements ResultSink {
    private static final long NS_PER_DAY = 86_400_000_000_000L;

    private final boolean[] timespan;
    private List<String> names;
    private int[] types;
    private long[][] longs;
    private double[][] doubles;
    private String[][] symbols;
    private int rows;
    private int column;

    QTableSink(final boolean[] timespan) {
        this.timespan = timespan;
    }

    /** The kdb+ vector type of a result column. */
    static int kdbType(final ValueType t, final boolean timespan) {
        return switch (t) {
            case TIMESTAMP -> timespan ? KdbType.TIMESPAN : KdbType.TIMESTAMP;
            case SYMBOL -> KdbType.SYMBOL;
            case FLOAT64 -> KdbType.FLOAT;
            case FLOAT32 -> KdbType.REAL;
            case INT64 -> KdbType.LONG;
            case INT32 -> KdbType.INT;
            case INT16 -> KdbType.SHORT;
            case BYTE -> KdbType.BYTE;
            case BOOL -> KdbType.BOOLEAN;
            case CHAR -> KdbType.CHAR;
            case DATE -> KdbType.DATE;
        };
    }

    @Override
    public void begin(final List<String> columns, final List<ValueType> valueTypes) {
        this.names = columns;
        final int n = columns.size();
        types = new int[n];
        longs = new long[n][];
        doubles = new double[n][];
        symbols = new String[n][];
        for (int c = 0; c < n; c++) {
            types[c] = kdbType(valueTypes.get(c), c < timespan.length && timespan[c]);
            if (types[c] == KdbType.SYMBOL) {
                symbols[c] = new String[16];
            } else if (types[c] == KdbType.FLOAT || types[c] == KdbType.REAL) {
                doubles[c] = new double[16];
            } else {
                longs[c] = new long[16];
            }
        }
    }

    private void grow() {
        for (int c = 0; c < types.length; c++) {
            if (symbols[c] != null) {
                symbols[c] = Arrays.copyOf(symbols[c], rows * 2);
            } else if (doubles[c] != null) {
                doubles[c] = Arrays.copyOf(doubles[c], rows * 2);
            } else {
                longs[c] = Arrays.copyOf(longs[c], rows * 2);
            }
        }
    }

    @Override
    public void value(final long v) {
        if (column == 0 && rows == capacity()) {
            grow();
        }
        if (types[column] == KdbType.TIMESPAN) {
            longs[column][rows] = Math.floorMod(v, NS_PER_DAY);
        } else if (doubles[column] != null) {
            doubles[column][rows] = v;
        } else {
            longs[column][rows] = v;
        }
        column++;
    }

    @Override
    public void value(final double v) {
        if (column == 0 && rows == capacity()) {
            grow();
        }
        doubles[column++][rows] = v;
    }

    @Override
    public void symbol(final String s) {
        if (column == 0 && rows == capacity()) {
            grow();
        }
        symbols[column++][rows] = s;
    }

    @Override
    public void nullValue() {
        if (column == 0 && rows == capacity()) {
            grow();
        }
        if (symbols[column] != null) {
            symbols[column][rows] = "";
        } else if (doubles[column] != null) {
            doubles[column][rows] = Double.NaN;
        } else {
            longs[column][rows] = types[column] == KdbType.CHAR ? ' ' : types[column] == KdbType.BOOLEAN ? 0 : QValue.NULL_LONG;
        }
        column++;
    }

    private int capacity() {
        if (types.length == 0) {
            return Integer.MAX_VALUE;
        }
        return symbols[0] != null ? symbols[0].length : doubles[0] != null ? doubles[0].length : longs[0].length;
    }

    @Override
    public void endRow() {
        column = 0;
        rows++;
    }

    @Override
    public void end(final ResultStats stats) {
        // the answer is taken with table()
    }

    int rows() {
        return rows;
    }

    List<String> names() {
        return names;
    }

    /** Column {@code c} as a q vector. */
    QValue column(final int c) {
        if (types[c] == KdbType.SYMBOL) {
            return new QValue(KdbType.SYMBOL, Arrays.copyOf(symbols[c], rows));
        }
        if (doubles[c] != null) {
            return new QValue(types[c], Arrays.copyOf(doubles[c], rows));
        }
        if (types[c] == KdbType.CHAR) {
            final StringBuilder sb = new StringBuilder(rows);
            for (int r = 0; r < rows; r++) {
                sb.append((char) longs[c][r]);
            }
            return QValue.chars(sb.toString());
        }
        return new QValue(types[c], Arrays.copyOf(longs[c], rows));
    }

    /** Columns {@code from..to-1} as a table. */
    QValue table(final int from, final int to) {
        final List<QValue> cols = new ArrayList<>();
        for (int c = from; c < to; c++) {
            cols.add(column(c));
        }
        return QValues.table(names.subList(from, to), cols);
    }
}
