package io.jtick.feedsim;

import io.jtick.boot.ApiErrors;
import io.jtick.boot.ApiErrors.ErrorBody;
import io.jtick.lab.report.ResultChart;
import io.jtick.lab.report.ResultTables;
import io.jtick.lab.run.RunReport;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The profiling control plane: {@code POST /api/runs} (202 with the id; 400 bad parameters, 409
 * while a run runs), {@code GET /api/runs}, {@code GET /api/runs/{id}} (JSON, or
 * {@code ?format=csv|text|svg} / {@code Accept: text/csv|text/plain|image/svg+xml}; 404 unknown)
 * and {@code DELETE /api/runs/{id}} (stops it).
 */
@RestController
@RequestMapping("/api/runs")
@Tag(name = "profiling")
class RunController {
    /** A run id the examples name; the OpenAPI test puts the id of a run it made in its place. */
    static final String EXAMPLE_ID = "20261126-090537-rows-per-update-22d9";
    private static final String NOT_FOUND = "{\"error\":\"no such profiling run [id=20200101-000000-custom-ffff]\",\"status\":404}";
    private static final String SUMMARY_EXAMPLE = "{\"id\":\"" + EXAMPLE_ID + "\",\"experiment\":\"rows-per-update\",\"status\":"
        + "\"done\",\"createdAt\":\"2026-11-26T09:05:37.615Z\",\"endedAt\":\"2026-11-26T09:05:48.880Z\",\"entries\":1,"
        + "\"entriesDone\":1,\"durationSeconds\":1,\"reason\":null,\"href\":\"/api/runs/" + EXAMPLE_ID + "\"}";
    private static final String RUN_EXAMPLE = "{\"id\":\"" + EXAMPLE_ID + "\",\"experiment\":\"rows-per-update\",\"status\":"
        + "\"done\",\"reason\":null,\"spec\":{\"experiment\":\"rows-per-update\",\"durationSeconds\":1,\"matrix\":[{\"table\":"
        + "\"trade\",\"r\":100,\"u\":1,\"t\":10,\"ex\":0,\"mode\":\"zero-latency\",\"timerMillis\":100,\"subscribers\":1,"
        + "\"broadcast\":true,\"syms\":100}]},\"progress\":{\"rowsDone\":1,\"rowsTotal\":1,\"currentPhase\":\"idle\"},"
        + "\"rows\":[{\"index\":1,\"status\":\"done\",\"rowsSent\":10800,\"rowsPerSecond\":9988.8,\"complete\":true,"
        + "\"figures\":{\"tplog\":{\"count\":80,\"median\":55.5,\"p99\":108.6,\"p999\":108.6,\"max\":108.6}},"
        + "\"paper\":{\"tplog\":35.0,\"rdbrecv\":106.0},\"ratio\":{\"tplog\":1.585}}]}";
    private static final String TEXT_EXAMPLE = "jtick profiling run " + EXAMPLE_ID + " - rows per update (KX white paper Table 1)\n"
        + "       r       u       t  rows/s |   tplog   tppub   tpupd tpflush rdbrecv  rdbupd   tpcpu  rdbcpu |\n"
        + "     100       1      10  10,000 |    55.5    4.31    65.5    68.9     104    21.3     1.5     0.6 |\n"
        + "                           paper |    35.0    7.00       -       -     106    46.0    1.00    1.00 |\n";
    static final MediaType CSV = new MediaType("text", "csv", StandardCharsets.UTF_8);
    static final MediaType TEXT = new MediaType("text", "plain", StandardCharsets.UTF_8);
    static final MediaType SVG = MediaType.parseMediaType("image/svg+xml");

    private final RunService runs;

    RunController(final RunService runs) {
        this.runs = runs;
    }

    @Operation(summary = "Start a profiling run: an experiment and its parameter matrix",
        description = "experiment: rows-per-update, row-size, publish-frequency, subscribers (the white paper's Tables 1-5), "
            + "broadcast (AquaQ) or custom; matrix: entries of r, u, t, ex, mode, timer, subscribers, broadcast, syms, table "
            + "(absent: the experiment's own matrix); durationSeconds per entry. One run at a time (docs/profiling.md).")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(content = @Content(mediaType = "application/json",
        schema = @Schema(type = "object"), examples = @ExampleObject(name = "rows-per-update-one-entry",
            value = "{\"experiment\":\"rows-per-update\",\"durationSeconds\":1,\"matrix\":[{\"r\":100,\"u\":1,\"t\":10}]}")))
    @ApiResponse(responseCode = "202", description = "started; follow href (also in Location)",
        headers = @Header(name = "Location", description = "the run", schema = @Schema(type = "string")),
        content = @Content(schema = @Schema(type = "object"), examples = @ExampleObject(value = "{\"id\":\"" + EXAMPLE_ID
            + "\",\"status\":\"running\",\"entries\":1,\"href\":\"/api/runs/" + EXAMPLE_ID + "\"}")))
    @ApiResponse(responseCode = "400", description = "unknown experiment, bad matrix entry, malformed body", content = @Content(
        schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(
            value = "{\"error\":\"matrix entry 1: r must be 1..1000000 [r=0]\",\"status\":400}")))
    @ApiResponse(responseCode = "409", description = "another run is running", content = @Content(
        schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(value = "{\"error\":\"a profiling run is "
            + "already running; wait for it or DELETE /api/runs/" + EXAMPLE_ID + " [id=" + EXAMPLE_ID + "]\",\"status\":409}")))
    @PostMapping
    ResponseEntity<Map<String, Object>> start(@RequestBody(required = false) final Map<String, Object> body) {
        final Map<String, Object> answer = runs.start(body);
        return ResponseEntity.accepted().location(URI.create("/api/runs/" + answer.get("id"))).body(answer);
    }

