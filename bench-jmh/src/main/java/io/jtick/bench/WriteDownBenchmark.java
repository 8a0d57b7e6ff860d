package io.jtick.bench;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.write.DirectIo;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.lab.compression.TableLoader;
import io.jtick.core.rdb.SymbolCatalog;
import io.jtick.core.table.TableSegment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The end-of-day write-down against the disk's own synced sequential write speed, interleaved in
 * one run: a synthetic day of {@code --rows} trades and as many quotes (1000 syms) is loaded into
 * RDB tables, then each round writes the day as a partition ({@code --encoding}, default plain;
 * {@code --parallelism} writer threads; sort, sym index, every file and directory forced, atomic
 * rename) and right after writes files of the sizes the partition's files have (one after the
 * other, each in 1 MiB writes from a direct buffer and forced, as {@code dd bs=1M conv=fdatasync}
 * does, then the directory forced: as the write-down forces each file and its directories).
 * Interleaving matters on a disk whose speed moves (a shared or burst-credited virtual disk): the
 * figures of a round see the same disk. Each round writes the day with each of {@code --writers}
 * (the buffered writer, through the page cache, and the direct-I/O one, {@link DirectIo#ON}), which
 * goes first alternating by round. Prints each round and the medians: raw bytes/s of each
 * write-down, its CPU seconds per GB (the whole process, kernel included), its ratio to the disk of
 * the same round; the disk's synced sequential write, and the same files once more with direct I/O
 * ({@code O_DIRECT}, 1 MiB aligned writes, the last padded and each file truncated), with the CPU
 * seconds per GB of both ({@code n/a} where the file system refuses {@code O_DIRECT}; tmpfs accepts
 * it on recent kernels). The ratio is to the faster of the disk's two figures: a writer that skips
 * the page cache is held to what the device takes without it (through the page cache alone, the
 * disk measured 136-169 MB/s in a loaded round where {@code O_DIRECT} made 1.7-2.0 GB/s).
 *
 * <pre>
 * ./jtick bench-write-down                           # 10M + 10M rows, plain, 5 rounds, under ./var/bench-write-down
 * ./jtick bench-write-down --rows 2000000 --rounds 3 --encoding auto/lz4
 * ./jtick bench-write-down --writers direct --dir /dev/shm/wd    # the direct writer alone, on tmpfs
 * </pre>
 */
public final class WriteDownBenchmark {
    private WriteDownBenchmark() {
    }

    /** Command-line options. */
    record Options(int rows, int rounds, String encoding, int parallelism, Path dir, List<DirectIo> writers) {
        static Options parse(final String[] args) {
            int rows = 10_000_000;
            int rounds = 5;
            String encoding = "none";
            int parallelism = 2;
            Path dir = Path.of("var", "bench-write-down");
            List<DirectIo> writers = List.of(DirectIo.OFF, DirectIo.ON);
            for (int i = 0; i < args.length; i++) {
                final String a = args[i];
                if ("-h".equals(a) || "--help".equals(a) || i + 1 >= args.length) {
                    throw new IllegalArgumentException("usage: WriteDownBenchmark [--rows N (10000000)] [--rounds N (5)]"
                        + " [--encoding none|lz4|auto/zstd:3... (none)] [--parallelism N (2)] [--dir DIR (var/bench-write-down)]"
                        + " [--writers buffered,direct (both)]");
                }
                final String v = args[++i];
                switch (a) {
                    case "--rows" -> rows = Integer.parseInt(v.replace("_", ""));
                    case "--rounds" -> rounds = Integer.parseInt(v);
                    case "--encoding" -> encoding = v;
                    case "--parallelism" -> parallelism = Integer.parseInt(v);
                    case "--dir" -> dir = Path.of(v);
                    case "--writers" -> writers = Arrays.stream(v.split(",")).map(x -> switch (x.trim()) {
                        case "buffered" -> DirectIo.OFF;
                        case "direct" -> DirectIo.ON;
                        default -> throw new IllegalArgumentException("--writers takes buffered,direct [value=" + x + "]");
                    }).toList();
                    default -> throw new IllegalArgumentException("unknown option " + a);
                }
            }
            if (rows < 1 || rounds < 1 || parallelism < 1) {
                throw new IllegalArgumentException("rows, rounds and parallelism must be positive");
            }
            ColumnEncoding.parse(encoding);
            if (writers.isEmpty()) {
                throw new IllegalArgumentException("--writers names none");
            }
            return new Options(rows, rounds, encoding, parallelism, dir, writers);
        }
    }

    public static void main(final String[] args) throws IOException {
        final Options o;
        try {
            o = Options.parse(args);
        } catch (final IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        final SymbolCatalog symbols = new SymbolCatalog();
        final LocalDate date = LocalDate.of(2026, 11, 20);
        final int epochDay = (int) date.toEpochDay();
        System.err.printf(Locale.ROOT, "write-down: loading %,d trades and %,d quotes%n", o.rows(), o.rows());
        final List<TableSegment> day = List.of(TableLoader.syntheticDay("trade", date, o.rows(), 1000, 1, symbols).segment(epochDay),
            TableLoader.syntheticDay("quote", date, o.rows(), 1000, 2, symbols).segment(epochDay));
        long raw = 0;
        for (final TableSegment t : day) {
            raw += (long) t.rowCount() * t.schema().rowWidth();
        }
        final Path root = o.dir();
        Files.createDirectories(root);
        final List<DirectIo> writers = o.writers();
        final int n = o.rounds();
        final double[][] mbs = new double[writers.size()][n];
        final double[][] cpuPerGb = new double[writers.size()][n];
        final double[][] ratio = new double[writers.size()][n];
        final double[] disk = new double[n];
        final double[] direct = new double[n];
        final double[] bufferedCpu = new double[n];
        final double[] directCpu = new double[n];
        final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        final java.nio.file.FileStore store = Files.getFileStore(root);
        System.out.printf(Locale.ROOT, "write-down of %.0f MB raw (%,d trades + %,d quotes, %s, %d threads) against the disk, %s"
            + " (file system %s on %s, block %d bytes)%n", raw / 1e6, o.rows(), o.rows(), o.encoding(), o.parallelism(),
            root.toAbsolutePath(), store.type(), store.name(), store.getBlockSize());
        final StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "%6s", "round"));
        for (final DirectIo w : writers) {
            head.append(String.format(Locale.ROOT, " %20s %9s %9s", label(w) + " MB/s", "CPU s/GB", "ratio"));
        }
        head.append(String.format(Locale.ROOT, " %10s %12s %14s %14s", "disk MB/s", "direct MB/s", "disk CPU s/GB", "direct CPU s/GB"));
        System.out.println(head);
        // one untimed round: JIT and the first file-system allocations; the writers take turns first within a round
        for (int k = -1; k < n; k++) {
            final StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%6s", k < 0 ? "warm" : Integer.toString(k + 1)));
            final double[] roundMbs = new double[writers.size()];
            final double[] roundCpu = new double[writers.size()];
            for (int i = 0; i < writers.size(); i++) {
                final int wi = (k & 1) == 0 ? i : writers.size() - 1 - i;
                PartitionStore.deleteRecursively(root.resolve("2026-11-20"));
                final PartitionWriter writer = new PartitionWriter(root, EncodingPolicy.uniform(ColumnEncoding.parse(o.encoding())),
                    PartitionWriter.DEFAULT_BLOCK_BYTES, o.parallelism(), PartitionWriter.WriteHook.NONE, writers.get(wi));
                final long c0 = os.getProcessCpuTime();
                final long t0 = System.nanoTime();
                writer.write(date, day);
                roundMbs[wi] = raw / 1e6 / ((System.nanoTime() - t0) / 1e9);
                roundCpu[wi] = (os.getProcessCpuTime() - c0) / 1e9 / (raw / 1e9);
            }
            // the disk writes files of the sizes the partition's files have, each forced, as the write-down does
            final long[] files = fileSizes(root.resolve("2026-11-20"));
            final long fileBytes = Arrays.stream(files).sum();
            PartitionStore.deleteRecursively(root.resolve("2026-11-20"));
            final long c1 = os.getProcessCpuTime();
            final double d = sequential(root.resolve("sequential"), files, false);
            final long c2 = os.getProcessCpuTime();
            final double dd = sequential(root.resolve("direct"), files, true);
            final long c3 = os.getProcessCpuTime();
            final double best = Double.isNaN(dd) ? d : Math.max(d, dd);
            for (int i = 0; i < writers.size(); i++) {
                line.append(String.format(Locale.ROOT, " %20.0f %9.2f %9.2f", roundMbs[i], roundCpu[i], roundMbs[i] / best));
            }
            final double bc = (c2 - c1) / 1e9 / (fileBytes / 1e9);
            final double dc = Double.isNaN(dd) ? Double.NaN : (c3 - c2) / 1e9 / (fileBytes / 1e9);
            line.append(String.format(Locale.ROOT, " %10.0f %12.0f %14.2f %14.2f", d, dd, bc, dc));
            System.out.println(line);
            if (k >= 0) {
                for (int i = 0; i < writers.size(); i++) {
                    mbs[i][k] = roundMbs[i];
                    cpuPerGb[i][k] = roundCpu[i];
                    ratio[i][k] = roundMbs[i] / best;
                }
                disk[k] = d;
                direct[k] = dd;
                bufferedCpu[k] = bc;
                directCpu[k] = dc;
            }
        }
        PartitionStore.deleteRecursively(root);
        final StringBuilder med = new StringBuilder(String.format(Locale.ROOT, "%6s", "median"));
        for (int i = 0; i < writers.size(); i++) {
            med.append(String.format(Locale.ROOT, " %20.0f %9.2f %9.2f", median(mbs[i]), median(cpuPerGb[i]), median(ratio[i])));
        }
        med.append(String.format(Locale.ROOT, " %10.0f %12.0f %14.2f %14.2f", median(disk), median(direct), median(bufferedCpu),
            median(directCpu)));
        System.out.println(med);
        System.out.printf(Locale.ROOT, "write-down: raw column bytes over wall time of PartitionWriter.write (sort, encode, write, fsync"
            + " every file and directory, rename), per writer (buffered: through the page cache; direct: O_DIRECT from aligned"
            + " buffers), the writers alternating which goes first; CPU s/GB: the process's CPU time (all threads, the kernel's"
            + " included) per GB written; ratio: the write-down over the disk of the same round, the faster of its two figures;"
            + " disk: files of the partition's file sizes (the last written), each in 1 MiB writes through the page cache, then"
            + " fsync, and the directory's; direct: the same files with O_DIRECT, 1 MiB aligned writes (n/a: the file system"
            + " refuses it); disk MB/s over the files' bytes (header and index included), the write-down's over its raw bytes%n");
    }

    private static String label(final DirectIo w) {
        return switch (w) {
            case OFF -> "buffered";
            case ON -> "direct";
            case AUTO -> "auto";
        };
    }

    /** Sizes of the regular files under {@code dir}, in path order. */
    static long[] fileSizes(final Path dir) throws IOException {
        try (java.util.stream.Stream<Path> all = Files.walk(dir)) {
            return all.filter(Files::isRegularFile).sorted().mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (final IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).toArray();
        }
    }

    /**
     * Writes a new file of each of {@code sizes} into a new directory {@code dir}, one after the
     * other, each forced once written ({@link #writeSynced}, or with {@code O_DIRECT} as
     * {@link #sequentialDirect} writes), then forces the directory; MB/s over the files' bytes,
     * NaN when {@code direct} and the file system refuses {@code O_DIRECT}. Deletes them after.
     */
    static double sequential(final Path dir, final long[] sizes, final boolean direct) throws IOException {
        Files.createDirectories(dir);
        long bytes = 0;
        try {
            final long t0 = System.nanoTime();
            for (int i = 0; i < sizes.length; i++) {
                final Path file = dir.resolve("f" + i);
                if (direct) {
                    if (!writeDirect(file, sizes[i])) {
                        return Double.NaN;
                    }
                } else {
                    writeSynced(file, sizes[i]);
                }
                bytes += sizes[i];
            }
            try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                d.force(true);
            }
            return bytes / 1e6 / ((System.nanoTime() - t0) / 1e9);
        } finally {
            PartitionStore.deleteRecursively(dir);
        }
    }

    /** Writes {@code bytes} to a new file in 1 MiB writes from a direct buffer and forces it; MB/s. */
    static double sequential(final Path file, final long bytes) throws IOException {
        final long t0 = System.nanoTime();
        writeSynced(file, bytes);
        final double mbs = bytes / 1e6 / ((System.nanoTime() - t0) / 1e9);
        Files.delete(file);
        return mbs;
    }

    /**
     * The disk's floor: {@code bytes} written to a new {@code file} in 1 MiB writes from a direct
     * buffer, then forced to the disk (what {@code dd bs=1M conv=fdatasync} does).
     */
    static void writeSynced(final Path file, final long bytes) throws IOException {
        final ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            for (long done = 0; done < bytes; done += buf.capacity()) {
                buf.clear().limit((int) Math.min(buf.capacity(), bytes - done));
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
            }
            ch.force(true);
        }
    }

    /**
     * As {@link #sequential}, with direct I/O: 1 MiB writes from a buffer aligned to the file
     * system's block, the last one padded to a whole block and the file then truncated to
     * {@code bytes}; NaN when the file system refuses {@code O_DIRECT}.
     */
    static double sequentialDirect(final Path file, final long bytes) throws IOException {
        final long t0 = System.nanoTime();
        if (!writeDirect(file, bytes)) {
            return Double.NaN;
        }
        final double mbs = bytes / 1e6 / ((System.nanoTime() - t0) / 1e9);
        Files.delete(file);
        return mbs;
    }

    /** {@link #sequentialDirect}'s write: false (and no file) when the file system refuses {@code O_DIRECT}. */
    static boolean writeDirect(final Path file, final long bytes) throws IOException {
        final int align = (int) Math.max(4096, Files.getFileStore(file.getParent()).getBlockSize());
        final ByteBuffer buf = ByteBuffer.allocateDirect((1 << 20) + align).alignedSlice(align);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
            com.sun.nio.file.ExtendedOpenOption.DIRECT)) {
            for (long done = 0; done < bytes; done += 1 << 20) {
                final long n = Math.min(1 << 20, bytes - done);
                buf.clear().limit((int) ((n + align - 1) / align * align));
                while (buf.hasRemaining()) {
                    ch.write(buf, done + buf.position());
                }
            }
            ch.truncate(bytes);
            ch.force(true);
        } catch (final IOException | UnsupportedOperationException e) {
            Files.deleteIfExists(file);
            if (e instanceof UnsupportedOperationException || String.valueOf(e.getMessage()).contains("Invalid argument")) {
                return false;
            }
            throw e;
        }
        return true;
    }

    static double median(final double[] v) {
        final double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
