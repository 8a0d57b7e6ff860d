package io.jtick.hdb;

import io.jtick.boot.ApiErrors;
import io.jtick.core.bulk.HdbImport;
import io.jtick.core.feed.FileSources;
import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.TableSchema;
import io.jtick.parquet.ParquetImportJob;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.http.HttpStatus;

import java.io.IOException;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Runs bulk imports ({@code POST /api/import}) one at a time on a thread of its own: checks the
 * request (the file must be under {@code tick.hdb.import.data-dir}), runs an {@link HdbImport} that
 * writes each date under the store lock, then reloads the HDB. Keeps the last 20 reports for
 * {@code GET /api/import}.
 */
final class ImportRunner implements DisposableBean {
    private static final Logger LOG = LoggerFactory.getLogger(ImportRunner.class);
    private static final int KEPT = 20;

    private final HdbProperties properties;
    private final HdbLifecycle store;
    private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
        final Thread t = new Thread(r, "jtick-import");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, Job> imports = new LinkedHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final AtomicLong rows;
    private final AtomicLong badLines;
    private final AtomicLong done;
    private final AtomicLong failed;

    ImportRunner(final HdbProperties properties, final HdbLifecycle store, final TickMetrics metrics) {
        this.properties = properties;
        this.store = store;
        this.rows = metrics.counter("tick.hdb.import.rows");
        this.badLines = metrics.counter("tick.hdb.import.bad.lines");
        this.done = metrics.counter("tick.hdb.import.runs|state=done");
        this.failed = metrics.counter("tick.hdb.import.runs|state=failed");
    }

    /**
     * What to import ({@code POST /api/import}); absent fields take the defaults.
     *
     * @param source   taq, algoseek, lobster or parquet (required)
     * @param table    trade (default) or quote
     * @param file     the TAQ file, the AlgoSeek/LOBSTER folder, or a Parquet file or folder ({@code <table>.parquet} files below
     *                 it, e.g. an export's {@code date=} folders), relative to {@code tick.hdb.import.data-dir}; default: the sample
     * @param symbols  algoseek: symbols (default all)
     * @param dates    algoseek: dates yyyyMMdd (default all)
     * @param zone     rows go under their date in this zone (default {@code tick.hdb.import.zone})
     * @param encoding plain, lz4, auto/zstd:3...; default: the tier the date's age puts it in
     * @param strict   stop at the first bad line (default false: report it with file and line, skip it)
     */
    record Body(String source, String table, String file, List<String> symbols, List<String> dates, String zone, String encoding,
                Boolean strict) {
    }

    /** One import of either kind: its id, its report as it stands, running it, stopping it. */
    private record Job(String id, Supplier<HdbImport.Report> snapshot, Runnable run, Runnable cancel) {
    }

