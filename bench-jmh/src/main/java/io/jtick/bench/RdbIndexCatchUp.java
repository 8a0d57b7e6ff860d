package io.jtick.bench;

import io.jtick.core.rdb.ChunkPool;
import io.jtick.core.rdb.RealtimeTable;
import io.jtick.core.rdb.SymbolCatalog;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.RowSink;
import io.jtick.core.table.TableSegment;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * The sym index's catch-up alone, in CPU time of the thread that runs it: {@code tables} tables of
 * 1,048,576 rows each filled as {@link RdbInsertBenchmark} fills them ({@code throughput.q}'s rows,
 * bulk 1000, 1000 syms, chunks reused from the pool), then the one-sym query that indexes them,
 * timed alone. Prints the median and the 10th/90th percentiles of CPU ns per row over the tables
 * after the first 20 (JIT warm-up). A CPU figure, so that two builds can be compared on a shared
 * machine: {@code java <jvm.options> -cp bench-jmh/target/benchmarks.jar io.jtick.bench.RdbIndexCatchUp [tables]}.
 */
public final class RdbIndexCatchUp {
    private static final int SYMS = 1000;
    private static final int BULK = 1000;
    private static final int TABLE_ROWS = 1 << 20;
    private static final int WARM_UP = 20;

    private RdbIndexCatchUp() {
    }

    public static void main(final String[] args) {
        final int tables = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        final TableSchema schema = RdbInsertBenchmark.throughputSchema();
        final ByteBuf frame = frame(schema);
        final UpdateDecoder decoder = new UpdateDecoder();
        final SymbolCatalog catalog = new SymbolCatalog();
        final ChunkPool pool = new ChunkPool();
        final RowSink ignore = new RowSink() {
            @Override
            public void range(final int from, final int to) {
            }

            @Override
            public void rows(final int[] rows, final int from, final int to) {
            }
        };
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        final double[] nsPerRow = new double[tables];
        for (int round = 0; round < WARM_UP + tables; round++) {
            final RealtimeTable table = new RealtimeTable(schema, catalog, TABLE_ROWS, true, pool);
            while (table.rowCount() <= TABLE_ROWS - BULK) {
                table.append(schema, decoder.wrap(frame, 0));
            }
            final long cpu0 = threads.getCurrentThreadCpuTime();
            try (TableSegment s = table.segment(0)) {
                s.symRows(0, ignore);
            }
            final long cpu = threads.getCurrentThreadCpuTime() - cpu0;
            table.retire();
            if (round >= WARM_UP) {
                nsPerRow[round - WARM_UP] = (double) cpu / table.rowCount();
            }
        }
        frame.release();
        Arrays.sort(nsPerRow);
        System.out.printf(Locale.ROOT, "sym index catch-up, CPU ns per row: median %.2f, p10 %.2f, p90 %.2f (%d tables of %d rows)%n",
            nsPerRow[tables / 2], nsPerRow[tables / 10], nsPerRow[tables * 9 / 10], tables, TABLE_ROWS);
    }

    /** One update of {@value #BULK} rows whose dictionary holds every sym, row k holding sym k. */
    private static ByteBuf frame(final TableSchema schema) {
        final int dictBytes = SYMS * 6;
        final ByteBuf b = Unpooled.directBuffer(UpdateEncoder.frameLength(schema, BULK, dictBytes));
        final UpdateEncoder enc = new UpdateEncoder();
        enc.wrap(b, schema, BULK, dictBytes);
        for (int k = 0; k < SYMS; k++) {
            enc.addSym(String.format(Locale.ROOT, "s%04d", k).getBytes(StandardCharsets.US_ASCII));
        }
        for (int k = 0; k < BULK; k++) {
            enc.timestamp(TableSchema.TIME, k, 1L);
            enc.sym(k, k % SYMS);
            enc.float32(2, k, 100f + k * 0.01f);
            enc.int32(3, k, k);
            enc.int8(4, k, k & 1);
            enc.int8(5, k, 'A');
            enc.int8(6, k, 'N');
        }
        enc.finish();
        return b;
    }
}
