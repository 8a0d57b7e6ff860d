package io.jtick.core.query.exec;

import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.plan.Plan;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.TableSegment;

import java.util.Arrays;

/**
 * One batch of rows of one segment (at most {@code chunkRows}) and the column values loaded for
 * it, by slot. Position {@code p} of the batch is row {@code from + p} (a range) or
 * {@code rows[at + p]} (a list). After filtering, {@link #sel} lists the kept positions
 * ({@code null}: all {@code n}) and {@link #count} how many. Columns load lazily, once per batch:
 * after {@link #load(int)}, the value at position p is {@code l[slot][off[slot] + p]} (long kinds,
 * narrow integers widened), {@code d[...]} (float64, float32 widened) or {@code s[...]} (sym ids).
 * As-of columns are loaded only for kept positions and are null where no quote matched.
 */
final class Batch {
    private final Plan plan;
    final int capacity;
    /** Slots below this are left columns; from it to {@link #dateSlot} as-of columns. */
    private final int leftColumns;
    /** The virtual date column's slot. */
    final int dateSlot;
    final ColumnChunk[] chunks;
    final long[][] l;
    final double[][] d;
    final int[][] s;
    final int[] off;
    private final long[] loaded;
    private final long[][] longScratch;
    private final double[][] doubleScratch;
    /** The sym column of one sym's rows: its id, filled once per batch instead of read row by row. */
    private int[] symFill;
    private final ValueType[] types;
    private final ColumnType[] leftTypes;

    // segment binding
    TableSegment seg;
    int[] segColumns;
    TableSegment right;
    int day;

    // the batch
    long stamp;
    int n;
    boolean isRange;
    int from;
    int[] rows;
    int at;
    int[] sel;
    int count;
    /** Local sym id of every row of the batch when the rows came as one sym's (-1: unknown). */
    int sym;
    final int[] selA;
    final int[] selB;
    /** As-of: matched right row per position (-1: none), valid for kept positions. */
    final int[] match;
    private final int[] rightRows;

    Batch(final Plan plan, final int capacity) {
        this.plan = plan;
        this.capacity = capacity;
        this.leftColumns = plan.leftColumns();
        this.dateSlot = plan.dateSlot();
        final int slots = plan.slotCount();
        chunks = new ColumnChunk[slots];
        l = new long[slots][];
        d = new double[slots][];
        s = new int[slots][];
        off = new int[slots];
        loaded = new long[slots];
        Arrays.fill(loaded, -1);
        longScratch = new long[slots][];
        doubleScratch = new double[slots][];
        types = new ValueType[slots];
        leftTypes = new ColumnType[leftColumns];
        for (int c = 0; c < leftColumns; c++) {
            leftTypes[c] = plan.schema().type(c);
            types[c] = ValueType.of(leftTypes[c]);
        }
        for (int j = 0; j < plan.rightColumns().length; j++) {
            types[leftColumns + j] = ValueType.of(plan.rightSchema().type(plan.rightColumns()[j]));
        }
        types[dateSlot] = ValueType.DATE;
        selA = new int[capacity];
        selB = new int[capacity];
        match = plan.hasAsof() ? new int[capacity] : null;
        rightRows = plan.hasAsof() ? new int[capacity] : null;
    }

    void bind(final TableSegment segment, final int[] columns, final TableSegment rightSegment) {
        this.seg = segment;
        this.segColumns = columns;
        this.right = rightSegment;
        this.day = segment.epochDay();
    }

    void setRange(final int first, final int length, final int symId) {
        stamp++;
        sym = symId;
        isRange = true;
        from = first;
        rows = null;
        n = length;
        sel = null;
        count = length;
    }

    void setList(final int[] list, final int first, final int length, final int symId) {
        stamp++;
        sym = symId;
        isRange = false;
        rows = list;
        at = first;
        n = length;
        sel = null;
        count = length;
    }

    /** Segment row of a position. */
    int row(final int p) {
        return isRange ? from + p : rows[at + p];
    }

    void load(final int slot) {
        if (loaded[slot] == stamp) {
            return;
        }
        loaded[slot] = stamp;
        if (slot < leftColumns) {
            loadLeft(slot);
        } else if (slot < dateSlot) {
            loadRight(slot);
        } else {
            final long[] a = longs(slot);
            Arrays.fill(a, 0, n, day);
            l[slot] = a;
            off[slot] = 0;
        }
    }

    private ColumnChunk chunk(final int slot) {
        ColumnChunk c = chunks[slot];
        if (c == null) {
            c = new ColumnChunk();
            chunks[slot] = c;
        }
        return c;
    }

    private long[] longs(final int slot) {
        long[] a = longScratch[slot];
        if (a == null) {
            a = new long[capacity];
            longScratch[slot] = a;
        }
        return a;
    }

    private double[] doubles(final int slot) {
        double[] a = doubleScratch[slot];
        if (a == null) {
            a = new double[capacity];
            doubleScratch[slot] = a;
        }
        return a;
    }