    /** Checks and queues an import; answers its report at once (state running). */
    synchronized HdbImport.Report start(final Body b) {
        if (b == null || b.source() == null) {
            throw bad("source is required: taq, algoseek, lobster or parquet");
        }
        if (ParquetImportJob.SOURCE.equalsIgnoreCase(b.source().trim())) {
            return startParquet(b);
        }
        final String source;
        try {
            source = FileSources.name(b.source());
        } catch (final IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
        final String table;
        try {
            table = FileSources.table(b.table() == null ? "trade" : b.table());
        } catch (final IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
        final Path dataDir = properties.imports().dataPath().toAbsolutePath().normalize();
        final Path path = (b.file() == null || b.file().isBlank() ? FileSources.defaultPath(dataDir, source, table)
            : dataDir.resolve(b.file())).toAbsolutePath().normalize();
        if (!path.startsWith(dataDir)) {
            throw bad("file outside the import folder [file=" + b.file() + ", key=tick.hdb.import.data-dir, dir=" + dataDir + "]");
        }
        final ZoneId zone;
        try {
            zone = b.zone() == null || b.zone().isBlank() ? properties.imports().zone() : ZoneId.of(b.zone());
        } catch (final DateTimeException e) {
            throw bad("unknown zone [zone=" + b.zone() + "]");
        }
        if (b.encoding() != null && !b.encoding().isBlank()) {
            try {
                ColumnEncoding.parse(b.encoding().trim());
            } catch (final IllegalArgumentException e) {
                throw bad("bad encoding [encoding=" + b.encoding() + "]: " + e.getMessage());
            }
        }
        checkNoneRunning();
        final String id = "import-" + ids.incrementAndGet();
        final HdbImport job = new HdbImport(id, settings(),
            new HdbImport.Request(source, table, path, b.symbols(), b.dates(), zone, b.encoding(), b.strict() != null && b.strict()));
        return queue(new Job(id, job::snapshot, () -> finished(job.run()), job::cancel));
    }

    /** A Parquet file or folder of another tool's days: the table's schema is the HDB's (or the built-in trade/quote). */
    private HdbImport.Report startParquet(final Body b) {
        final String table = b.table() == null || b.table().isBlank() ? "trade" : b.table().trim();
        TableSchema schema = store.hdb().schemaOf(table);
        if (schema == null && ("trade".equals(table) || "quote".equals(table))) {
            schema = "trade".equals(table) ? TableSchema.trade(0) : TableSchema.quote(0);
        }
        if (schema == null) {
            throw bad("unknown table: the HDB holds no partition of it and it is not trade or quote [table=" + table + "]");
        }
        if (b.file() == null || b.file().isBlank()) {
            throw bad("file is required for source parquet: a .parquet file or a folder of them under tick.hdb.import.data-dir");
        }
        final Path dataDir = properties.imports().dataPath().toAbsolutePath().normalize();
        final Path path = dataDir.resolve(b.file()).toAbsolutePath().normalize();
        if (!path.startsWith(dataDir)) {
            throw bad("file outside the import folder [file=" + b.file() + ", key=tick.hdb.import.data-dir, dir=" + dataDir + "]");
        }
        final ZoneId zone;
        try {
            zone = b.zone() == null || b.zone().isBlank() ? properties.imports().zone() : ZoneId.of(b.zone());
        } catch (final DateTimeException e) {
            throw bad("unknown zone [zone=" + b.zone() + "]");
        }
        checkNoneRunning();
        final String id = "import-" + ids.incrementAndGet();
        final ParquetImportJob job = new ParquetImportJob(id, path, schema, zone, settings());
        return queue(new Job(id, job::snapshot, () -> finished(job.run()), () -> { }));
    }

    private HdbImport.Settings settings() {
        return new HdbImport.Settings(properties.root(), store.policy(), store.today(), properties.blockBytesInt(),
            properties.imports().maxBufferedRows(), 100, store.storeLock());
    }

    private void checkNoneRunning() {
        for (final Job running : imports.values()) {
            if ("running".equals(running.snapshot().get().state())) {
                throw new ApiErrors.ApiException(HttpStatus.CONFLICT, "an import is running [id=" + running.id() + "]: one at a time");
            }
        }
    }

    private HdbImport.Report queue(final Job job) {
        imports.put(job.id(), job);
        while (imports.size() > KEPT) {
            imports.remove(imports.keySet().iterator().next());
        }
        executor.execute(job.run());
        return job.snapshot().get();
    }

    private void finished(final HdbImport.Report r) {
        rows.addAndGet(r.rowsWritten());
        badLines.addAndGet(r.badLines());
        ("done".equals(r.state()) ? done : failed).incrementAndGet();
        LOG.info("import ended [id={}, state={}, rows={}, dates={}, badLines={}, error={}]", r.id(), r.state(), r.rowsWritten(),
            r.dates().size(), r.badLines(), r.error());
        if (!r.dates().isEmpty()) {
            try {
                store.reload();
            } catch (final IOException | RuntimeException e) {
                LOG.error("reload after import failed [id={}]", r.id(), e);
            }
        }
    }

    synchronized List<HdbImport.Report> list() {
        final List<HdbImport.Report> out = new ArrayList<>();
        for (final Job j : imports.values()) {
            out.add(0, j.snapshot().get());
        }
        return out;
    }

    synchronized HdbImport.Report get(final String id) {
        final Job j = imports.get(id);
        if (j == null) {
            throw new ApiErrors.ApiException(HttpStatus.NOT_FOUND, "no such import [id=" + id + "]");
        }
        return j.snapshot().get();
    }

    private static ApiErrors.ApiException bad(final String message) {
        return new ApiErrors.ApiException(HttpStatus.BAD_REQUEST, message);
    }

    @Override
    public void destroy() throws InterruptedException {
        synchronized (this) {
            imports.values().forEach(j -> j.cancel().run());
        }
        executor.shutdown();
        executor.awaitTermination(30, TimeUnit.SECONDS);
    }
}
