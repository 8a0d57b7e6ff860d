package io.jtick.hdb;

import io.jtick.boot.ApiErrors;
import io.jtick.boot.ApiErrors.ErrorBody;
import io.jtick.core.bulk.HdbImport;
import io.jtick.core.replay.ReplayServer;
import io.jtick.core.replay.ReplayStatus;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.util.List;

/**
 * Historical replays and bulk imports: {@code GET /api/replays}, {@code DELETE /api/replays/{id}},
 * {@code POST /api/import}, {@code GET /api/import}, {@code GET /api/import/{id}}. The replays
 * themselves run on the replay port ({@code tick.hdb.replay-port}, docs/wire-format.md "Replay").
 */
@RestController
@RequestMapping("/api")
@Tag(name = "hdb")
class ReplayController {
    private static final String REPLAY = "{\"id\":3,\"consumer\":\"strategy-test\",\"remote\":\"/127.0.0.1:51234\",\"tables\":"
        + "[\"trade\",\"quote\"],\"from\":\"2026-11-20\",\"to\":\"2026-11-20\",\"syms\":0,\"pace\":\"recorded\",\"speed\":10.0,"
        + "\"state\":\"running\",\"message\":\"\",\"rowsSent\":1250000,\"totalRows\":5000000,\"progress\":25.0,"
        + "\"rowsPerSecond\":41667,\"bytesSent\":47500000,\"framesSent\":9120,\"elapsedMillis\":30000,\"stream\":3,"
        + "\"shared\":true,\"heldBytes\":25165824,\"scratchBytes\":0,\"startedAt\":\"2026-11-26T09:00:00Z\"}";
    private static final String REPLAYS_EXAMPLE = "{\"port\":5012,\"running\":1,\"streams\":1,\"replays\":[" + REPLAY + "]}";
    private static final String IMPORT_BODY_EXAMPLE = "{\"source\":\"taq\",\"table\":\"trade\",\"file\":"
        + "\"highfrequency-taq-sample-2018-01/trades.csv.gz\"}";
    private static final String IMPORT_EXAMPLE = "{\"id\":\"import-1\",\"state\":\"done\",\"source\":\"taq\",\"table\":\"trade\","
        + "\"path\":\"/srv/jtick/shared/data/highfrequency-taq-sample-2018-01/trades.csv.gz\",\"zone\":\"America/New_York\","
        + "\"rowsRead\":77263,\"rowsWritten\":77263,\"badLines\":0,\"badLineSamples\":[],\"dates\":[{\"date\":\"2018-01-02\","
        + "\"table\":\"trade\",\"rows\":39470,\"rawBytes\":1144630,\"storedBytes\":298731,\"encoding\":"
        + "\"tier cold (auto/zstd:3)\"}],\"currentDate\":\"2018-01-03\",\"seconds\":0.9,\"rowsPerSecond\":85848,\"error\":null}";
    private static final String NOT_FOUND = "{\"error\":\"no running replay [id=12]\",\"status\":404}";
    private static final String OFF = "{\"error\":\"replay is off [key=tick.hdb.replay.enabled]\",\"status\":503}";

    private final ReplayLifecycle replay;
    private final ImportRunner imports;

    ReplayController(final ReplayLifecycle replay, final ImportRunner imports) {
        this.replay = replay;
        this.imports = imports;
    }

    /** What {@code GET /api/replays} answers: the port, then running replays (oldest first) and the last 20 that ended. */
    record ReplaysView(int port, int running, int streams, List<ReplayStatus> replays) {
    }

    private ReplayServer server() {
        final ReplayServer s = replay.server();
        if (s == null) {
            throw new ApiErrors.ApiException(HttpStatus.SERVICE_UNAVAILABLE, "replay is off [key=tick.hdb.replay.enabled]");
        }
        return s;
    }

    /** Replays: consumer, tables, dates, rows sent of all, progress %, rows/s, shared or on its own. */
    @Operation(summary = "Historical replays on the replay port: running ones with their progress, then the last 20 that ended")
    @ApiResponse(responseCode = "200", description = "the replay port and the replays", content = @Content(
        schema = @Schema(implementation = ReplaysView.class), examples = @ExampleObject(value = REPLAYS_EXAMPLE)))
    @ApiResponse(responseCode = "503", description = "replay is off", content = @Content(
        schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(value = OFF)))
    @GetMapping("/replays")
    ReplaysView replays() {
        final ReplayServer s = server();
        return new ReplaysView(s.port(), s.activeCount(), s.streamCount(), s.replays());
    }

