package io.jtick.core.hdb;

import io.jtick.core.query.ColumnChunk;
import io.jtick.core.query.QuerySource;
import io.jtick.core.query.RowSink;
import io.jtick.core.query.ScanHint;
import io.jtick.core.query.TableSegment;
import io.jtick.core.schema.TableSchema;

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
            out.add(new Segment(t));
        }
        return out;
    }

    /** One table of one partition; closing releases the partition. */
    static final class Segment implements TableSegment {
        private final PartitionTable table;
        private boolean closed;

        Segment(final PartitionTable table) {
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
            switch (f.type()) {
                case TIMESTAMP, INT64 -> {
                    final long[] b = chunk.longBuffer(length);
                    f.read(from, length, b, 0);
                    chunk.wrap(b, 0, length);
                }
                case SYMBOL, INT32 -> {
                    final int[] b = chunk.intBuffer(length);
                    f.read(from, length, b, 0);
                    chunk.wrap(b, 0, length);
                }
                case FLOAT64 -> {
                    final double[] b = chunk.doubleBuffer(length);
                    f.read(from, length, b, 0);
                    chunk.wrap(b, 0, length);
                }
                case FLOAT32 -> {
                    final float[] b = chunk.floatBuffer(length);
                    f.read(from, length, b, 0);
                    chunk.wrap(b, 0, length);
                }
                case INT16 -> {
                    final short[] b = chunk.shortBuffer(length);
                    f.read(from, length, b, 0);
                    chunk.wrap(b, 0, length);
                }
                default -> {
                    final byte[] b = chunk.byteBuffer(length);
                    f.read(from, length, b, 0);
                    chunk.wrap(b, 0, length);
                }
            }
        }

        @Override
        public void read(final int column, final int[] rows, final int at, final int length, final ColumnChunk chunk) {
            final ColumnFile f = table.column(column);
            switch (f.type()) {
                case TIMESTAMP, INT64 -> {
                    final long[] b = chunk.longBuffer(length);
                    for (int i = 0; i < length; i++) {
                        b[i] = f.getLong(rows[at + i]);
                    }
                    chunk.wrap(b, 0, length);
                }
                case SYMBOL, INT32 -> {
                    final int[] b = chunk.intBuffer(length);
                    for (int i = 0; i < length; i++) {
                        b[i] = f.getInt(rows[at + i]);
                    }
                    chunk.wrap(b, 0, length);
                }
                case FLOAT64 -> {
                    final double[] b = chunk.doubleBuffer(length);
                    for (int i = 0; i < length; i++) {
                        b[i] = f.getDouble(rows[at + i]);
                    }
                    chunk.wrap(b, 0, length);
                }
                case FLOAT32 -> {
                    final float[] b = chunk.floatBuffer(length);
                    for (int i = 0; i < length; i++) {
                        b[i] = f.getFloat(rows[at + i]);
                    }
                    chunk.wrap(b, 0, length);
                }
                case INT16 -> {
                    final short[] b = chunk.shortBuffer(length);
                    for (int i = 0; i < length; i++) {
                        b[i] = f.getShort(rows[at + i]);
                    }
                    chunk.wrap(b, 0, length);
                }
                default -> {
                    final byte[] b = chunk.byteBuffer(length);
                    for (int i = 0; i < length; i++) {
                        b[i] = f.getByte(rows[at + i]);
                    }
                    chunk.wrap(b, 0, length);
                }
            }
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
