package io.jtick.core.hdb.read;

import io.jtick.core.hdb.format.CorruptPartitionException;
import io.jtick.core.hdb.format.StoredTable;
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
        for (final StoredTable t : hdb.acquire(table, from, to)) {
            out.add(new Segment(hdb, t));
        }
        return out;
    }

    /**
     * One table of one partition as the engine gets it: reads go to the {@link StoredTable},
     * a corrupt block is counted by the HDB on the way out, closing releases the partition once.
     */
    static final class Segment implements TableSegment {
        private final HistoricalDatabase hdb;
        private final StoredTable table;
        private boolean closed;

        Segment(final HistoricalDatabase hdb, final StoredTable table) {
            this.hdb = hdb;
            this.table = table;
        }

        @Override
        public TableSchema schema() {
            return table.schema();
        }

        @Override
        public int epochDay() {
            return table.epochDay();
        }

        @Override
        public int rowCount() {
            return table.rowCount();
        }

        @Override
        public boolean timeSorted() {
            return table.timeSorted();
        }

        @Override
        public boolean symParted() {
            return table.symParted();
        }

        @Override
        public int symId(final String sym) {
            return table.symId(sym);
        }

        @Override
        public String symName(final int symId) {
            return table.symName(symId);
        }

        @Override
        public int symIdLimit() {
            return table.symIdLimit();
        }

        @Override
        public void symRows(final int symId, final RowSink sink) {
            table.symRows(symId, sink);
        }

        @Override
        public void read(final int column, final int from, final int length, final ColumnChunk chunk) {
            try {
                table.read(column, from, length, chunk);
            } catch (final UncheckedIOException e) {
                throw counted(e);
            }
        }

        @Override
        public void read(final int column, final int[] rows, final int at, final int length, final ColumnChunk chunk) {
            try {
                table.read(column, rows, at, length, chunk);
            } catch (final UncheckedIOException e) {
                throw counted(e);
            }
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
            return table.chunkRows();
        }

        @Override
        public int batchEnd(final int from, final int to) {
            return table.batchEnd(from, to);
        }

        @Override
        public int lowerBound(final int column, final int from, final int to, final long t, final ColumnChunk probe) {
            try {
                return table.lowerBound(column, from, to, t, probe);
            } catch (final UncheckedIOException e) {
                throw counted(e);
            }
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
