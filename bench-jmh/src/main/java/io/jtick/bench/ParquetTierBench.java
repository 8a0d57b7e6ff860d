package io.jtick.bench;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import io.jtick.core.feed.SyntheticDay;
import io.jtick.core.hdb.ops.TierPolicy;
import io.jtick.core.hdb.ops.TieringJob;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.table.MemorySegment;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The Parquet tier's write against jtick's {@code auto/zstd:3} tier and the disk on the same synthetic
 * day ({@code ./jtick bench-parquet [rows] [syms] [tiers] [rounds]}, default 10M trades + 10M quotes
 * over 1000 syms, 2 rounds): each tier rewrites the plain partition through the tiering job, as the
 * HDB's daily job does; MB/s are raw column bytes over the rewrite's wall time (fsyncs included),
 * sizes the stored bytes, CPU the process's CPU time (all threads) per GB of raw bytes. Within each
 * round the tiers take turns, and the round also times the disk (the same bytes in 1 MiB writes, then
 * fsync) and the machine's single-thread zstd level 3 over the plain column files in 128 KiB blocks,
 * the bound of a writer compressing on one thread. {@code tiers}: comma-separated, default
 * {@code auto/zstd:3,parquet/zstd,parquet/snappy,parquet/lz4}. A warm-up round first writes each tier
 * once on a tenth of the rows (printed as round 0, left out of the medians), so that the rounds compare
 * the writers as a long-running HDB's daily job runs them, not the JIT compiling them; round 0's CPU
 * s/GB is the first write's in a fresh process.
 */
public final class ParquetTierBench {
    private ParquetTierBench() {
    }

