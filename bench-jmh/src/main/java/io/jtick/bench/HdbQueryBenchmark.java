package io.jtick.bench;

import io.jtick.core.hdb.ColumnEncoding;
import io.jtick.core.hdb.EncodingPolicy;
import io.jtick.core.hdb.HistoricalDatabase;
import io.jtick.core.hdb.PartitionStore;
import io.jtick.core.hdb.PartitionWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.rdb.QueryRequest;
import io.jtick.core.rdb.QueryResult;
import io.jtick.core.rdb.SymbolCatalog;
import io.jtick.core.rdb.TableLoader;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The "one-sym, one-day query on a 10M-row partition from the page cache": all rows and
 * columns of one sym (about 10,000 rows with 1000 syms) through {@link HistoricalDatabase#query},
 * which finds the sym's range in the p# index and reads only its blocks, building the JSON-ready
 * rows. {@code window} adds a one-hour time range (binary search within the sym's range).
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
    private QueryRequest oneSym;
    private QueryRequest oneSymHour;
    private int n;

    @Setup(Level.Trial)
    public void write() throws IOException {
        root = Files.createTempDirectory(Path.of(System.getProperty("jtick.bench.dir", "var")).toAbsolutePath(), "bench-hdb-query");
        final SymbolCatalog symbols = new SymbolCatalog();
        final var trade = TableLoader.syntheticDay("trade", DATE, rows, 1000, 1, symbols).snapshot();
        new PartitionWriter(root, EncodingPolicy.uniform(ColumnEncoding.parse(encoding))).write(DATE, List.of(trade));
        hdb = new HistoricalDatabase(root, new TickMetrics());
        hdb.reload();
        final long open = trade.time(0);
        oneSym = new QueryRequest("trade", List.of("S0500"), null, null, null, QueryRequest.MAX_LIMIT);
        final long from = DATE.atStartOfDay(java.time.ZoneOffset.UTC).toInstant().toEpochMilli() * 1_000_000L + 15L * 3_600_000_000_000L;
        oneSymHour = new QueryRequest("trade", List.of("S0500"), from, from + 3_600_000_000_000L, null, QueryRequest.MAX_LIMIT);
        n = hdb.query(oneSym, DATE, DATE).rows().size();
        if (n < 1000 || open == 0) {
            throw new IllegalStateException("expected a populated sym [rows=" + n + "]");
        }
    }

    @Benchmark
    public QueryResult oneSymOneDay() throws IOException {
        return hdb.query(oneSym, DATE, DATE);
    }

    @Benchmark
    public QueryResult oneSymOneHour() throws IOException {
        return hdb.query(oneSymHour, DATE, DATE);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        hdb.close();
        PartitionStore.deleteRecursively(root);
    }
}
