package io.jtick.bench;

import io.jtick.core.feed.SyntheticDay;
import io.jtick.core.hdb.ops.TierPolicy;
import io.jtick.core.hdb.ops.TieringJob;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.table.MemorySegment;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Parquet tier's write against jtick's {@code auto/zstd:3} tier on the same synthetic day
 * ({@code ./jtick bench-parquet [rows] [syms] [tiers]}, default 10M trades + 10M quotes over 1000 syms): each
 * tier rewrites the plain partition through the tiering job, as the HDB's daily job does; MB/s are
 * raw column bytes over the rewrite's wall time, sizes are the stored bytes. {@code tiers}: comma-separated, default
 * {@code auto/zstd:3,parquet/zstd,parquet/snappy,parquet/lz4}.
 */
public final class ParquetTierBench {
    private ParquetTierBench() {
    }

    public static void main(final String[] args) throws Exception {
        final int rows = args.length > 0 ? Integer.parseInt(args[0]) : 10_000_000;
        final int syms = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        final List<String> tiers = args.length > 2 ? List.of(args[2].split(","))
            : List.of("auto/zstd:3", "parquet/zstd", "parquet/snappy", "parquet/lz4");
        final LocalDate day = LocalDate.of(2026, 11, 20);
        final List<MemorySegment> tables = List.of(SyntheticDay.segment("trade", day, rows, syms, 1),
            SyntheticDay.segment("quote", day, rows, syms, 2));
        final Path dir = Files.createDirectories(Path.of(System.getProperty("jtick.bench.dir", "var")).toAbsolutePath());
        final Path base = Files.createTempDirectory(dir, "bench-parquet");
        try {
            System.out.printf("%,d trades + %,d quotes, %d syms%n", rows, rows, syms);
            System.out.printf("%-14s %-7s %14s %14s %10s %9s%n", "tier", "table", "raw bytes", "stored bytes", "ms", "MB/s raw");
            for (final String tier : tiers) {
                final Path root = base.resolve(tier.replace('/', '_').replace(':', '_'));
                new PartitionWriter(root, EncodingPolicy.PLAIN).write(day, tables);
                try (HistoricalDatabase hdb = new HistoricalDatabase(root, new TickMetrics())) {
                    hdb.reload();
                    final Map<String, Long> raw = new TreeMap<>();
                    hdb.partitions().get(0).tables().forEach(t -> raw.put(t.table(), t.rawBytes()));
                    final TieringJob.Report r = new TieringJob(hdb, new TierPolicy(List.of(TierPolicy.Tier.parse("t", -1, tier, Map.of(),
                        Map.of()))), PartitionWriter.DEFAULT_BLOCK_BYTES).run(day.plusDays(1));
                    for (final TieringJob.Moved m : r.moved()) {
                        System.out.printf("%-14s %-7s %,14d %,14d %,10d %9.0f%n", tier, m.table(), raw.get(m.table()), m.bytesAfter(),
                            m.millis(), raw.get(m.table()) / 1e6 / (m.millis() / 1e3));
                    }
                }
                PartitionStore.deleteRecursively(root);
            }
        } finally {
            PartitionStore.deleteRecursively(base);
        }
    }
}
