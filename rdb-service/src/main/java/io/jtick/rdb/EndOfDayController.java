package io.jtick.rdb;

import io.jtick.boot.ApiErrors.ApiException;
import io.jtick.boot.ApiErrors;
import io.jtick.boot.ApiErrors.ErrorBody;
import io.jtick.boot.QueryArgs;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.rdb.HdbWriteDown;
import io.jtick.core.rdb.RealtimeDatabase;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.TableSegment;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.nio.file.Path;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code POST /api/eod/replay?date=yyyy-MM-dd}: rebuilds a day's partition from the tickerplant
 * journal ({@code -11!} then {@code .Q.hdpf}) for a day whose end of day failed or that the RDB
 * missed, and tells the HDB as end of day does. Every row the journal holds for the day is written
 * (the RDB's table and sym filters do not apply); the RDB's memory is not touched.
 */
@RestController
@RequestMapping("/api/eod")
@Tag(name = "rdb")
class EndOfDayController {
    private static final Logger LOG = LoggerFactory.getLogger(EndOfDayController.class);

    private final ObjectProvider<HdbWriteDown> writeDown;
    private final RdbProperties properties;
    private final RealtimeDatabase rdb;
    private final Object replayLock = new Object();

    EndOfDayController(final ObjectProvider<HdbWriteDown> writeDown, final RdbProperties properties, final RealtimeDatabase rdb) {
        this.writeDown = writeDown;
        this.properties = properties;
        this.rdb = rdb;
    }

    @Operation(summary = "Rebuild a day's partition from the tickerplant journal (-11! then .Q.hdpf)",
        description = "For a day whose end of day failed or that this RDB missed: every row the journal holds for the day is "
            + "written under tick.rdb.hdb.root and the HDB is told, as at end of day. The RDB's memory is not touched.")
    @ApiResponse(responseCode = "200", description = "the partition written", content = @Content(
        schema = @Schema(implementation = RdbController.WrittenView.class), examples = @ExampleObject(value = "{\"date\":\"2026-11-24\","
            + "\"directory\":\"./var/hdb/2026-11-24\",\"rows\":1203450,\"rawBytes\":48138000,\"storedBytes\":48139220,"
            + "\"millis\":812,\"tables\":[{\"table\":\"trade\",\"rows\":1203450}]}")))
    @ApiResponse(responseCode = "400", description = "no or bad date, write-down or journal not configured", content = @Content(
        schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(value = "{\"error\":\"end-of-day write-down is "
            + "not configured [key=tick.rdb.hdb.root]\",\"status\":400}")))
    @ApiResponse(responseCode = "500", description = "the journal could not be read or the partition written",
        content = @Content(schema = @Schema(implementation = ErrorBody.class)))
    @PostMapping("/replay")
    RdbController.WrittenView replay(@Parameter(description = "the day, yyyy-MM-dd (one the journal under tick.rdb.journal-root holds)",
        required = true, example = "2026-11-24") @RequestParam(name = "date", required = false) final String date) {
        final HdbWriteDown w = writeDown.getIfAvailable();
        if (w == null) {
            throw ApiErrors.badRequest("end-of-day write-down is not configured [key=tick.rdb.hdb.root]");
        }
        final Path journalRoot = properties.journalRootPath();
        if (journalRoot == null) {
            throw ApiErrors.badRequest("the tickerplant journal is not configured [key=tick.rdb.journal-root]");
        }
        final LocalDate day = QueryArgs.date("date", date);
        if (day == null) {
            throw ApiErrors.badRequest("date is required [date=yyyy-MM-dd]");
        }
        synchronized (replayLock) {
            try {
                final PartitionWriter.Written written = w.replay(journalRoot, day, schemas());
                LOG.info("replayed end of day from the journal [date={}, journal={}, dir={}]", day, journalRoot, written.directory());
                return RdbController.WrittenView.of(written);
            } catch (final IllegalArgumentException e) {
                throw e;
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ApiException(HttpStatus.SERVICE_UNAVAILABLE, "replay interrupted [date=" + day + "]");
            } catch (final Exception e) {
                LOG.error("end-of-day replay failed [date={}, journal={}]", day, journalRoot, e);
                throw new ApiException(HttpStatus.INTERNAL_SERVER_ERROR, "replay failed [date=" + day + ", journal=" + journalRoot + "]: "
                    + e.getMessage());
            }
        }
    }

    /** The schemas the TP sent this RDB, completed with the built-in tables for any it did not send. */
    private SchemaRegistry schemas() {
        final Map<String, TableSchema> byName = new LinkedHashMap<>();
        for (final TableSegment t : rdb.tables()) {
            byName.put(t.schema().name(), t.schema());
        }
        for (final TableSchema s : SchemaRegistry.builtIn(0).tables()) {
            byName.putIfAbsent(s.name(), s);
        }
        return new SchemaRegistry(byName.values());
    }
}
