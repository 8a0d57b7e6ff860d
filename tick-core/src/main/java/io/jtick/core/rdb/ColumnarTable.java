package io.jtick.core.rdb;

import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

import java.util.Collection;

/**
 * Read access to a column-major table at a fixed row count: typed getters by (column, row) and a
 * selection step (sym filter through the sym index, time range, limit) that a query engine builds
 * on. Implementations are immutable views: rows appended after the view was taken are not seen.
 *
 * <p>Getter/type pairs: {@link #getLong} timestamp and int64; {@link #getDouble} float64;
 * {@link #getFloat} float32; {@link #getInt} int32 and symbol (the symbol's id); {@link #getShort}
 * int16; {@link #getByte} byte, bool (0/1) and char (one ASCII byte). A getter called on a column
 * of another type throws {@link ClassCastException}.
 */
public interface ColumnarTable {
    TableSchema schema();

    /** Rows visible in this view. */
    int rowCount();

    long getLong(int column, int row);

    double getDouble(int column, int row);

    float getFloat(int column, int row);

    int getInt(int column, int row);

    short getShort(int column, int row);

    byte getByte(int column, int row);

    /** Epoch nanoseconds of a row ({@code time} column). */
    default long time(final int row) {
        return getLong(TableSchema.TIME, row);
    }

    /** Symbol id of a row (ids are shared by all tables of one RDB, see {@link SymbolCatalog}). */
    default int symId(final int row) {
        return getInt(TableSchema.SYM, row);
    }

    /** Symbol name of a row; does not allocate. */
    String symbol(int row);

    /** Any column's value as a double (aggregates, tools); symbol gives its id. */
    default double number(final int column, final int row) {
        switch (schema().type(column)) {
            case FLOAT64:
                return getDouble(column, row);
            case FLOAT32:
                return getFloat(column, row);
            case TIMESTAMP:
            case INT64:
                return getLong(column, row);
            case INT32:
            case SYMBOL:
                return getInt(column, row);
            case INT16:
                return getShort(column, row);
            default:
                return getByte(column, row);
        }
    }

    /**
     * Rows (ascending) whose sym is one of {@code syms} (null or empty: any sym) and whose time is
     * within {@code [fromNanos, toNanos]} (both inclusive, as kdb's {@code within}), at most
     * {@code limit} of them, the first ones in row (arrival) order. With syms, only those syms'
     * rows are visited (sym index); without, the time column is scanned (binary search when the
     * table's time column is non-decreasing). Unknown syms match nothing.
     */
    Selection select(Collection<String> syms, long fromNanos, long toNanos, int limit);

    /**
     * Copies column values into {@code dst} from byte 0 as little-endian values of the column's
     * width: the values at rows {@code rows[from], ..., rows[from + count - 1]}, or, when
     * {@code rows} is null, at rows {@code from, ..., from + count - 1}. Used to write partitions;
     * implementations over arrays or files override it with bulk copies.
     */
    default void gather(final int column, final int[] rows, final int from, final int count, final MutableDirectBuffer dst) {
        final ColumnType type = schema().type(column);
        final int w = type.width();
        for (int i = 0; i < count; i++) {
            final int r = rows == null ? from + i : rows[from + i];
            final int at = i * w;
            switch (type) {
                case TIMESTAMP, INT64 -> dst.putLong(at, getLong(column, r), ByteOrder.LITTLE_ENDIAN);
                case FLOAT64 -> dst.putDouble(at, getDouble(column, r), ByteOrder.LITTLE_ENDIAN);
                case SYMBOL, INT32 -> dst.putInt(at, getInt(column, r), ByteOrder.LITTLE_ENDIAN);
                case FLOAT32 -> dst.putFloat(at, getFloat(column, r), ByteOrder.LITTLE_ENDIAN);
                case INT16 -> dst.putShort(at, getShort(column, r), ByteOrder.LITTLE_ENDIAN);
                default -> dst.putByte(at, getByte(column, r));
            }
        }
    }

    /** Selected rows and the number of rows the selection visited. */
    record Selection(int[] rows, long rowsScanned) {
    }
}
