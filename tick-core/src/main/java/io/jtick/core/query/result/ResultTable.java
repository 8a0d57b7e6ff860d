package io.jtick.core.query.result;

import io.jtick.core.query.model.ValueType;
import io.jtick.core.table.IntSort;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * A result kept in memory, column by column (primitive arrays, symbols as strings): what the
 * engine sorts for {@code orderBy} and grouped results, and what tests and benchmarks read.
 * Values: {@link #getLong} for long kinds (timestamp epoch ns, date epoch day, char code, bool
 * 0/1), {@link #getDouble} for floats, {@link #getString} for symbols; {@link #isNull} for any.
 */
public final class ResultTable implements ResultSink {
    private List<String> names = List.of();
    private List<ValueType> types = List.of();
    private long[][] longs;
    private double[][] doubles;
    private String[][] strings;
    private BitSet[] nulls;
    private int rows;
    private int column;
    private int capacity;
    private ResultStats stats;

    @Override
    public void begin(final List<String> columns, final List<ValueType> columnTypes) {
        names = List.copyOf(columns);
        types = List.copyOf(columnTypes);
        final int n = names.size();
        longs = new long[n][];
        doubles = new double[n][];
        strings = new String[n][];
        nulls = new BitSet[n];
        capacity = 16;
        for (int c = 0; c < n; c++) {
            final ValueType t = types.get(c);
            if (t == ValueType.SYMBOL) {
                strings[c] = new String[capacity];
            } else if (t.isDouble()) {
                doubles[c] = new double[capacity];
            } else {
                longs[c] = new long[capacity];
            }
            nulls[c] = new BitSet();
        }
        rows = 0;
        column = 0;
    }

    private void room() {
        if (rows < capacity) {
            return;
        }
        capacity = capacity << 1;
        for (int c = 0; c < names.size(); c++) {
            if (strings[c] != null) {
                strings[c] = Arrays.copyOf(strings[c], capacity);
            } else if (doubles[c] != null) {
                doubles[c] = Arrays.copyOf(doubles[c], capacity);
            } else {
                longs[c] = Arrays.copyOf(longs[c], capacity);
            }
        }
    }

    @Override
    public void value(final long v) {
        room();
        final int c = column++;
        if (longs[c] != null) {
            longs[c][rows] = v;
        } else if (doubles[c] != null) {
            doubles[c][rows] = v;
        } else {
            throw new IllegalStateException("long value for a symbol column [column=" + names.get(c) + "]");
        }
    }

    @Override
    public void value(final double v) {
        room();
        final int c = column++;
        if (doubles[c] != null) {
            doubles[c][rows] = v;
            if (v != v) {
                nulls[c].set(rows);
            }
        } else {
            throw new IllegalStateException("double value for a " + types.get(c).typeName() + " column [column="
                + names.get(c) + "]");
        }
    }

    @Override
    public void symbol(final String s) {
        room();
        final int c = column++;
        if (strings[c] == null) {
            throw new IllegalStateException("symbol for a " + types.get(c).typeName() + " column [column=" + names.get(c) + "]");
        }
        strings[c][rows] = s;
    }

    @Override
    public void nullValue() {
        room();
        final int c = column++;
        nulls[c].set(rows);
        if (doubles[c] != null) {
            doubles[c][rows] = Double.NaN;
        }
    }

    @Override
    public void endRow() {
        if (column != names.size()) {
            throw new IllegalStateException("row has " + column + " values, expected " + names.size());
        }
        column = 0;
        rows++;
    }

    @Override
    public void end(final ResultStats resultStats) {
        this.stats = resultStats;
    }

    public List<String> columns() {
        return names;
    }

    public List<ValueType> types() {
        return types;
    }

    public int rowCount() {
        return rows;
    }

    /** Stats of the query that filled this table, or null while it runs. */
    public ResultStats stats() {
        return stats;
    }

    public int columnIndex(final String name) {
        final int c = names.indexOf(name);
        if (c < 0) {
            throw new IllegalArgumentException("no such result column [column=" + name + ", columns=" + names + "]");
        }
        return c;
    }

    public boolean isNull(final int row, final int col) {
        return nulls[col].get(row);
    }

    public long getLong(final int row, final int col) {
        return longs[col][row];
    }

    public double getDouble(final int row, final int col) {
        return doubles[col][row];
    }

    public String getString(final int row, final int col) {
        return strings[col][row];
    }

    /** A cell boxed: Long (long kinds), Double, String, or null. */
    public Object get(final int row, final int col) {
        if (isNull(row, col)) {
            return null;
        }
        if (strings[col] != null) {
            return strings[col][row];
        }
        if (doubles[col] != null) {
            return doubles[col][row];
        }
        return longs[col][row];
    }

    /** A cell by column name, boxed as {@link #get(int, int)}. */
    public Object get(final int row, final String col) {
        return get(row, columnIndex(col));
    }

    /** All rows boxed, for tests. */
    public List<List<Object>> rows() {
        final List<List<Object>> out = new ArrayList<>(rows);
        for (int r = 0; r < rows; r++) {
            final List<Object> row = new ArrayList<>(names.size());
            for (int c = 0; c < names.size(); c++) {
                row.add(get(r, c));
            }
            out.add(row);
        }
        return out;
    }

    /** Row numbers in the order of the given columns (stable; nulls first ascending, as kdb sorts them). */
    public int[] order(final int[] cols, final boolean[] desc) {
        return order(cols, desc, 0);
    }

    /**
     * The first {@code limit} row numbers (all when {@code limit} is 0) in the order of the given
     * columns, as {@link #order(int[], boolean[])} would give them. A small limit keeps the best rows
     * in a heap as it goes ({@code n log limit}) instead of sorting every row: a last trade
     * ({@code orderBy -time, limit 1}) is one pass.
     */
    public int[] order(final int[] cols, final boolean[] desc, final long limit) {
        final IntSort.IntComparator byColumns = (x, y) -> {
            for (int k = 0; k < cols.length; k++) {
                final int c = compare(cols[k], x, y);
                if (c != 0) {
                    return desc[k] ? -c : c;
                }
            }
            return 0;
        };
        if (limit > 0 && limit < rows / 4) {
            return top((int) limit, byColumns);
        }
        final int[] idx = new int[rows];
        for (int i = 0; i < rows; i++) {
            idx[i] = i;
        }
        IntSort.sort(idx, byColumns);
        return idx;
    }

    /** The first {@code k} rows under {@code c}, ties in row order (a stable sort's): a max-heap of the best so far. */
    private int[] top(final int k, final IntSort.IntComparator c) {
        final IntSort.IntComparator stable = (x, y) -> {
            final int v = c.compare(x, y);
            return v != 0 ? v : Integer.compare(x, y);
        };
        final int[] heap = new int[k];
        int size = 0;
        for (int r = 0; r < rows; r++) {
            if (size < k) {
                // sift up
                int i = size++;
                heap[i] = r;
                while (i > 0 && stable.compare(heap[(i - 1) >>> 1], heap[i]) < 0) {
                    final int p = (i - 1) >>> 1;
                    final int t = heap[p];
                    heap[p] = heap[i];
                    heap[i] = t;
                    i = p;
                }
            } else if (stable.compare(r, heap[0]) < 0) {
                // better than the worst kept: it takes the root's place; sift down
                heap[0] = r;
                int i = 0;
                while (true) {
                    final int l = 2 * i + 1;
                    if (l >= size) {
                        break;
                    }
                    final int m = l + 1 < size && stable.compare(heap[l + 1], heap[l]) > 0 ? l + 1 : l;
                    if (stable.compare(heap[m], heap[i]) <= 0) {
                        break;
                    }
                    final int t = heap[m];
                    heap[m] = heap[i];
                    heap[i] = t;
                    i = m;
                }
            }
        }
        final int[] out = java.util.Arrays.copyOf(heap, size);
        IntSort.sort(out, stable);
        return out;
    }

    private int compare(final int col, final int x, final int y) {
        final boolean nx = nulls[col].get(x);
        final boolean ny = nulls[col].get(y);
        if (nx || ny) {
            return nx == ny ? 0 : nx ? -1 : 1;
        }
        if (strings[col] != null) {
            return strings[col][x].compareTo(strings[col][y]);
        }
        if (doubles[col] != null) {
            return Double.compare(doubles[col][x], doubles[col][y]);
        }
        return Long.compare(longs[col][x], longs[col][y]);
    }

    /** Sends rows {@code order[from..to)} (all rows in order when {@code order} is null) to a sink. */
    public void writeTo(final ResultSink sink, final int[] order, final int from, final int to) {
        sink.begin(names, types);
        for (int i = from; i < to; i++) {
            final int r = order == null ? i : order[i];
            for (int c = 0; c < names.size(); c++) {
                if (nulls[c].get(r)) {
                    sink.nullValue();
                } else if (strings[c] != null) {
                    sink.symbol(strings[c][r]);
                } else if (doubles[c] != null) {
                    sink.value(doubles[c][r]);
                } else {
                    sink.value(longs[c][r]);
                }
            }
            sink.endRow();
        }
    }

    @Override
    public String toString() {
        return "ResultTable" + names + rows();
    }
}
