package io.jtick.parquet;

import io.jtick.core.bulk.HdbImport;
import io.jtick.core.schema.TableSchema;

import java.nio.file.Path;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One Parquet import as the HDB's import list shows it ({@code POST /api/import} with source
 * {@code parquet}, {@code ./jtick import parquet}): runs {@link ParquetImport} and reports in the
 * same form as the recorded-file imports (a schema misfit is its error, naming every column).
 */
public final class ParquetImportJob {
    /** The import source's name. */
    public static final String SOURCE = "parquet";

    private final String id;
    private final Path path;
    private final TableSchema schema;
    private final ZoneId zone;
    private final HdbImport.Settings settings;
    private final long startNanos = System.nanoTime();
    private final List<HdbImport.DateWritten> dates = new CopyOnWriteArrayList<>();
    private volatile String state = "running";
    private volatile String error;
    private volatile long endNanos;

    public ParquetImportJob(final String id, final Path path, final TableSchema schema, final ZoneId zone,
                            final HdbImport.Settings settings) {
        this.id = id;
        this.path = path;
        this.schema = schema;
        this.zone = zone;
        this.settings = settings;
    }

    public String id() {
        return id;
    }

    /** Runs on this thread; never throws (a failure is the report's state and error). */
    public HdbImport.Report run() {
        try {
            dates.addAll(ParquetImport.load(ParquetImport.files(path, schema.name()), schema, zone, settings));
            state = "done";
        } catch (final Exception e) {
            error = e.getMessage();
            state = "failed";
        } finally {
            endNanos = System.nanoTime();
        }
        return snapshot();
    }

    public HdbImport.Report snapshot() {
        final double seconds = ((endNanos != 0 ? endNanos : System.nanoTime()) - startNanos) / 1e9;
        final long rows = dates.stream().mapToLong(HdbImport.DateWritten::rows).sum();
        return new HdbImport.Report(id, state, SOURCE, schema.name(), String.valueOf(path), zone.getId(), rows, rows, 0, List.of(),
            List.copyOf(dates), dates.isEmpty() ? null : dates.get(dates.size() - 1).date(), seconds, seconds > 0 ? rows / seconds : 0,
            error);
    }
}
