package io.jtick.core.replay;

import io.jtick.core.schema.TableSchema;

import java.util.List;

/**
 * One time window of a replay, decoded and in time order: what a {@link WindowLoader} fills ahead of
 * the {@link ReplayReader} that cuts it into frames. Per table, every column (time included) holds
 * that table's rows of the window in time order from index 0, so a frame is a copy of consecutive
 * values; {@link #tableAt} says which table each row of the window's merged order belongs to (null
 * when the request has one table). Buffers grow to the largest window and are reused; a reader owns
 * a few of these (one being framed, the others being filled ahead).
 */
final class ReplayWindow {
    final Object[][] columns;
    private final int[] capacity;
    private final List<TableSchema> schemas;
    byte[] tableAt;
    /** Index of the date in the plan, and its tables (null for a table the date lacks). */
    int date;
    DayTable[] day;
    /** Time range {@code [start, end)} and the span the next window's search starts from. */
    long start;
    long end;
    long span;
    /** Rows in the window, and per table. */
    int rows;
    final int[] tableRows;

    ReplayWindow(final List<TableSchema> schemas) {
        this.schemas = schemas;
        this.columns = new Object[schemas.size()][];
        this.capacity = new int[schemas.size()];
        this.tableRows = new int[schemas.size()];
        for (int t = 0; t < columns.length; t++) {
            columns[t] = new Object[schemas.get(t).columnCount()];
        }
    }

    /** Makes room for {@code n} rows of table {@code t} (and, with several tables, {@code total} rows in all). */
    void ensure(final int t, final int n, final int total) {
        if (capacity[t] < n) {
            final TableSchema schema = schemas.get(t);
            final int cap = Math.max(n, capacity[t] + (capacity[t] >> 1));
            for (int c = 0; c < schema.columnCount(); c++) {
                columns[t][c] = c == TableSchema.TIME ? new long[cap] : schema.type(c).newArray(cap);
            }
            capacity[t] = cap;
        }
        if (columns.length > 1 && (tableAt == null || tableAt.length < total)) {
            tableAt = new byte[Math.max(total, tableAt == null ? 0 : tableAt.length + (tableAt.length >> 1))];
        }
    }

    long times(final int t, final int i) {
        return ((long[]) columns[t][TableSchema.TIME])[i];
    }

    /** Bytes of buffers held. */
    long bytes() {
        long n = tableAt == null ? 0 : tableAt.length;
        for (int t = 0; t < capacity.length; t++) {
            n += (long) capacity[t] * schemas.get(t).rowWidth();
        }
        return n;
    }
}
