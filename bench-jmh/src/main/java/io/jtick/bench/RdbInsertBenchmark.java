package io.jtick.bench;

import io.jtick.core.rdb.ChunkPool;
import io.jtick.core.rdb.RealtimeTable;
import io.jtick.core.rdb.SymIndexAgent;
import io.jtick.core.rdb.SymbolCatalog;
import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.RowSink;
import io.jtick.core.table.TableSegment;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Port of KX's {@code throughput.q}: inserts of {@code bulk} rows into an in-memory table with the
 * schema {@code sym, time, price:real, size:int, stop:bool, cond:char, ex:char} and 1000 syms (here
 * time and sym come first, as jtick requires; {@code syms} varies the universe). One operation is one {@link RealtimeTable#append}
 * of a pre-built update, including the {@link UpdateDecoder#wrap} the subscriber does per frame; the
 * {@code rows} counter is rows/s. Every {@code tableRows} rows the table is replaced by a fresh one
 * of that capacity, so memory stays bounded and no doubling happens mid-table: the allocation and
 * zeroing of the new table is inside the measurement, amortized over {@code tableRows} rows.
 * All rows carry the same timestamp, so the time-order check runs on every row.
 *
 * <p>{@code symIndex}: {@code none} is a table without the sym index (kdb+'s table without an
 * attribute, throughput.q's case); {@code g} keeps it, built off the insert path: with
 * {@code follower=true} (the RDB's set-up) by a {@link SymIndexAgent}, a thread of its own that sorts
 * each chunk as soon as the writer has filled it, and by the first one-sym query for whatever rows
 * the agent has not indexed yet; with {@code follower=false} by that query alone. Here one such
 * query per table, just before it is replaced, so that every row the agent has not indexed by then is
 * indexed inside the measurement, on the inserting thread (KX's {@code g#} insert has it on the insert path).
 *
 * <p>{@code reuse}: {@code true} retires each replaced table into a {@link ChunkPool} that the next
 * table grows from, as the RDB does from its second day on (the day before's chunks, reused
 * without zeroing once the write-down and the queries let go of them); {@code false} allocates
 * fresh, zeroed chunks for every table, as on the RDB's first day.
 *
 * <p>Each measurement iteration also prints the inserting thread's rows per CPU second
 * ({@code cpu rows/s ...} lines): on a shared machine the wall-clock score moves with the load,
 * the CPU figure much less (it leaves out the GC threads' work, which fresh chunks add to). With
 * {@code g} the line adds the CPU time the indexing queries took per row and per table (the
 * catch-up that the first one-sym query after a burst of inserts pays) and, with the follower, the
 * CPU time the agent's thread used per inserted row (work on the other core, not in the score).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class RdbInsertBenchmark {
    @Param({"1", "10", "100", "1000", "10000"})
    public int bulk;

    @Param({"1048576"})
    public int tableRows;

    /** Sym universe; throughput.q uses 1000. Each update's dictionary holds min(bulk, syms) syms to intern. */
    @Param({"1000"})
    public int syms;

    @Param({"none", "g"})
    public String symIndex;

    @Param({"true"})
    public boolean reuse;

    /** With {@code g}: a {@link SymIndexAgent} sorts each filled chunk on its own thread (the RDB's set-up). */
    @Param({"true"})
    public boolean follower;

    private SymIndexAgent agent;
    private long agentCpu0;

    private TableSchema schema;
    private SymbolCatalog catalog;
    private ChunkPool pool;
    private RealtimeTable table;
    private ByteBuf[] frames;
    private int next;
    private long inserted;
    private long cpu0;
    private long rows0;
    /** CPU time of the one-sym queries that index each table's rows (the catch-up), and the rows they indexed. */
    private long indexNanos;
    private long indexedRows;
    private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();
    private final UpdateDecoder decoder = new UpdateDecoder();
    private static final RowSink IGNORE = new RowSink() {
        @Override
        public void range(final int from, final int to) {
        }

        @Override
        public void rows(final int[] rows, final int from, final int to) {
        }
    };


    /** {@code throughput.q}'s table: {@code ([]sym;time;price:real;size:int;stop:bool;cond:char;ex:char)}. */
    static TableSchema throughputSchema() {
        return TableSchema.of("t",
            new ColumnDef("price", ColumnType.FLOAT32),
            new ColumnDef("size", ColumnType.INT32),
            new ColumnDef("stop", ColumnType.BOOL),
            new ColumnDef("cond", ColumnType.CHAR),
            new ColumnDef("ex", ColumnType.CHAR));
    }

    @Setup(Level.Trial)
    public void build() {
        schema = throughputSchema();
        final byte[][] names = new byte[syms][];
        for (int i = 0; i < syms; i++) {
            names[i] = String.format("s%04d", i).getBytes(StandardCharsets.US_ASCII);
        }
        final int count = Math.max(1, syms / bulk);
        frames = new ByteBuf[count];
        final UpdateEncoder enc = new UpdateEncoder();
        final long time = System.currentTimeMillis() * 1_000_000L;
        long row = 0;
        for (int f = 0; f < count; f++) {
            final int distinct = Math.min(bulk, syms);
            final int dictBytes = distinct * (1 + names[0].length);
            final ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(UpdateEncoder.frameLength(schema, bulk, dictBytes));
            enc.wrap(b, schema, bulk, dictBytes);
            final int base = (int) (row % syms);
            for (int k = 0; k < distinct; k++) {
                enc.addSym(names[(base + k) % syms]);
            }
            for (int k = 0; k < bulk; k++, row++) {
                enc.timestamp(TableSchema.TIME, k, time);
                enc.sym(k, k % distinct);
                enc.float32(2, k, 100f + (row % 1000) * 0.01f);
                enc.int32(3, k, (int) (row % 10_000));
                enc.int8(4, k, (int) (row & 1));
                enc.int8(5, k, 'A');
                enc.int8(6, k, 'N');
            }
            enc.finish();
            frames[f] = b;
        }
        catalog = new SymbolCatalog();
        pool = reuse ? new ChunkPool() : null;
        agent = "g".equals(symIndex) && follower ? new SymIndexAgent("bench-sym-index") : null;
        table = newTable();
    }

    private RealtimeTable newTable() {
        return new RealtimeTable(schema, catalog, tableRows, "g".equals(symIndex), pool, agent);
    }

    /** The one-sym query that indexes the table's rows (nothing for {@code none}, which has nothing to index). */
    private void indexAll() {
        if (table.symIndexed()) {
            final long t0 = THREADS.getCurrentThreadCpuTime();
            try (TableSegment s = table.segment(0)) {
                s.symRows(0, IGNORE);
            }
            indexNanos += THREADS.getCurrentThreadCpuTime() - t0;
            indexedRows += table.rowCount();
        }
    }

    @Benchmark
    public int insert(final Rows rows) {
        if (table.rowCount() > tableRows - bulk) {
            indexAll();
            table.retire();
            table = newTable();
        }
        final ByteBuf f = frames[next];
        next = next + 1 == frames.length ? 0 : next + 1;
        final int n = table.append(schema, decoder.wrap(f, 0));
        rows.rows += n;
        inserted += n;
        return n;
    }

    @Setup(Level.Iteration)
    public void startCpu() {
        cpu0 = THREADS.getCurrentThreadCpuTime();
        agentCpu0 = agent == null ? 0 : agent.cpuNanos();
        rows0 = inserted;
    }

    @TearDown(Level.Iteration)
    public void printCpu() {
        final double cpu = (THREADS.getCurrentThreadCpuTime() - cpu0) / 1e9;
        final long n = inserted - rows0;
        System.out.printf(java.util.Locale.ROOT, "cpu rows/s bulk=%d symIndex=%s reuse=%b %.1f M%s%s%n", bulk, symIndex, reuse,
            n / cpu / 1e6, indexedRows == 0 ? "" : String.format(java.util.Locale.ROOT,
                " (index catch-up %.2f CPU ns/row, %.1f CPU ms per %d-row table)", (double) indexNanos / indexedRows, indexNanos / 1e6
                    / Math.max(1, indexedRows / tableRows), tableRows),
            agent == null ? "" : String.format(java.util.Locale.ROOT, " (follower thread %.2f CPU ns/row)",
                (double) (agent.cpuNanos() - agentCpu0) / Math.max(1, n)));
        indexNanos = 0;
        indexedRows = 0;
    }

    @TearDown(Level.Trial)
    public void release() {
        if (agent != null) {
            agent.close();
        }
        for (final ByteBuf b : frames) {
            b.release();
        }
    }
}