    public static void main(final String[] args) throws Exception {
        final int rows = args.length > 0 ? Integer.parseInt(args[0]) : 10_000_000;
        final int syms = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        final List<String> tiers = args.length > 2 ? List.of(args[2].split(","))
            : List.of("auto/zstd:3", "parquet/zstd", "parquet/snappy", "parquet/lz4");
        final int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 2;
        final LocalDate day = LocalDate.of(2026, 11, 20);
        final List<MemorySegment> tables = List.of(SyntheticDay.segment("trade", day, rows, syms, 1),
            SyntheticDay.segment("quote", day, rows, syms, 2));
        final Path base = BenchDirs.temp("bench-parquet");
        final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        final Map<String, List<Double>> mbs = new LinkedHashMap<>();
        final Map<String, List<Double>> cpu = new LinkedHashMap<>();
        final Map<String, Long> stored = new LinkedHashMap<>();
        final List<Double> disk = new ArrayList<>();
        final List<Double> zstd = new ArrayList<>();
        try {
            System.out.printf(Locale.ROOT, "%,d trades + %,d quotes, %d syms, %d rounds; load %s%n", rows, rows, syms, rounds, load());
            System.out.printf(Locale.ROOT, "%-5s %-14s %-7s %14s %14s %8s %9s %10s%n", "round", "tier", "table", "raw bytes",
                "stored bytes", "ms", "MB/s raw", "CPU s/GB");
            final List<MemorySegment> small = List.of(SyntheticDay.segment("trade", day, Math.max(rows / 10, 1), syms, 1),
                SyntheticDay.segment("quote", day, Math.max(rows / 10, 1), syms, 2));
            for (int round = 0; round <= rounds; round++) {
                final boolean warmUp = round == 0;
                long raw = 0;
                for (final String tier : tiers) {
                    final Path root = base.resolve(tier.replace('/', '_').replace(':', '_'));
                    new PartitionWriter(root, EncodingPolicy.PLAIN).write(day, warmUp ? small : tables);
                    if (!warmUp && tier.equals(tiers.get(0))) {
                        zstd.add(zstdMbs(root.resolve(day.toString())));
                    }
                    try (HistoricalDatabase hdb = new HistoricalDatabase(root, new TickMetrics())) {
                        hdb.reload();
                        final Map<String, Long> rawBytes = new TreeMap<>();
                        hdb.partitions().get(0).tables().forEach(t -> rawBytes.put(t.table(), t.rawBytes()));
                        raw = rawBytes.values().stream().mapToLong(Long::longValue).sum();
                        final long c0 = os.getProcessCpuTime();
                        final long t0 = System.nanoTime();
                        final TieringJob.Report r = new TieringJob(hdb, new TierPolicy(List.of(TierPolicy.Tier.parse("t", -1, tier,
                            Map.of(), Map.of()))), PartitionWriter.DEFAULT_BLOCK_BYTES).run(day.plusDays(1));
                        final double seconds = (System.nanoTime() - t0) / 1e9;
                        final double cpuPerGb = (os.getProcessCpuTime() - c0) / 1e9 / (raw / 1e9);
                        if (!r.failed().isEmpty()) {
                            throw new IllegalStateException("tiering failed: " + r.failed());
                        }
                        long after = 0;
                        for (final TieringJob.Moved m : r.moved()) {
                            System.out.printf(Locale.ROOT, "%-5d %-14s %-7s %,14d %,14d %,8d %9.0f%n", round, tier, m.table(),
                                rawBytes.get(m.table()), m.bytesAfter(), m.millis(), rawBytes.get(m.table()) / 1e6 / (m.millis() / 1e3));
                            after += m.bytesAfter();
                        }
                        final double both = raw / 1e6 / seconds;
                        System.out.printf(Locale.ROOT, "%-5d %-14s %-7s %,14d %,14d %,8.0f %9.0f %10.2f%n", round, tier, "both", raw, after,
                            seconds * 1e3, both, cpuPerGb);
                        if (!warmUp) {
                            mbs.computeIfAbsent(tier, k -> new ArrayList<>()).add(both);
                            cpu.computeIfAbsent(tier, k -> new ArrayList<>()).add(cpuPerGb);
                            stored.put(tier, after);
                        }
                    }
                    PartitionStore.deleteRecursively(root);
                }
                if (warmUp) {
                    continue;
                }
                final double d = WriteDownBenchmark.sequential(base.resolve("sequential"), raw);
                disk.add(d);
                System.out.printf(Locale.ROOT, "%-5d %-14s %-7s %14s %14s %8s %9.0f   (zstd level 3, one thread, plain column files: %.0f"
                    + " MB/s); load %s%n", round, "disk", "", "", "", "", d, zstd.get(zstd.size() - 1), load());
            }
            final long peer = stored.getOrDefault("auto/zstd:3", 0L);
            System.out.printf(Locale.ROOT, "%nmedian of %d rounds, both tables:%n%-14s %14s %9s %9s %10s %9s %9s%n", rounds, "tier",
                "stored bytes", "vs zstd:3", "MB/s raw", "CPU s/GB", "/disk", "/zstd");
            final double dm = median(disk);
            final double zm = median(zstd);
            for (final String tier : tiers) {
                final double m = median(mbs.get(tier));
                System.out.printf(Locale.ROOT, "%-14s %,14d %9s %9.0f %10.2f %9.2f %9.2f%n", tier, stored.get(tier),
                    peer > 0 ? String.format(Locale.ROOT, "%+.1f%%", 100.0 * stored.get(tier) / peer - 100) : "-", m,
                    median(cpu.get(tier)), m / dm, m / zm);
            }
            System.out.printf(Locale.ROOT, "%-14s %14s %9s %9.0f%n%-14s %14s %9s %9.0f%nload %s%n", "disk", "", "", dm, "zstd:3 1 thread",
                "", "", zm, load());
        } finally {
            PartitionStore.deleteRecursively(base);
        }
    }

    /** zstd level 3 on one thread over a partition's column files in 128 KiB blocks: MB/s of input. */
    static double zstdMbs(final Path partition) throws IOException {
        final List<byte[]> files = new ArrayList<>();
        try (Stream<Path> s = Files.walk(partition)) {
            for (final Path f : s.filter(Files::isRegularFile).filter(f -> !f.getFileName().toString().startsWith(".")).toList()) {
                files.add(Files.readAllBytes(f));
            }
        }
        final int block = PartitionWriter.DEFAULT_BLOCK_BYTES;
        final byte[] out = new byte[(int) Zstd.compressBound(block)];
        long in = 0;
        try (ZstdCompressCtx ctx = new ZstdCompressCtx().setLevel(3)) {
            final long t0 = System.nanoTime();
            for (final byte[] f : files) {
                for (int at = 0; at < f.length; at += block) {
                    final int n = Math.min(block, f.length - at);
                    ctx.compressByteArray(out, 0, out.length, f, at, n);
                    in += n;
                }
            }
            return in / 1e6 / ((System.nanoTime() - t0) / 1e9);
        }
    }

    private static double median(final List<Double> v) {
        final double[] s = v.stream().mapToDouble(Double::doubleValue).toArray();
        return WriteDownBenchmark.median(s);
    }

    private static String load() {
        try {
            return String.join(" ", Arrays.copyOf(Files.readString(Path.of("/proc/loadavg")).split(" "), 3));
        } catch (final IOException e) {
            return "?";
        }
    }
}