    /** Stops a running replay: its consumer gets REPLAY_DONE cancelled with what was sent; 404 when none runs with that id. */
    @Operation(summary = "Stop a running replay: its consumer gets REPLAY_DONE cancelled with the counts so far")
    @ApiResponse(responseCode = "202", description = "the replay as it stood when asked to stop", content = @Content(
        schema = @Schema(implementation = ReplayStatus.class), examples = @ExampleObject(value = REPLAY)))
    @ApiResponse(responseCode = "404", description = "no running replay has that id", content = @Content(
        schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(value = NOT_FOUND)))
    @ApiResponse(responseCode = "503", description = "replay is off", content = @Content(
        schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(value = OFF)))
    @DeleteMapping("/replays/{replayId}")
    ResponseEntity<ReplayStatus> cancel(@Parameter(description = "the replay's id (GET /api/replays)", example = "3")
                                        @PathVariable("replayId") final long id) {
        final ReplayServer s = server();
        if (!s.cancel(id, "cancelled by DELETE /api/replays/" + id)) {
            throw new ApiErrors.ApiException(HttpStatus.NOT_FOUND, "no running replay [id=" + id + "]");
        }
        final ReplayStatus st = s.replays().stream().filter(r -> r.id() == id).findFirst().orElse(null);
        return ResponseEntity.accepted().body(st);
    }

    /**
     * Starts a bulk import of recorded files into partitions by each row's own date; 202 with the
     * import's report (state running), which {@code GET /api/import/{id}} follows.
     */
    @Operation(summary = "Import recorded files (TAQ, AlgoSeek, LOBSTER) into partitions by each row's own date",
        description = "Runs in the background, one import at a time; follow it with GET /api/import/{importId}. The file is "
            + "relative to tick.hdb.import.data-dir; a line that does not parse is reported with file and line and skipped "
            + "unless strict.")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(content = @Content(
        schema = @Schema(implementation = ImportRunner.Body.class), examples = @ExampleObject(value = IMPORT_BODY_EXAMPLE)))
    @ApiResponse(responseCode = "202", description = "the import, started", content = @Content(
        schema = @Schema(implementation = HdbImport.Report.class), examples = @ExampleObject(value = IMPORT_EXAMPLE)))
    @ApiResponse(responseCode = "400", description = "a bad source, table, zone or encoding, or a file outside the import folder",
        content = @Content(schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(
            value = "{\"error\":\"unknown file source, expected taq, algoseek or lobster [source=csv]\",\"status\":400}")))
    @ApiResponse(responseCode = "409", description = "an import is running", content = @Content(
        schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(
            value = "{\"error\":\"an import is running [id=import-1]: one at a time\",\"status\":409}")))
    @PostMapping("/import")
    ResponseEntity<HdbImport.Report> startImport(@RequestBody final ImportRunner.Body body) {
        return ResponseEntity.status(HttpStatus.ACCEPTED).body(imports.start(body));
    }

    /** Imports, newest first. */
    @Operation(summary = "Imports, newest first (the last 20)")
    @ApiResponse(responseCode = "200", description = "imports", content = @Content(
        array = @ArraySchema(schema = @Schema(implementation = HdbImport.Report.class)),
        examples = @ExampleObject(value = "[" + IMPORT_EXAMPLE + "]")))
    @GetMapping("/import")
    List<HdbImport.Report> listImports() {
        return imports.list();
    }

    /** One import: rows read and written, dates written, bad lines with file and line. */
    @Operation(summary = "One import: rows read and written, dates written, bad lines with file and line")
    @ApiResponse(responseCode = "200", description = "the import", content = @Content(
        schema = @Schema(implementation = HdbImport.Report.class), examples = @ExampleObject(value = IMPORT_EXAMPLE)))
    @ApiResponse(responseCode = "404", description = "no import has that id", content = @Content(
        schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(
            value = "{\"error\":\"no such import [id=import-9]\",\"status\":404}")))
    @GetMapping("/import/{importId}")
    HdbImport.Report getImport(@Parameter(description = "the import's id (POST /api/import answers it)", example = "import-1")
                               @PathVariable("importId") final String id) {
        return imports.get(id);
    }
}
