package io.jtick.bench;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.read.PartitionSource;
import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.lab.compression.TableLoader;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.PreparedQuery;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.rdb.SymbolCatalog;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
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

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The "one-sym, one-day query on a 10M-row partition from the page cache": all rows and
 * columns of one sym (about 10,000 rows with 1000 syms) through the query engine over
 * {@link PartitionSource}, which finds the sym's range in the p# index and reads only its blocks
 * into a {@link ResultTable}. {@code oneSymOneHour} adds a one-hour time range (binary search within
 * the sym's range).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class HdbQueryBenchmark {
    private static final LocalDate DATE = LocalDate.of(2026, 11, 20);

    @Param({"10000000"})
    public int rows;

    @Param({"none", "auto/lz4", "auto/zstd:3"})
    public String encoding;

    private Path root;
    private HistoricalDatabase hdb;
    private final QueryEngine engine = new QueryEngine();
    private PartitionSource source;
    private PreparedQuery oneSym;
    private PreparedQuery oneSymHour;
    private int n;

    @Setup(Level.Trial)
    public void write() throws IOException {
        root = BenchDirs.temp("bench-hdb-query");
        final SymbolCatalog symbols = new SymbolCatalog();
        final var trade = TableLoader.syntheticDay("trade", DATE, rows, 1000, 1, symbols).segment((int) DATE.toEpochDay());
        new PartitionWriter(root, EncodingPolicy.uniform(ColumnEncoding.parse(encoding))).write(DATE, List.of(trade));
        hdb = new HistoricalDatabase(root, new TickMetrics());
        hdb.reload();
        source = new PartitionSource(hdb);
        final ColumnChunk first = new ColumnChunk();
        trade.read(TableSchema.TIME, 0, 1, first);
        final long open = first.longs()[first.offset()];
        oneSym = engine.prepare("{\"table\":\"trade\",\"dates\":\"" + DATE + "\",\"where\":{\"sym\":\"S0500\"}}", source);
        oneSymHour = engine.prepare("{\"table\":\"trade\",\"dates\":\"" + DATE + "\",\"where\":{\"sym\":\"S0500\","
            + "\"time\":{\"within\":[\"15:00\",\"16:00\"]}}}", source);
        n = oneSymOneDay().rowCount();
        if (n < 1000 || open == 0) {
            throw new IllegalStateException("expected a populated sym [rows=" + n + "]");
        }
    }

    @Benchmark
    public ResultTable oneSymOneDay() {
        final ResultTable out = new ResultTable();
        engine.execute(oneSym, source, out);
        return out;
    }

    @Benchmark
    public ResultTable oneSymOneHour() {
        final ResultTable out = new ResultTable();
        engine.execute(oneSymHour, source, out);
        return out;
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        hdb.close();
        PartitionStore.deleteRecursively(root);
    }
}
