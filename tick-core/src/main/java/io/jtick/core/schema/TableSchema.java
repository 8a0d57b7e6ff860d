package io.jtick.core.schema;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An ordered, typed table schema. As kdb+tick requires, column 0 is {@code time} (timestamp, epoch
 * nanoseconds) and column 1 is {@code sym} (symbol).
 *
 * <p>{@link #timeOfDay()}: the schema declared {@code time} a time of day ({@code time:timespan}, as
 * kdb-tick's {@code sym.q} does). It is still stored as a timestamp, the trading date's midnight plus
 * the time of day; kdb+ clients read and write it as a timespan (docs/kdb-ipc.md).
 */
public final class TableSchema {
    public static final int MAX_NAME_LENGTH = 64;
    public static final int TIME = 0;
    public static final int SYM = 1;

    private final String name;
    private final byte[] nameBytes;
    private final ColumnDef[] columns;
    private final boolean timeOfDay;

    public TableSchema(final String name, final List<ColumnDef> columns) {
        this(name, columns, false);
    }

    /** With {@code timeOfDay}: the schema declared {@code time} a time of day (see the class comment). */
    public TableSchema(final String name, final List<ColumnDef> columns, final boolean timeOfDay) {
        this.timeOfDay = timeOfDay;
        this.name = Objects.requireNonNull(name, "name");
        if (!name.matches("[A-Za-z][A-Za-z0-9_]{0,63}")) {
            throw new IllegalArgumentException("bad table name [table=" + name + "]");
        }
        this.nameBytes = name.getBytes(StandardCharsets.US_ASCII);
        this.columns = columns.toArray(new ColumnDef[0]);
        if (this.columns.length < 2
            || !"time".equals(this.columns[TIME].name()) || this.columns[TIME].type() != ColumnType.TIMESTAMP
            || !"sym".equals(this.columns[SYM].name()) || this.columns[SYM].type() != ColumnType.SYMBOL) {
            throw new IllegalArgumentException(
                "the first two columns must be time:timestamp and sym:symbol [table=" + name + "]");
        }
        for (int i = 2; i < this.columns.length; i++) {
            if (this.columns[i].type() == ColumnType.SYMBOL) {
                throw new IllegalArgumentException(
                    "only the sym column may be a symbol [table=" + name + ", column=" + this.columns[i].name() + "]");
            }
            for (int j = 0; j < i; j++) {
                if (this.columns[j].name().equals(this.columns[i].name())) {
                    throw new IllegalArgumentException(
                        "duplicate column [table=" + name + ", column=" + this.columns[i].name() + "]");
                }
            }
        }
        if (this.columns.length > 4096) {
            throw new IllegalArgumentException("too many columns [table=" + name + "]");
        }
    }

    public String name() {
        return name;
    }

    /** ASCII bytes of the name; do not modify. */
    public byte[] nameBytes() {
        return nameBytes;
    }

    /** True when {@code time} was declared a time of day (kdb+ timespan); stored as a timestamp all the same. */
    public boolean timeOfDay() {
        return timeOfDay;
    }

    public int columnCount() {
        return columns.length;
    }

    public ColumnDef column(final int index) {
        return columns[index];
    }

    public ColumnType type(final int index) {
        return columns[index].type();
    }

    public List<ColumnDef> columns() {
        return List.of(columns);
    }

    /** @return the index of the named column, or -1. */
    public int indexOf(final String column) {
        for (int i = 0; i < columns.length; i++) {
            if (columns[i].name().equals(column)) {
                return i;
            }
        }
        return -1;
    }

    /** Sum of column widths: the bytes one row takes in column blocks. */
    public int rowWidth() {
        int w = 0;
        for (final ColumnDef c : columns) {
            w += c.type().width();
        }
        return w;
    }

    /** {@code time:timestamp,sym:symbol,price:float64,...}: the form the subscribe reply carries. */
    public String toSchemaString() {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < columns.length; i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(columns[i].name()).append(':').append(columns[i].type().typeName());
        }
        return sb.toString();
    }

    /** Parses {@link #toSchemaString()}. */
    public static TableSchema parse(final String table, final String schemaString) {
        final List<ColumnDef> cols = new ArrayList<>();
        for (final String part : schemaString.split(",")) {
            final int colon = part.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("bad schema string [table=" + table + ", part=" + part + "]");
            }
            cols.add(new ColumnDef(part.substring(0, colon).trim(), ColumnType.parse(part.substring(colon + 1))));
        }
        return new TableSchema(table, cols);
    }

    /** Builds a schema with {@code time} and {@code sym} prepended to the given columns. */
    public static TableSchema of(final String table, final ColumnDef... rest) {
        final List<ColumnDef> cols = new ArrayList<>();
        cols.add(new ColumnDef("time", ColumnType.TIMESTAMP));
        cols.add(new ColumnDef("sym", ColumnType.SYMBOL));
        cols.addAll(List.of(rest));
        return new TableSchema(table, cols);
    }

    /** kdb+tick's built-in trade table plus {@code extraFloats} float columns ex0..exN-1 (the white paper's row size knob). */
    public static TableSchema trade(final int extraFloats) {
        final List<ColumnDef> cols = new ArrayList<>(List.of(
            new ColumnDef("price", ColumnType.FLOAT64),
            new ColumnDef("size", ColumnType.INT64),
            new ColumnDef("cond", ColumnType.CHAR)));
        addExtras(cols, extraFloats);
        return of("trade", cols.toArray(new ColumnDef[0]));
    }

    /** kdb+tick's built-in quote table plus {@code extraFloats} float columns. */
    public static TableSchema quote(final int extraFloats) {
        final List<ColumnDef> cols = new ArrayList<>(List.of(
            new ColumnDef("bid", ColumnType.FLOAT64),
            new ColumnDef("ask", ColumnType.FLOAT64),
            new ColumnDef("bsize", ColumnType.INT64),
            new ColumnDef("asize", ColumnType.INT64)));
        addExtras(cols, extraFloats);
        return of("quote", cols.toArray(new ColumnDef[0]));
    }

    private static void addExtras(final List<ColumnDef> cols, final int extraFloats) {
        if (extraFloats < 0 || extraFloats > 1024) {
            throw new IllegalArgumentException("extra float columns out of range [ex=" + extraFloats + "]");
        }
        for (int i = 0; i < extraFloats; i++) {
            cols.add(new ColumnDef("ex" + i, ColumnType.FLOAT64));
        }
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof TableSchema other && other.name.equals(name) && other.timeOfDay == timeOfDay
            && java.util.Arrays.equals(other.columns, columns);
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + java.util.Arrays.hashCode(columns);
    }

    @Override
    public String toString() {
        return name + "(" + toSchemaString() + ")";
    }
}
