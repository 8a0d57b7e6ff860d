package io.jtick.parquet;

import io.jtick.core.bulk.HdbImport;
import io.jtick.core.hdb.format.StoredTable;
import io.jtick.core.hdb.format.TableFormats;
import io.jtick.core.hdb.ops.TierPolicy;
import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.schema.TableSchema;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code ./jtick export parquet} and {@code ./jtick import parquet}: the same export and import as
 * {@code POST /api/export} and {@code POST /api/import} with source parquet, run in this process
 * against an HDB root on disk. Exit status: 0 done, 1 failed, 2 bad arguments.
 */
public final class ParquetCli {
    public static final String EXPORT_USAGE = String.join("\n",
        "usage: ./jtick export parquet --from D1 [--to D2] --out DIR [options]",
        "  --tables T1,T2   tables (default: every table of each date)",
        "  --root DIR       the HDB root to read (default var/hdb)",
        "  --compression C  zstd (default), snappy, lz4 or none");
    public static final String IMPORT_USAGE = String.join("\n",
        "usage: ./jtick import parquet --file PATH [options]",
        "  --file PATH      a .parquet file, or a folder of them (<table>.parquet files below it, e.g. an export)",
        "  --table T        the table (default trade); its schema is the newest partition's under --root, or the built-in one",
        "  --root DIR       the HDB root to write into (default var/hdb)",
        "  --zone Z         a row goes under its date in this zone (default America/New_York)",
        "  --today D        the day partition ages count from (default today, UTC)");

    private ParquetCli() {
    }

    private static Map<String, String> options(final String[] args, final int from, final List<String> known) {
        final Map<String, String> m = new java.util.LinkedHashMap<>();
        for (int i = from; i < args.length; i++) {
            if (!known.contains(args[i]) || i + 1 >= args.length) {
                throw new IllegalArgumentException("unknown option or missing value [arg=" + args[i] + "]");
            }
            m.put(args[i], args[++i]);
        }
        return m;
    }

    /** {@code export parquet ...}: args[0] is {@code export}, args[1] {@code parquet}. */
    public static int export(final String[] args, final PrintStream out, final PrintStream err) {
        final List<ParquetExport.FileWritten> files;
        try {
            if (args.length < 2 || !ParquetFormat.NAME.equals(args[1])) {
                throw new IllegalArgumentException("the export format is required: parquet");
            }
            final Map<String, String> o = options(args, 2, List.of("--from", "--to", "--tables", "--out", "--root", "--compression"));
            if (!o.containsKey("--from") || !o.containsKey("--out")) {
                throw new IllegalArgumentException("--from and --out are required");
            }
            final LocalDate from = LocalDate.parse(o.get("--from"));
            final LocalDate to = o.containsKey("--to") ? LocalDate.parse(o.get("--to")) : from;
            final List<String> tables = o.containsKey("--tables") ? Arrays.asList(o.get("--tables").split(",")) : List.of();
            files = ParquetExport.export(Path.of(o.getOrDefault("--root", "var/hdb")), from, to, tables, o.get("--compression"),
                Path.of(o.get("--out")));
        } catch (final IllegalArgumentException | java.time.DateTimeException e) {
            err.println("jtick export: " + e.getMessage() + "\n" + EXPORT_USAGE);
            return 2;
        } catch (final java.io.IOException e) {
            err.println("jtick export: failed: " + e.getMessage());
            return 1;
        }
        for (final ParquetExport.FileWritten f : files) {
            out.printf(Locale.ROOT, "%s %-8s %,12d rows %,14d bytes  %s%n", f.date(), f.table(), f.rows(), f.bytes(), f.path());
        }
        if (files.isEmpty()) {
            err.println("jtick export: no partition in the range");
        }
        return 0;
    }

    /** {@code import parquet ...}: args[0] is {@code import}, args[1] {@code parquet}; the report goes to {@code result}. */
    public static int importFiles(final String[] args, final PrintStream out, final PrintStream err,
                                  final AtomicReference<HdbImport.Report> result) {
        final ParquetImportJob job;
        try {
            final Map<String, String> o = options(args, 2, List.of("--file", "--table", "--root", "--zone", "--today"));
            if (!o.containsKey("--file")) {
                throw new IllegalArgumentException("--file is required");
            }
            final Path root = Path.of(o.getOrDefault("--root", "var/hdb"));
            final String table = o.getOrDefault("--table", "trade");
            final TableSchema schema = schema(root, table);
            final LocalDate today = o.containsKey("--today") ? LocalDate.parse(o.get("--today")) : LocalDate.now(ZoneId.of("UTC"));
            final HdbImport.Settings d = HdbImport.Settings.defaults(root);
            job = new ParquetImportJob("cli", Path.of(o.get("--file")), schema, ZoneId.of(o.getOrDefault("--zone", "America/New_York")),
                new HdbImport.Settings(root, TierPolicy.defaults(), today, d.blockBytes(), d.maxBufferedRows(), d.maxBadLinesKept(), null));
        } catch (final IllegalArgumentException | java.time.DateTimeException | java.io.IOException e) {
            err.println("jtick import: " + e.getMessage() + "\n" + IMPORT_USAGE);
            return 2;
        }
        final HdbImport.Report r = job.run();
        result.set(r);
        if (!"done".equals(r.state())) {
            err.println("jtick import: failed: " + r.error());
            return 1;
        }
        for (final HdbImport.DateWritten w : r.dates()) {
            out.printf(Locale.ROOT, "%s %-8s %,12d rows %,14d bytes  %s%n", w.date(), w.table(), w.rows(), w.storedBytes(), w.encoding());
        }
        return 0;
    }

    /** The newest partition's schema of {@code table} under {@code root}, else the built-in trade or quote. */
    private static TableSchema schema(final Path root, final String table) throws java.io.IOException {
        final List<Path> dirs = new ArrayList<>();
        PartitionStore.scan(root).descendingMap().values().forEach(ds -> ds.stream()
            .filter(p -> p.getFileName().toString().equals(table)).forEach(dirs::add));
        if (!dirs.isEmpty()) {
            try (StoredTable t = TableFormats.open(dirs.get(0))) {
                return t.schema();
            }
        }
        return switch (table) {
            case "trade" -> TableSchema.trade(0);
            case "quote" -> TableSchema.quote(0);
            default -> throw new IllegalArgumentException("unknown table: no partition of it under the root and not trade or quote [table="
                + table + "]");
        };
    }
}
