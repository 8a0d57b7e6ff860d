package io.jtick.core.bulk;

import io.jtick.core.feed.FileSources;
import io.jtick.core.hdb.ops.TierPolicy;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Command line of the bulk import ({@code ./jtick import}): parses the arguments, runs an
 * {@link HdbImport} on this thread with a progress line on stderr about once a second, and prints what
 * was written. Exit status: 0 done (bad lines, if any, are listed), 1 failed or cancelled, 2 bad arguments.
 */
public final class ImportCli {
    public static final String USAGE = String.join("\n",
        "usage: ./jtick import <taq|algoseek|lobster> [options]",
        "  --table T        trade (default) or quote",
        "  --file PATH      the TAQ file or the AlgoSeek/LOBSTER folder (default: the sample under --data-dir)",
        "  --data-dir DIR   where the samples are (default ../shared/data)",
        "  --root DIR       the HDB root to write into (default var/hdb)",
        "  --zone Z         a row goes under its date in this zone (default America/New_York)",
        "  --encoding E     plain, lz4, auto/zstd:3, ... (default: the tier the date's age puts it in; tiers as hdb-service's defaults)",
        "  --symbols A,B    algoseek: symbols (default all)",
        "  --dates D1,D2    algoseek: dates yyyyMMdd (default all)",
        "  --today D        the day partition ages count from (default today, UTC)",
        "  --strict         stop at the first line that does not parse (default: report it with file and line, skip it)");

    private ImportCli() {
    }

    /** The parsed command line. */
    public record Parsed(HdbImport.Request request, Path root, LocalDate today) {
    }

    /** Parses the arguments ({@code args[0]} may be the word {@code import}); throws IllegalArgumentException with the usage. */
    public static Parsed parse(final String[] args) {
        String source = null;
        String table = "trade";
        String file = null;
        Path dataDir = Path.of("..", "shared", "data");
        Path root = Path.of("var", "hdb");
        ZoneId zone = ZoneId.of("America/New_York");
        String encoding = null;
        List<String> symbols = List.of();
        List<String> dates = List.of();
        LocalDate today = LocalDate.now(ZoneId.of("UTC"));
        boolean strict = false;
        for (int i = 0; i < args.length; i++) {
            final String a = args[i];
            if (i == 0 && "import".equals(a)) {
                continue;
            }
            if ("-h".equals(a) || "--help".equals(a)) {
                throw new IllegalArgumentException(USAGE);
            }
            if ("--strict".equals(a)) {
                strict = true;
                continue;
            }
            if (!a.startsWith("--")) {
                if (source != null) {
                    throw new IllegalArgumentException("one source only [extra=" + a + "]\n" + USAGE);
                }
                source = FileSources.name(a);
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("missing value for " + a + "\n" + USAGE);
            }
            final String v = args[++i];
            try {
                switch (a) {
                    case "--source" -> source = FileSources.name(v);
                    case "--table" -> table = v.toLowerCase(Locale.ROOT);
                    case "--file" -> file = v;
                    case "--data-dir" -> dataDir = Path.of(v);
                    case "--root" -> root = Path.of(v);
                    case "--zone" -> zone = ZoneId.of(v);
                    case "--encoding" -> encoding = v;
                    case "--symbols" -> symbols = List.of(v.split(","));
                    case "--dates" -> dates = List.of(v.split(","));
                    case "--today" -> today = LocalDate.parse(v);
                    default -> throw new IllegalArgumentException("unknown option " + a + "\n" + USAGE);
                }
            } catch (final DateTimeException e) {
                throw new IllegalArgumentException("bad value for " + a + " [" + a + "=" + v + "]: " + e.getMessage(), e);
            }
        }
        if (source == null) {
            throw new IllegalArgumentException("which source?\n" + USAGE);
        }
        table = FileSources.table(table);
        final Path path = file != null ? Path.of(file) : FileSources.defaultPath(dataDir, source, table);
        return new Parsed(new HdbImport.Request(source, table, path, symbols, dates, zone, encoding, strict), root, today);
    }

    /** Runs the import the arguments describe; the report goes to {@code out}, progress and errors to {@code err}. */
    public static int run(final String[] args, final PrintStream out, final PrintStream err,
                          final AtomicReference<HdbImport.Report> result) {
        final Parsed p;
        try {
            p = parse(args);
        } catch (final IllegalArgumentException e) {
            err.println("jtick import: " + e.getMessage());
            return 2;
        }
        final HdbImport.Settings s = HdbImport.Settings.defaults(p.root());
        final HdbImport job = new HdbImport("cli", new HdbImport.Settings(p.root(), TierPolicy.defaults(), p.today(), s.blockBytes(),
            s.maxBufferedRows(), s.maxBadLinesKept(), null), p.request());
        err.println("jtick import: " + p.request().source() + " " + p.request().table() + " from " + p.request().path() + " into "
            + p.root() + " (dates in " + p.request().zone() + ")");
        final Thread progress = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    Thread.sleep(1000);
                } catch (final InterruptedException e) {
                    return;
                }
                final HdbImport.Report r = job.snapshot();
                err.printf(Locale.ROOT, "[%4.0fs] %,d rows read, %,d written, %d dates written, %d bad lines, at %s%n", r.seconds(),
                    r.rowsRead(), r.rowsWritten(), r.dates().size(), r.badLines(), r.currentDate());
            }
        }, "import-progress");
        progress.setDaemon(true);
        progress.start();
        final HdbImport.Report r;
        try {
            r = job.run();
        } finally {
            progress.interrupt();
        }
        if (result != null) {
            result.set(r);
        }
        out.print(text(r));
        return "done".equals(r.state()) ? 0 : 1;
    }

    /** The report as text: one line per date written, then the bad lines. */
    public static String text(final HdbImport.Report r) {
        final StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "import %s: %s, %s %s from %s, dates in %s: %,d rows read, %,d written in %.1f s"
            + " (%,.0f rows/s), %d bad lines%n", r.id(), r.state(), r.source(), r.table(), r.path(), r.zone(), r.rowsRead(),
            r.rowsWritten(), r.seconds(), r.rowsPerSecond(), r.badLines()));
        sb.append(String.format(Locale.ROOT, "%-10s %-6s %12s %12s %12s  %s%n", "date", "table", "rows", "raw bytes", "stored",
            "encoding"));
        for (final HdbImport.DateWritten d : r.dates()) {
            sb.append(String.format(Locale.ROOT, "%-10s %-6s %,12d %,12d %,12d  %s%n", d.date(), d.table(), d.rows(), d.rawBytes(),
                d.storedBytes(), d.encoding()));
        }
        if (r.error() != null) {
            sb.append("error: ").append(r.error()).append('\n');
        }
        if (!r.badLineSamples().isEmpty()) {
            sb.append("bad lines").append(r.badLines() > r.badLineSamples().size() ? " (first " + r.badLineSamples().size() + ")" : "")
                .append(":\n");
            for (final String b : r.badLineSamples()) {
                sb.append("  ").append(b).append('\n');
            }
        }
        return sb.toString();
    }
}
