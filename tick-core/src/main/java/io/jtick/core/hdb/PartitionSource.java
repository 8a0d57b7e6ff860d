package io.jtick.core.hdb;

import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.QuerySource;
import io.jtick.core.table.RowSink;
import io.jtick.core.table.ScanHint;
import io.jtick.core.table.TableSegment;
import io.jtick.core.schema.TableSchema;

import java.io.UncheckedIOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * The HDB as a {@link QuerySource} of the query engine: one {@link TableSegment} per date
 * partition of a table (sym-parted, {@code p#}), pruned by date, each pinning its partition until
 * the query closes it (so a tier swap never pulls files from under it).
 */
public final class PartitionSource implements QuerySource {
    private final HistoricalDatabase hdb;

    public PartitionSource(final HistoricalDatabase hdb) {
        this.hdb = hdb;
    }

    @Override
    public TableSchema schema(final String table) {
        return hdb.schemaOf(table);
    }

    @Override
    public List<TableSegment> segments(final String table, final int fromDay, final int toDay, final ScanHint hint) {
        final LocalDate from = fromDay == ALL_DAYS_FROM ? null : LocalDate.ofEpochDay(Math.max(fromDay, -365_000_000));
        final LocalDate to = toDay == ALL_DAYS_TO ? null : LocalDate.ofEpochDay(Math.min(toDay, 365_000_000));
        final List<TableSegment> out = new ArrayList<>();
        for (final PartitionTable t : hdb.acquire(table, from, to)) {
            out.add(new Segment(hdb, t));
        }
        return out;
    }

    /** One table of one partition; closing releases the partition. */
    static final class Segment implements TableSegment {
        /** Gather element-wise when runs average fewer rows than this. */
        private static final int SCATTERED = 16;

        private final HistoricalDatabase hdb;
        private final PartitionTable table;
        private boolean closed;

        Segment(final HistoricalDatabase hdb, final PartitionTable table) {
            this.hdb = hdb;
            this.table = table;
        }

        @Override
        public TableSchema schema() {
            return table.schema();
        }

        @Override
        public int epochDay() {
            return (int) table.date().toEpochDay();
        }

        @Override
        public int rowCount() {
            return table.rowCount();
        }

        @Override
        public boolean timeSorted() {
            return table.syms().count() <= 1;
        }

        @Override
        public boolean symParted() {
            return true;
        }

        @Override
        public int symId(final String sym) {
            return table.syms().code(sym);
        }

        @Override
        public String symName(final int symId) {
            return table.syms().name(symId);
        }

        @Override
        public int symIdLimit() {
            return table.syms().count();
        }

        @Override
        public void symRows(final int symId, final RowSink sink) {
            if (symId >= 0 && symId < table.syms().count()) {
                sink.range(table.syms().from(symId), table.syms().to(symId));
            }
        }

        @Override
        public void read(final int column, final int from, final int length, final ColumnChunk chunk) {
            final ColumnFile f = table.column(column);
            final Object buf = chunk.buffer(f.type(), length);
            try {
                f.read(from, length, buf, 0);
            } catch (final UncheckedIOException e) {
                throw counted(e);
            }
            chunk.wrap(f.type(), buf, 0, length);
        }

        /**
         * Listed rows: one bulk read per run of consecutive rows when the rows come in runs (sym
         * lists), an element-wise gather when they are scattered (as-of matches).
         */
        @Override
        public void read(final int column, final int[] rows, final int at, final int length, final ColumnChunk chunk) {
            final ColumnFile f = table.column(column);
            final Object buf = chunk.buffer(f.type(), length);
            int runs = 1;
            for (int i = 1; i < length; i++) {
                if (rows[at + i] != rows[at + i - 1] + 1) {
                    runs++;
                }
            }
            try {
                if (runs * SCATTERED > length) {
                    f.gather(rows, at, length, buf);
                } else {
                    for (int i = 0; i < length;) {
                        int n = 1;
                        while (i + n < length && rows[at + i + n] == rows[at + i + n - 1] + 1) {
                            n++;
                        }
                        f.read(rows[at + i], n, buf, i);
                        i += n;
                    }
                }
            } catch (final UncheckedIOException e) {
                throw counted(e);
            }
            chunk.wrap(f.type(), buf, 0, length);
        }

        /** A corrupt block is counted by the HDB, then thrown on (the endpoint answers 500 naming file and block). */
        private UncheckedIOException counted(final UncheckedIOException e) {
            if (e.getCause() instanceof CorruptPartitionException c) {
                hdb.corruptRead(c);
            }
            return e;
        }

        @Override
        public int chunkRows() {
            return Math.max(1024, table.column(0).blockRows());
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                table.release();
            }
        }
    }
}