    @Operation(summary = "Every run kept (./var/runs), newest first, without their tables")
    @ApiResponse(responseCode = "200", description = "one summary per run", content = @Content(
        array = @ArraySchema(schema = @Schema(type = "object")), examples = @ExampleObject(value = "[" + SUMMARY_EXAMPLE + "]")))
    @GetMapping
    List<Map<String, Object>> list() {
        return runs.list();
    }

    @Operation(summary = "A run: progress while it runs, then its result table beside the paper's figures",
        description = "JSON (default), or the same table as CSV, as text shaped like the paper's tables, or as an SVG chart.")
    @ApiResponse(responseCode = "200", description = "the run", content = {
        @Content(mediaType = "application/json", schema = @Schema(type = "object"), examples = @ExampleObject(value = RUN_EXAMPLE)),
        @Content(mediaType = "text/csv", schema = @Schema(type = "string")),
        @Content(mediaType = "text/plain", schema = @Schema(type = "string"), examples = @ExampleObject(value = TEXT_EXAMPLE)),
        @Content(mediaType = "image/svg+xml", schema = @Schema(type = "string"))})
    @ApiResponse(responseCode = "400", description = "unknown format", content = @Content(schema = @Schema(implementation =
        ErrorBody.class), examples = @ExampleObject(value = "{\"error\":\"unknown format [format=xml, known=json|csv|text|svg]\","
        + "\"status\":400}")))
    @ApiResponse(responseCode = "404", description = "no such run", content = @Content(schema = @Schema(implementation =
        ErrorBody.class), examples = @ExampleObject(value = NOT_FOUND)))
    @GetMapping("/{id}")
    ResponseEntity<?> get(@Parameter(description = "the run's id", example = EXAMPLE_ID) @PathVariable final String id,
                          @Parameter(description = "json, csv, text or svg (wins over Accept)", example = "text",
                              schema = @Schema(allowableValues = {"json", "csv", "text", "svg"}))
                          @RequestParam(required = false) final String format,
                          @Parameter(description = "text/csv, text/plain or image/svg+xml instead of JSON", example = "application/json")
                          @RequestHeader(value = HttpHeaders.ACCEPT, required = false) final String accept) {
        final String f = format(format, accept);
        final RunReport run = runs.get(id);
        switch (f) {
            case "csv":
                return ResponseEntity.ok().contentType(CSV).body(ResultTables.csv(run));
            case "text":
                return ResponseEntity.ok().contentType(TEXT).body(ResultTables.text(run));
            case "svg":
                return ResponseEntity.ok().contentType(SVG).body(ResultChart.svg(run));
            case "json":
            default:
                return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(run);
        }
    }

    @Operation(summary = "Stop a run: the entries measured so far are kept")
    @ApiResponse(responseCode = "200", description = "the run as it stopped (status stopped, or done if it had ended)", content =
        @Content(schema = @Schema(type = "object"), examples = @ExampleObject(value = RUN_EXAMPLE)))
    @ApiResponse(responseCode = "404", description = "no such run", content = @Content(schema = @Schema(implementation =
        ErrorBody.class), examples = @ExampleObject(value = NOT_FOUND)))
    @DeleteMapping("/{id}")
    RunReport stop(@Parameter(description = "the run's id", example = EXAMPLE_ID) @PathVariable final String id) {
        return runs.stop(id);
    }

    /** {@code format} wins; else the first of text/csv, image/svg+xml, text/plain named in Accept; else JSON. */
    static String format(final String format, final String accept) {
        if (format != null) {
            final String f = format.trim().toLowerCase(Locale.ROOT);
            if (!List.of("json", "csv", "text", "svg").contains(f)) {
                throw ApiErrors.badRequest("unknown format [format=" + format + ", known=json|csv|text|svg]");
            }
            return f;
        }
        if (accept != null) {
            for (final MediaType m : MediaType.parseMediaTypes(accept)) {
                if (m.isWildcardType()) {
                    continue;
                }
                if (m.isCompatibleWith(MediaType.APPLICATION_JSON)) {
                    return "json";
                }
                if ("text".equals(m.getType()) && "csv".equals(m.getSubtype())) {
                    return "csv";
                }
                if ("image".equals(m.getType()) && m.getSubtype().startsWith("svg")) {
                    return "svg";
                }
                if ("text".equals(m.getType()) && "plain".equals(m.getSubtype())) {
                    return "text";
                }
            }
        }
        return "json";
    }
}
