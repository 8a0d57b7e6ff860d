package io.jtick.core.table;

import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A segment held in primitive arrays: either in arrival order with a row list per sym (like the
 * RDB) or sym-parted, sorted by sym then time with one row range per sym (like an HDB partition,
 * kdb's {@code p#}). The gateway keeps the RDB rows it fetched in one; tests use the parted form
 * as an HDB partition. Immutable once built; reads are zero copy for ranges.
 */
public final class MemorySegment implements TableSegment {
    private final TableSchema schema;
    private final int epochDay;
    private final int rows;
    private final Object[] columns;
    private final String[] symNames;
    private final Map<String, Integer> symIds;
    private final boolean timeSorted;
    private final boolean parted;
    /** Parted: range per sym; otherwise: row list per sym. */
    private final int[] rangeFrom;
    private final int[] rangeTo;
    private final int[][] postings;

    private MemorySegment(final TableSchema schema, final int epochDay, final int rows, final Object[] columns,
                          final List<String> names, final boolean parted) {
        this.schema = schema;
        this.epochDay = epochDay;
        this.rows = rows;
        this.columns = columns;
        this.symNames = names.toArray(new String[0]);
        this.symIds = new HashMap<>();
        for (int i = 0; i < symNames.length; i++) {
            symIds.put(symNames[i], i);
        }
        this.parted = parted;
        final long[] time = (long[]) columns[TableSchema.TIME];
        boolean sorted = true;
        for (int r = 1; r < rows && sorted; r++) {
            sorted = time[r] >= time[r - 1];
        }
        this.timeSorted = sorted;
        final int[] sym = (int[]) columns[TableSchema.SYM];
        final int[] counts = new int[symNames.length];
        for (int r = 0; r < rows; r++) {
            counts[sym[r]]++;
        }
        if (parted) {
            rangeFrom = new int[symNames.length];
            rangeTo = new int[symNames.length];
            Arrays.fill(rangeFrom, -1);
            for (int r = 0; r < rows; r++) {
                final int s = sym[r];
                if (rangeFrom[s] < 0) {
                    rangeFrom[s] = r;
                } else if (rangeTo[s] != r) {
                    throw new IllegalStateException("parted segment with a sym in two runs [sym=" + symNames[s] + "]");
                }
                rangeTo[s] = r + 1;
            }
            postings = null;
        } else {
            postings = new int[symNames.length][];
            for (int s = 0; s < counts.length; s++) {
                postings[s] = new int[counts[s]];
            }
            final int[] fill = new int[symNames.length];
            for (int r = 0; r < rows; r++) {
                postings[sym[r]][fill[sym[r]]++] = r;
            }
            rangeFrom = null;
            rangeTo = null;
        }
    }

    public static Builder builder(final TableSchema schema, final int epochDay) {
        return new Builder(schema, epochDay);
    }

    /** Collects rows column by column; {@link #build()} or {@link #buildParted()} makes the segment. */
    public static final class Builder {
        private final TableSchema schema;
        private final int epochDay;
        private final Object[] columns;
        private final List<String> names = new ArrayList<>();
        private final Map<String, Integer> ids = new HashMap<>();
        private int rows;
        private int capacity = 64;
        private int column;

        private Builder(final TableSchema schema, final int epochDay) {
            this.schema = schema;
            this.epochDay = epochDay;
            columns = new Object[schema.columnCount()];
            for (int c = 0; c < columns.length; c++) {
                columns[c] = schema.type(c).newArray(capacity);
            }
        }

        public TableSchema schema() {
            return schema;
        }

        public int rowCount() {
            return rows;
        }

        private void room() {
            if (rows < capacity) {
                return;
            }
            capacity <<= 1;
            for (int c = 0; c < columns.length; c++) {
                final Object grown = schema.type(c).newArray(capacity);
                System.arraycopy(columns[c], 0, grown, 0, rows);
                columns[c] = grown;
            }
        }

        private int next() {
            if (column >= columns.length) {
                throw new IllegalStateException("too many values in row " + rows + " [table=" + schema.name() + "]");
            }
            room();
            return column++;
        }

        /** The next column's value: any type but symbol and the floats (timestamps in epoch ns, bools 0/1, chars as codes). */
        public Builder value(final long v) {
            final int c = next();
            switch (schema.type(c)) {
                case TIMESTAMP:
                case INT64:
                    ((long[]) columns[c])[rows] = v;
                    break;
                case INT32:
                    ((int[]) columns[c])[rows] = (int) v;
                    break;
                case INT16:
                    ((short[]) columns[c])[rows] = (short) v;
                    break;
                case BYTE:
                case BOOL:
                case CHAR:
                    ((byte[]) columns[c])[rows] = (byte) v;
                    break;
                default:
                    throw new IllegalArgumentException("long value for a " + schema.type(c).typeName() + " column [column="
                        + schema.column(c).name() + "]");
            }
            return this;
        }

        public Builder value(final double v) {
            final int c = next();
            switch (schema.type(c)) {
                case FLOAT64:
                    ((double[]) columns[c])[rows] = v;
                    break;
                case FLOAT32:
                    ((float[]) columns[c])[rows] = (float) v;
                    break;
                default:
                    throw new IllegalArgumentException("double value for a " + schema.type(c).typeName() + " column [column="
                        + schema.column(c).name() + "]");
            }
            return this;
        }

        public Builder symbol(final String s) {
            final int c = next();
            if (schema.type(c) != ColumnType.SYMBOL) {
                throw new IllegalArgumentException("symbol for a " + schema.type(c).typeName() + " column [column="
                    + schema.column(c).name() + "]");
            }
            Integer id = ids.get(s);
            if (id == null) {
                id = names.size();
                ids.put(s, id);
                names.add(s);
            }
            ((int[]) columns[c])[rows] = id;
            return this;
        }

        /** Ends the row (every column given). */
        public Builder endRow() {
            if (column != columns.length) {
                throw new IllegalStateException("row " + rows + " has " + column + " values, expected " + columns.length
                    + " [table=" + schema.name() + "]");
            }
            column = 0;
            rows++;
            return this;
        }

        /**
         * A whole row in schema order: {@code Long}/{@code Integer} for integer and timestamp
         * columns, {@code Number} for floats, {@code String} for sym, {@code Character} for char,
         * {@code Boolean} for bool.
         */
        public Builder row(final Object... values) {
            for (final Object v : values) {
                if (v instanceof String s) {
                    symbol(s);
                } else if (v instanceof Character ch) {
                    value((long) ch);
                } else if (v instanceof Boolean b) {
                    value(b ? 1L : 0L);
                } else if (v instanceof Double || v instanceof Float) {
                    value(((Number) v).doubleValue());
                } else if (v instanceof Number n) {
                    final ColumnType t = column < columns.length ? schema.type(column) : null;
                    if (t == ColumnType.FLOAT64 || t == ColumnType.FLOAT32) {
                        value(n.doubleValue());
                    } else {
                        value(n.longValue());
                    }
                } else {
                    throw new IllegalArgumentException("unsupported value [value=" + v + "]");
                }
            }
            return endRow();
        }

        /** Rows in the order given, a row list per sym. */
        public MemorySegment build() {
            return new MemorySegment(schema, epochDay, rows, trimmed(null), names, false);
        }

        /** Rows sorted by sym name, then time (stable), one range per sym: an HDB partition's layout. */
        public MemorySegment buildParted() {
            final int[] sym = (int[]) columns[TableSchema.SYM];
            final long[] time = (long[]) columns[TableSchema.TIME];
            final int[] order = new int[rows];
            for (int i = 0; i < rows; i++) {
                order[i] = i;
            }
            final Integer[] byName = new Integer[names.size()];
            for (int i = 0; i < byName.length; i++) {
                byName[i] = i;
            }
            java.util.Arrays.sort(byName, (x, y) -> names.get(x).compareTo(names.get(y)));
            final int[] rank = new int[byName.length];
            for (int i = 0; i < byName.length; i++) {
                rank[byName[i]] = i;
            }
            IntSort.sort(order, (x, y) -> {
                final int c = Integer.compare(rank[sym[x]], rank[sym[y]]);
                return c != 0 ? c : Long.compare(time[x], time[y]);
            });
            return new MemorySegment(schema, epochDay, rows, trimmed(order), names, true);
        }

        private Object[] trimmed(final int[] order) {
            final Object[] out = new Object[columns.length];
            for (int c = 0; c < columns.length; c++) {
                final Object col = schema.type(c).newArray(rows);
                if (order == null) {
                    System.arraycopy(columns[c], 0, col, 0, rows);
                } else {
                    for (int i = 0; i < rows; i++) {
                        System.arraycopy(columns[c], order[i], col, i, 1);
                    }
                }
                out[c] = col;
            }
            return out;
        }
    }

    @Override
    public TableSchema schema() {
        return schema;
    }

    @Override
    public int epochDay() {
        return epochDay;
    }

    @Override
    public int rowCount() {
        return rows;
    }

    @Override
    public boolean timeSorted() {
        return timeSorted;
    }

    @Override
    public boolean symParted() {
        return parted;
    }

    @Override
    public int symId(final String sym) {
        final Integer id = symIds.get(sym);
        return id == null ? -1 : id;
    }

    @Override
    public String symName(final int symId) {
        return symNames[symId];
    }

    @Override
    public int symIdLimit() {
        return symNames.length;
    }

    @Override
    public void symRows(final int symId, final RowSink sink) {
        if (symId < 0 || symId >= symNames.length) {
            return;
        }
        if (parted) {
            if (rangeFrom[symId] >= 0) {
                sink.range(rangeFrom[symId], rangeTo[symId]);
            }
        } else {
            sink.rows(postings[symId], 0, postings[symId].length);
        }
    }

    @Override
    public void read(final int column, final int from, final int length, final ColumnChunk chunk) {
        chunk.wrap(schema.type(column), columns[column], from, length);
    }

    @Override
    public void read(final int column, final int[] rowList, final int at, final int length, final ColumnChunk chunk) {
        chunk.gather(schema.type(column), columns[column], rowList, at, length);
    }
}
