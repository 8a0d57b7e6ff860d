package io.jtick.lab.compression;

import io.jtick.core.feed.TaqSource;
import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.hdb.format.PartitionTable;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.rdb.RealtimeTable;
import io.jtick.core.rdb.SymbolCatalog;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.TableSegment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Command line form of the HDB's {@link CompressionStudy}, here above the feed and the RDB because
 * a study can start from the TAQ sample or a synthetic day loaded through them ({@link TableLoader}):
 * <pre>
 * compression-study --root DIR --date yyyy-MM-dd --table T      a partition of an HDB
 *                   --synthetic ROWS [--syms N] [--table trade|quote]   a synthetic day
 *                   --taq FILE                                   the TAQ sample (trades.csv.gz or quotes.csv.gz)
 *     [--encodings e1,e2,...] [--runs N] [--no-cold] [--csv FILE] [--work DIR]
 * </pre>
 * Prints the size table (KX layout) and the write and query ratios.
 */
public final class CompressionStudyCli {
    private CompressionStudyCli() {
    }

    public static void main(final String[] args) throws IOException {
        System.exit(run(args));
    }

    /** {@code args[i]}, the value of {@code option}. */
    private static String value(final String[] args, final int i, final String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException("missing value for " + option);
        }
        return args[i];
    }

    /** The whole number {@code value} of option {@code option}, at least {@code min}. */
    private static int count(final String option, final String value, final int min) {
        final int n;
        try {
            n = Integer.parseInt(value);
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException(option + " needs a whole number [value=" + value + "]", e);
        }
        if (n < min) {
            throw new IllegalArgumentException(option + " needs at least " + min + " [value=" + value + "]");
        }
        return n;
    }

    /** Runs the CLI; returns the exit code. */
    public static int run(final String[] args) throws IOException {
        String root = null;
        String date = null;
        String table = "trade";
        int synthetic = 0;
        int syms = 1000;
        String taq = null;
        List<String> encodings = CompressionStudy.DEFAULT_ENCODINGS;
        int runs = 3;
        boolean cold = true;
        String csv = null;
        String work = null;
        final List<ColumnEncoding> parsed = new ArrayList<>();
        try {
            for (int i = 0; i < args.length; i++) {
                final String a = args[i];
                switch (a) {
                    case "--root" -> root = value(args, ++i, a);
                    case "--date" -> date = value(args, ++i, a);
                    case "--table" -> table = value(args, ++i, a);
                    case "--synthetic" -> synthetic = count(a, value(args, ++i, a), 0);
                    case "--syms" -> syms = count(a, value(args, ++i, a), 1);
                    case "--taq" -> taq = value(args, ++i, a);
                    case "--encodings" -> encodings = Arrays.asList(value(args, ++i, a).split(","));
                    case "--runs" -> runs = count(a, value(args, ++i, a), 1);
                    case "--no-cold" -> cold = false;
                    case "--csv" -> csv = value(args, ++i, a);
                    case "--work" -> work = value(args, ++i, a);
                    case "compression-study" -> {
                        // the sub-command name itself, when called through a service jar
                    }
                    default -> throw new IllegalArgumentException("unknown argument [arg=" + a + "]");
                }
            }
            for (final String e : encodings) {
                parsed.add(ColumnEncoding.parse(e));
            }
        } catch (final IllegalArgumentException e) {
            System.err.println("compression-study: " + e.getMessage() + "; see the class comment of "
                + CompressionStudyCli.class.getName());
            return 2;
        }
        final Path workDir = work == null ? Files.createTempDirectory("jtick-study") : Path.of(work);
        try {
            final PartitionTable source;
            if (root != null) {
                if (date == null) {
                    System.err.println("--root needs --date and --table");
                    return 2;
                }
                source = PartitionTable.open(Path.of(root).resolve(date).resolve(table));
            } else {
                final SymbolCatalog catalog = new SymbolCatalog();
                final RealtimeTable loaded;
                final LocalDate day;
                if (taq != null) {
                    final Path file = Path.of(taq);
                    try (TaqSource src = file.getFileName().toString().startsWith("quote") ? TaqSource.quotes(file, 0)
                        : TaqSource.trades(file, 0)) {
                        loaded = TableLoader.load(src, catalog, Long.MAX_VALUE, 1000);
                    }
                    day = loaded.rowCount() == 0 ? LocalDate.now()
                        : LocalDate.ofInstant(Instant.ofEpochSecond(0, firstTime(loaded.segment(0))), ZoneId.of("America/New_York"));
                } else if (synthetic > 0) {
                    day = LocalDate.of(2026, 11, 20);
                    loaded = TableLoader.syntheticDay(table, day, synthetic, syms, 42, catalog);
                } else {
                    System.err.println("give --root/--date/--table, --synthetic ROWS or --taq FILE");
                    return 2;
                }
                final TableSegment view = loaded.segment((int) day.toEpochDay());
                final PartitionWriter.Written w = new PartitionWriter(workDir.resolve("source"), EncodingPolicy.PLAIN).write(day,
                    List.of(view));
                source = PartitionTable.open(w.directory().resolve(view.schema().name()));
            }
            try {
                final CompressionStudy.Result r = new CompressionStudy(runs, cold).run(source, parsed, workDir.resolve("study"));
                System.out.println("compression study [table=" + r.table() + ", date=" + r.date() + ", rows=" + r.rows() + "]");
                System.out.println("method: " + r.method() + "; cold: " + (r.coldMeasured() ? r.coldMethod() : "not measured"));
                System.out.println();
                System.out.println("compressed size, % of raw");
                System.out.print(r.sizeTable());
                System.out.println();
                System.out.print(r.toCsv());
                System.out.println();
                System.out.print(r.cpuCsv());
                if (csv != null) {
                    Files.writeString(Path.of(csv), r.toCsv());
                }
            } finally {
                source.close();
            }
            return 0;
        } finally {
            if (work == null) {
                PartitionStore.deleteRecursively(workDir);
            }
        }
    }

    private static long firstTime(final TableSegment table) {
        final ColumnChunk chunk = new ColumnChunk();
        table.read(TableSchema.TIME, 0, 1, chunk);
        return chunk.longs()[chunk.offset()];
    }
}
