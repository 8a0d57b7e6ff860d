package io.jtick.core.testing;

import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.RowSink;
import io.jtick.core.table.TableSegment;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Cells of a {@link TableSegment}, read through its contract one value at a time, as the JSON a
 * query answers holds them (what tests compare answers with). Values by column type: timestamp →
 * ISO-8601 instant string with nanoseconds ({@code "2026-11-21T09:30:00.000000123Z"}: epoch-ns
 * longs exceed what JavaScript numbers hold exactly); symbol and char → string; bool → boolean;
 * float64/float32 → number; int64/int32/int16/byte → integer.
 */
public final class Cells {
    private Cells() {
    }

    /** A cell as a JSON-friendly object (conversions in the class comment). */
    public static Object cell(final TableSegment table, final int column, final int row) {
        final ColumnType type = table.schema().type(column);
        final ColumnChunk c = read(table, column, row);
        final int o = c.offset();
        switch (type) {
            case TIMESTAMP:
                final long nanos = c.longs()[o];
                return Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L)).toString();
            case SYMBOL:
                return table.symName(c.ints()[o]);
            case FLOAT64:
                return c.doubles()[o];
            case FLOAT32:
                return c.floats()[o];
            case INT64:
                return c.longs()[o];
            case INT32:
                return c.ints()[o];
            case INT16:
                return c.shorts()[o];
            case BYTE:
                return c.bytes()[o];
            case BOOL:
                return c.bytes()[o] != 0;
            case CHAR:
                return String.valueOf((char) (c.bytes()[o] & 0xff));
            default:
                throw new IllegalStateException("unhandled column type [type=" + type + "]");
        }
    }

    /** A cell as a double (a symbol gives its local id, a timestamp its epoch nanoseconds). */
    public static double number(final TableSegment table, final int column, final int row) {
        final ColumnChunk c = read(table, column, row);
        final int o = c.offset();
        return switch (table.schema().type(column)) {
            case TIMESTAMP, INT64 -> c.longs()[o];
            case FLOAT64 -> c.doubles()[o];
            case SYMBOL, INT32 -> c.ints()[o];
            case FLOAT32 -> c.floats()[o];
            case INT16 -> c.shorts()[o];
            default -> c.bytes()[o];
        };
    }

    /** Epoch nanoseconds of a row ({@code time} column). */
    public static long time(final TableSegment table, final int row) {
        final ColumnChunk c = read(table, TableSchema.TIME, row);
        return c.longs()[c.offset()];
    }

    /** The sym of a row, by name. */
    public static String sym(final TableSegment table, final int row) {
        final ColumnChunk c = read(table, TableSchema.SYM, row);
        return table.symName(c.ints()[c.offset()]);
    }

    /** The rows the segment's sym index gives for {@code sym} (none when the segment has no such sym), ascending. */
    public static List<Integer> symRows(final TableSegment table, final String sym) {
        final List<Integer> out = new ArrayList<>();
        final int id = table.symId(sym);
        if (id < 0) {
            return out;
        }
        table.symRows(id, new RowSink() {
            @Override
            public void range(final int from, final int to) {
                for (int r = from; r < to; r++) {
                    out.add(r);
                }
            }

            @Override
            public void rows(final int[] rows, final int from, final int to) {
                for (int i = from; i < to; i++) {
                    out.add(rows[i]);
                }
            }
        });
        return out;
    }

    private static ColumnChunk read(final TableSegment table, final int column, final int row) {
        if (row < 0 || row >= table.rowCount()) {
            throw new IndexOutOfBoundsException("row outside segment [table=" + table.schema().name() + ", row=" + row
                + ", rows=" + table.rowCount() + "]");
        }
        final ColumnChunk c = new ColumnChunk();
        table.read(column, row, 1, c);
        return c;
    }
}
