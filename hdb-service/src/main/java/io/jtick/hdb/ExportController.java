package io.jtick.hdb;

import io.jtick.boot.ApiErrors;
import io.jtick.boot.ApiErrors.ErrorBody;
import io.jtick.parquet.ParquetExport;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;

/**
 * {@code POST /api/export}: HDB days as Parquet files for other tools (DuckDB, pyarrow, polars, Spark,
 * Trino), {@code <tick.hdb.export.dir>/<dir>/date=YYYY-MM-DD/<table>.parquet}.
 */
@RestController
@RequestMapping("/api")
@Tag(name = "hdb")
class ExportController {
    private static final String BODY_EXAMPLE = "{\"format\":\"parquet\",\"from\":\"2026-11-20\",\"to\":\"2026-11-20\","
        + "\"tables\":[\"trade\"],\"dir\":\"lake\",\"compression\":\"zstd\"}";
    private static final String EXAMPLE = "{\"dir\":\"/srv/jtick/var/export/lake\",\"files\":[{\"date\":\"2026-11-20\",\"table\":\"trade\","
        + "\"path\":\"/srv/jtick/var/export/lake/date=2026-11-20/trade.parquet\",\"rows\":30290,\"bytes\":402113}]}";

    private final HdbLifecycle store;
    private final HdbProperties properties;

    ExportController(final HdbLifecycle store, final HdbProperties properties) {
        this.store = store;
        this.properties = properties;
    }

    /**
     * What to export.
     *
     * @param format      parquet (the default and only one)
     * @param from        first date (required)
     * @param to          last date (default: from)
     * @param tables      tables (default: every table of each date)
     * @param dir         folder under {@code tick.hdb.export.dir} (default: the folder itself)
     * @param compression zstd (default), snappy, lz4 or none
     */
    record Body(String format, LocalDate from, LocalDate to, List<String> tables, String dir, String compression) {
    }

    /** What was written. */
    record Exported(String dir, List<ParquetExport.FileWritten> files) {
    }

    @Operation(summary = "Export days as Parquet files (Hive-style date= folders, one file per table and date) for other tools",
        description = "Files are sorted by sym then time with row groups by sym range and statistics; timestamps are "
            + "TIMESTAMP(NANOS, UTC). Written under tick.hdb.export.dir, each file renamed into place when complete.")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(content = @Content(
        schema = @Schema(implementation = Body.class), examples = @ExampleObject(value = BODY_EXAMPLE)))
    @ApiResponse(responseCode = "200", description = "the files written", content = @Content(
        schema = @Schema(implementation = Exported.class), examples = @ExampleObject(value = EXAMPLE)))
    @ApiResponse(responseCode = "400", description = "no date, a bad range, an unknown format or compression, a folder outside "
        + "the export folder", content = @Content(schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(
            value = "{\"error\":\"unknown Parquet compression [compression=gzip, known=zstd,snappy,lz4,none]\",\"status\":400}")))
    @PostMapping("/export")
    Exported export(@RequestBody final Body b) throws IOException {
        if (b == null || b.from() == null) {
            throw bad("from is required (yyyy-MM-dd)");
        }
        if (b.format() != null && !b.format().isBlank() && !"parquet".equalsIgnoreCase(b.format().trim())) {
            throw bad("unknown export format, expected parquet [format=" + b.format() + "]");
        }
        final Path base = properties.export().path().toAbsolutePath().normalize();
        final Path out = (b.dir() == null || b.dir().isBlank() ? base : base.resolve(b.dir())).normalize();
        if (!out.startsWith(base)) {
            throw bad("dir outside the export folder [dir=" + b.dir() + ", key=tick.hdb.export.dir, folder=" + base + "]");
        }
        try {
            return new Exported(out.toString(), ParquetExport.export(store.hdb(), b.from(), b.to() == null ? b.from() : b.to(), b.tables(),
                b.compression(), out));
        } catch (final IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
    }

    private static ApiErrors.ApiException bad(final String message) {
        return new ApiErrors.ApiException(HttpStatus.BAD_REQUEST, message);
    }
}
