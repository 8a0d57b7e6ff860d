package io.jtick.core.rdb;

import io.jtick.core.schema.ColumnType;

import java.time.Instant;

/**
 * Table cells as the JSON a query answers holds them (what tests compare answers with). Values by
 * column type: timestamp → ISO-8601 instant string with nanoseconds
 * ({@code "2026-11-21T09:30:00.000000123Z"}: epoch-ns longs exceed what JavaScript numbers hold
 * exactly); symbol and char → string; bool → boolean; float64/float32 → number;
 * int64/int32/int16/byte → integer.
 */
public final class JsonCells {
    private JsonCells() {
    }

    /** A cell as a JSON-friendly object (conversions in the class comment). */
    public static Object cell(final ColumnarTable table, final int column, final int row) {
        final ColumnType type = table.schema().type(column);
        switch (type) {
            case TIMESTAMP:
                final long nanos = table.getLong(column, row);
                return Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L)).toString();
            case SYMBOL:
                return table.symbol(row);
            case FLOAT64:
                return table.getDouble(column, row);
            case FLOAT32:
                return table.getFloat(column, row);
            case INT64:
                return table.getLong(column, row);
            case INT32:
                return table.getInt(column, row);
            case INT16:
                return table.getShort(column, row);
            case BYTE:
                return table.getByte(column, row);
            case BOOL:
                return table.getByte(column, row) != 0;
            case CHAR:
                return String.valueOf((char) (table.getByte(column, row) & 0xff));
            default:
                throw new IllegalStateException("unhandled column type [type=" + type + "]");
        }
    }
}