    private void loadLeft(final int slot) {
        if (slot == TableSchema.SYM && sym >= 0) {
            // the rows are one sym's (sym index, p# range): its id, not a gather of scattered rows
            if (symFill == null) {
                symFill = new int[capacity];
            }
            Arrays.fill(symFill, 0, n, sym);
            s[slot] = symFill;
            off[slot] = 0;
            return;
        }
        final ColumnChunk c = chunk(slot);
        final int col = segColumns[slot];
        if (isRange) {
            seg.read(col, from, n, c);
        } else {
            seg.read(col, rows, at, n, c);
        }
        widen(slot, leftTypes[slot], c, n);
    }

    /** Points the slot at the chunk's values, widening narrow types into scratch. */
    private void widen(final int slot, final ColumnType type, final ColumnChunk c, final int length) {
        final int o = c.offset();
        switch (type) {
            case TIMESTAMP:
            case INT64:
                l[slot] = c.longs();
                off[slot] = o;
                break;
            case FLOAT64:
                d[slot] = c.doubles();
                off[slot] = o;
                break;
            case SYMBOL:
                s[slot] = c.ints();
                off[slot] = o;
                break;
            case INT32: {
                final long[] a = longs(slot);
                final int[] src = c.ints();
                for (int i = 0; i < length; i++) {
                    a[i] = src[o + i];
                }
                l[slot] = a;
                off[slot] = 0;
                break;
            }
            case INT16: {
                final long[] a = longs(slot);
                final short[] src = c.shorts();
                for (int i = 0; i < length; i++) {
                    a[i] = src[o + i];
                }
                l[slot] = a;
                off[slot] = 0;
                break;
            }
            case BYTE: {
                final long[] a = longs(slot);
                final byte[] src = c.bytes();
                for (int i = 0; i < length; i++) {
                    a[i] = src[o + i];
                }
                l[slot] = a;
                off[slot] = 0;
                break;
            }
            case BOOL:
            case CHAR: {
                final long[] a = longs(slot);
                final byte[] src = c.bytes();
                for (int i = 0; i < length; i++) {
                    a[i] = src[o + i] & 0xff;
                }
                l[slot] = a;
                off[slot] = 0;
                break;
            }
            case FLOAT32: {
                final double[] a = doubles(slot);
                final float[] src = c.floats();
                for (int i = 0; i < length; i++) {
                    a[i] = src[o + i];
                }
                d[slot] = a;
                off[slot] = 0;
                break;
            }
            default:
                throw new IllegalStateException("unhandled column type [type=" + type + "]");
        }
    }

    /** As-of column: gathers the matched right rows of the kept positions, nulls elsewhere. */
    private void loadRight(final int slot) {
        final int j = slot - leftColumns;
        final int col = plan.rightColumns()[j];
        final ColumnType type = plan.rightSchema().type(col);
        final ValueType vt = types[slot];
        final boolean isDouble = vt.isDouble();
        final long[] la = isDouble ? null : longs(slot);
        final double[] da = isDouble ? doubles(slot) : null;
        if (isDouble) {
            Arrays.fill(da, 0, n, Double.NaN);
        } else {
            Arrays.fill(la, 0, n, Plan.NULL_LONG);
        }
        final ColumnChunk c = chunk(slot);
        final int max = right == null ? 0 : right.chunkRows();
        int i = right == null ? count : 0;
        while (i < count) {
            int k = 0;
            final int start = i;
            for (; i < count && k < max; i++) {
                final int p = sel == null ? i : sel[i];
                final int r = match[p];
                if (r >= 0) {
                    rightRows[k++] = r;
                }
            }
            if (k == 0) {
                continue;
            }
            right.read(col, rightRows, 0, k, c);
            final int o = c.offset();
            int m = 0;
            for (int x = start; x < i; x++) {
                final int p = sel == null ? x : sel[x];
                if (match[p] < 0) {
                    continue;
                }
                if (isDouble) {
                    da[p] = type == ColumnType.FLOAT64 ? c.doubles()[o + m] : c.floats()[o + m];
                } else {
                    la[p] = rightLong(type, c, o + m);
                }
                m++;
            }
        }
        if (isDouble) {
            d[slot] = da;
        } else {
            l[slot] = la;
        }
        off[slot] = 0;
    }

    private static long rightLong(final ColumnType type, final ColumnChunk c, final int i) {
        switch (type) {
            case TIMESTAMP:
            case INT64:
                return c.longs()[i];
            case INT32:
                return c.ints()[i];
            case INT16:
                return c.shorts()[i];
            case BYTE:
                return c.bytes()[i];
            case BOOL:
            case CHAR:
                return c.bytes()[i] & 0xff;
            default:
                throw new IllegalStateException("unhandled as-of column type [type=" + type + "]");
        }
    }
}
