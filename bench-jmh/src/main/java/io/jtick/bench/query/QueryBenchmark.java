package io.jtick.bench.query;

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

import java.util.concurrent.TimeUnit;

/**
 * jtick against embedded DuckDB and embedded QuestDB on the same data and the same six questions
 * ({@link BenchQuery}). Every trial loads the data set into the system under test; a peer's trial
 * also loads it into jtick and checks that both answer all six questions alike before anything is
 * timed (it fails the trial, saying what differs, if not). Score: time per question, each run
 * reading every value of every result row.
 *
 * <p>{@code -p dataset=synthetic|taq}, {@code -p rows=} (synthetic: trades and quotes each;
 * 10,000,000 by default, smaller for a quick run), {@code -p syms=} (1000), {@code -p system=}
 * {@code jtick}, {@code jtick-parted} (the HDB's sym-parted layout, in memory), {@code jtick-hdb}
 * (a real on-disk partition written by {@code PartitionWriter}, plain and memory-mapped: the hot
 * tier), {@code jtick-hdb-lz4} (the same partition encoded {@code auto/lz4}: the warm tier),
 * {@code duckdb}, {@code questdb}. The HDB systems write under {@code -Djtick.bench.dir} (default
 * {@code var}) and delete it in teardown.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx10g", "-Xms2g"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class QueryBenchmark {
    @Param({"synthetic", "taq"})
    public String dataset;

    @Param({"jtick", "jtick-parted", "jtick-hdb", "jtick-hdb-lz4", "duckdb", "questdb"})
    public String system;

    @Param({"10000000"})
    public int rows;

    @Param({"1000"})
    public int syms;

    private QuerySystem sys;

    @Setup(Level.Trial)
    public void load() throws Exception {
        final TickData data = TickData.load(dataset, rows, syms);
        sys = QuerySystem.open(system, data);
        if (!system.equals("jtick")) {
            try (QuerySystem ref = QuerySystem.open("jtick", data)) {
                for (final BenchQuery q : BenchQuery.values()) {
                    final String diff = ref.answer(q).difference(sys.answer(q));
                    if (diff != null) {
                        throw new IllegalStateException("answers differ [query=" + q + ", jtick vs " + system + "]: " + diff);
                    }
                }
            } catch (final Exception | Error e) {
                sys.close(); // no teardown after a failed setup: release the HDB's files and directory here
                throw e;
            }
        }
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        sys.close();
    }

    @Benchmark
    public long countBySym() throws Exception {
        return sys.run(BenchQuery.COUNT_BY_SYM);
    }

    @Benchmark
    public long vwapBySym() throws Exception {
        return sys.run(BenchQuery.VWAP_BY_SYM);
    }

    @Benchmark
    public long oneSym() throws Exception {
        return sys.run(BenchQuery.ONE_SYM);
    }

    @Benchmark
    public long bars1m() throws Exception {
        return sys.run(BenchQuery.BARS_1M);
    }

    @Benchmark
    public long asof() throws Exception {
        return sys.run(BenchQuery.ASOF);
    }

    @Benchmark
    public long spreadBySym() throws Exception {
        return sys.run(BenchQuery.SPREAD_BY_SYM);
    }
}
