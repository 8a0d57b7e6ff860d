package io.jtick.core.rdb;

import io.jtick.core.table.TableSegment;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.UpdateDecoder;
import io.netty.buffer.ByteBuf;

/**
 * One in-memory table of the RDB: a primitive array per column ({@code long[]} timestamp/int64,
 * {@code int[]} sym ids and int32, {@code double[]}, {@code float[]}, {@code short[]},
 * {@code byte[]} for byte/bool/char) plus a {@link SymIndex}. {@link #append} copies each column
 * block of an update straight from the frame's memory; nothing is allocated per row or per update
 * unless the table or a sym's postings grow (by doubling) or a new symbol appears.
 *
 * <p>Threads: one writer (the subscription's event loop) calls {@link #append}; any thread may
 * call {@link #segment}. The writer stores values, then publishes the row count through a
 * volatile; a reader reads the count first, then the (volatile) array holder, so every row below
 * the count is fully visible. Arrays replaced on growth are published through the holder after the
 * copy, so a reader holding a newer holder sees the old rows too.
 */
public final class RealtimeTable {
    /** Rows a table starts with when no capacity is given. */
    public static final int DEFAULT_CAPACITY = 1024;
    private static final int MAX_CAPACITY = Integer.MAX_VALUE - 16;

    private final TableSchema schema;
    private final SymbolCatalog symbols;
    private final SymIndex index;
    private final ColumnType[] types;

    /** Column arrays; replaced (never mutated in place) when the table grows. */
    private volatile Object[] columns;
    /** Rows readers may see. */
    private volatile int published;
    /** Writer state: rows written, capacity, dictionary scratch, time order so far. */
    private int rows;
    private int capacity;
    private int[] symMap = new int[64];
    private long lastTime = Long.MIN_VALUE;
    private boolean timeSorted = true;

    public RealtimeTable(final TableSchema schema, final SymbolCatalog symbols) {
        this(schema, symbols, DEFAULT_CAPACITY);
    }

    public RealtimeTable(final TableSchema schema, final SymbolCatalog symbols, final int initialCapacity) {
        if (initialCapacity < 1) {
            throw new IllegalArgumentException("capacity must be positive [table=" + schema.name()
                + ", capacity=" + initialCapacity + "]");
        }
        this.schema = schema;
        this.symbols = symbols;
        this.index = new SymIndex(symbols.size() + 16);
        this.types = new ColumnType[schema.columnCount()];
        for (int c = 0; c < types.length; c++) {
            types[c] = schema.type(c);
        }
        this.capacity = initialCapacity;
        final Object[] cols = new Object[types.length];
        for (int c = 0; c < types.length; c++) {
            cols[c] = types[c].newArray(initialCapacity);
        }
        this.columns = cols;
    }

    public TableSchema schema() {
        return schema;
    }

    public String name() {
        return schema.name();
    }

    /** Rows published to readers. */
    public int rowCount() {
        return published;
    }

    /** Writer thread: current capacity in rows. */
    int capacity() {
        return capacity;
    }

    /**
     * Writer thread: appends all rows of an update whose table has this schema, column by column.
     * Sym codes are mapped from the frame's dictionary to {@link SymbolCatalog} ids. The rows
     * become visible to readers only once the whole update is in.
     *
     * @return rows appended
     * @throws IllegalArgumentException when the update does not match the schema or carries a sym
     *     code outside its dictionary; nothing is published then
     */
    public int append(final TableSchema updateSchema, final UpdateDecoder update) {
        if (updateSchema != schema && !schema.equals(updateSchema) || update.columnCount() != types.length) {
            throw new IllegalArgumentException("update does not match table schema [table=" + schema.name()
                + ", update=" + updateSchema.name() + ", columns=" + update.columnCount() + "]");
        }
        final int n = update.rowCount();
        if (n <= 0) {
            return 0;
        }
        final int start = rows;
        ensureCapacity(start, n);
        final Object[] cols = columns;
        final ByteBuf buf = update.buffer();
        for (int c = 0; c < types.length; c++) {
            copyColumn(types[c], buf, update.dataOffset(c), cols[c], start, n);
        }
        final int[] sym = (int[]) cols[TableSchema.SYM];
        remapSyms(update, sym, start, start + n);
        final long[] time = (long[]) cols[TableSchema.TIME];
        if (timeSorted) {
            long last = lastTime;
            for (int r = start; r < start + n; r++) {
                final long t = time[r];
                if (t < last) {
                    timeSorted = false;
                    break;
                }
                last = t;
            }
            lastTime = last;
        }
        index.add(sym, start, start + n);
        rows = start + n;
        published = rows;
        return n;
    }

    private void remapSyms(final UpdateDecoder update, final int[] sym, final int from, final int to) {
        final int dictSize = update.symCount();
        if (symMap.length < dictSize) {
            symMap = new int[Math.max(dictSize, symMap.length << 1)];
        }
        final int[] map = symMap;
        final ByteBuf buf = update.buffer();
        for (int code = 0; code < dictSize; code++) {
            map[code] = symbols.intern(buf, update.symOffset(code), update.symLength(code));
        }
        for (int r = from; r < to; r++) {
            final int code = sym[r];
            if (code < 0 || code >= dictSize) {
                throw new IllegalArgumentException("sym code outside the update's dictionary [table=" + schema.name()
                    + ", row=" + (r - from) + ", code=" + code + ", dictionary=" + dictSize + "]");
            }
            sym[r] = map[code];
        }
    }

    private static void copyColumn(final ColumnType type, final ByteBuf buf, final int index, final Object dst,
                                   final int at, final int n) {
        switch (type) {
            case TIMESTAMP:
            case INT64:
                ColumnCopier.copy(buf, index, (long[]) dst, at, n);
                break;
            case FLOAT64:
                ColumnCopier.copy(buf, index, (double[]) dst, at, n);
                break;
            case SYMBOL:
            case INT32:
                ColumnCopier.copy(buf, index, (int[]) dst, at, n);
                break;
            case FLOAT32:
                ColumnCopier.copy(buf, index, (float[]) dst, at, n);
                break;
            case INT16:
                ColumnCopier.copy(buf, index, (short[]) dst, at, n);
                break;
            case BYTE:
            case BOOL:
            case CHAR:
                ColumnCopier.copy(buf, index, (byte[]) dst, at, n);
                break;
            default:
                throw new IllegalStateException("unhandled column type [type=" + type + "]");
        }
    }

    private void ensureCapacity(final int used, final int extra) {
        if ((long) used + extra <= capacity) {
            return;
        }
        if ((long) used + extra > MAX_CAPACITY) {
            throw new IllegalStateException("table full [table=" + schema.name() + ", rows=" + used + ", adding=" + extra + "]");
        }
        long cap = capacity;
        while (cap < used + extra) {
            cap <<= 1;
        }
        final int newCapacity = (int) Math.min(cap, MAX_CAPACITY);
        final Object[] old = columns;
        final Object[] grown = new Object[old.length];
        for (int c = 0; c < old.length; c++) {
            final Object col = types[c].newArray(newCapacity);
            System.arraycopy(old[c], 0, col, 0, used);
            grown[c] = col;
        }
        capacity = newCapacity;
        columns = grown;
    }

    /**
     * Any thread: the rows published so far as a query-engine segment of trading day
     * {@code epochDay} (zero-copy reads of the column arrays; the sym index as row lists).
     */
    public TableSegment segment(final int epochDay) {
        final int n = published;
        final boolean sorted = timeSorted;
        return new RealtimeSegment(schema, symbols, index, columns, n, sorted, epochDay);
    }
}
