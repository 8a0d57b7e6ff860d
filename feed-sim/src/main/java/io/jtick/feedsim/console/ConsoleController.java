package io.jtick.feedsim.console;

import io.jtick.boot.ApiErrors.ErrorBody;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The web console's same-origin pass-through (the page at {@code /} is served from this jar; the browser reaches the
 * other services only through here, so they need no CORS): {@code GET /api/console} (what is forwarded where),
 * {@code GET /api/console/{service}/{resource}} (a documented read endpoint of tp, rdb or hdb) and
 * {@code POST /api/console/{target}/query} (a query document to the RDB, the HDB or the HDB's gateway) and
 * {@code POST /api/console/hdb/compression-study} (the HDB's compression study of one day). The caller's
 * API token goes along; the answer, errors included, comes back as the service gave it.
 */
@RestController
@RequestMapping("/api/console")
@Tag(name = "console")
class ConsoleController {
    private static final String NOT_FORWARDED = "{\"error\":\"the console does not forward this [service=tp, resource=eod, "
        + "forwarded=cluster|health|status]\",\"status\":404}";
    private static final String UNREACHABLE = "{\"error\":\"rdb did not answer [url=http://127.0.0.1:8011/api/status, "
        + "cause=ConnectException]\",\"status\":502}";

    private final ConsoleProperties properties;
    private final ConsoleForwarder forwarder;

    ConsoleController(final ConsoleProperties properties, final ConsoleForwarder forwarder) {
        this.properties = properties;
        this.forwarder = forwarder;
    }

    @Operation(summary = "What the console forwards: each service's URL as feed-sim reaches it, its read resources, the query targets")
    @ApiResponse(responseCode = "200", description = "services, resources and query targets", content = @Content(schema =
        @Schema(type = "object"), examples = @ExampleObject(value = "{\"services\":{\"hdb\":{\"url\":\"http://127.0.0.1:8012\","
        + "\"resources\":{\"health\":\"/actuator/health\",\"import\":\"/api/import\",\"partitions\":\"/api/partitions\",\"replays\":"
        + "\"/api/replays\",\"status\":\"/api/status\"}}},\"queryTargets\":{\"gateway\":\"hdb /api/gateway/query\",\"hdb\":"
        + "\"hdb /api/query\",\"rdb\":\"rdb /api/query\"},\"sqlTargets\":{\"gateway\":\"hdb /api/gateway/sql\",\"hdb\":"
        + "\"hdb /api/sql\",\"rdb\":\"rdb /api/sql\"},\"studies\":{\"compression-study\":\"hdb /api/compression-study\"}}")))
    @GetMapping
    Map<String, Object> services() {
        final Map<String, Object> services = new TreeMap<>();
        ConsoleForwarder.READS.forEach((service, resources) -> {
            final Map<String, Object> s = new LinkedHashMap<>();
            s.put("url", properties.baseUrl(service));
            s.put("resources", new TreeMap<>(resources));
            services.put(service, s);
        });
        final Map<String, String> targets = new TreeMap<>();
        ConsoleForwarder.QUERIES.forEach((target, to) -> targets.put(target, to.get(0) + " " + to.get(1)));
        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("services", services);
        out.put("queryTargets", targets);
        final Map<String, String> sqlTargets = new TreeMap<>();
        ConsoleForwarder.SQL.forEach((target, to) -> sqlTargets.put(target, to.get(0) + " " + to.get(1)));
        out.put("sqlTargets", sqlTargets);
        out.put("studies", Map.of("compression-study", "hdb " + ConsoleForwarder.STUDY));
        return out;
    }

    @Operation(summary = "A service's documented read endpoint, passed through: tp (status, cluster, health), rdb (status, tables, "
        + "health), hdb (status, partitions, replays, import, health)",
        description = "Answers what the service answered (its status code and body); the caller's Authorization or X-Api-Token goes "
            + "along. 404 for anything not forwarded, 502/504 when the service does not answer (tick.console.*-url, timeout).")
    @ApiResponse(responseCode = "200", description = "the service's answer", content = @Content(schema = @Schema(type = "object"),
        examples = @ExampleObject(value = "{\"groups\":[\"liveness\",\"readiness\"],\"status\":\"UP\"}")))
    @ApiResponse(responseCode = "404", description = "not a forwarded endpoint", content = @Content(schema = @Schema(implementation =
        ErrorBody.class), examples = @ExampleObject(value = NOT_FORWARDED)))
    @ApiResponse(responseCode = "502", description = "the service did not answer", content = @Content(schema = @Schema(implementation =
        ErrorBody.class), examples = @ExampleObject(value = UNREACHABLE)))
    @GetMapping("/{service}/{resource}")
    ResponseEntity<StreamingResponseBody> read(
        @Parameter(description = "tp, rdb or hdb", example = "tp") @PathVariable final String service,
        @Parameter(description = "the resource (see GET /api/console)", example = "health") @PathVariable final String resource,
        @Parameter(hidden = true) @RequestHeader(value = HttpHeaders.AUTHORIZATION, required = false) final String authorization,
        @Parameter(hidden = true) @RequestHeader(value = "X-Api-Token", required = false) final String apiToken) {
        return passOn(forwarder.read(service, resource, authorization, apiToken));
    }

    @Operation(summary = "A query document (docs/query.md) to the RDB, the HDB or the HDB's gateway, passed through",
        description = "The body goes to rdb POST /api/query, hdb POST /api/query or hdb POST /api/gateway/query; the answer (rows, "
            + "or the engine's 400 naming the problem) comes back as the service gave it. Accept: text/csv asks for CSV.")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(content = @Content(mediaType = "application/json",
        schema = @Schema(type = "object"), examples = @ExampleObject(name = "count-by-sym",
            value = "{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":[\"sym\"],\"limit\":5}")))
    @ApiResponse(responseCode = "200", description = "the answer: columns, types, rows", content = @Content(schema = @Schema(type =
        "object"), examples = @ExampleObject(value = "{\"columns\":[\"sym\",\"n\"],\"types\":[\"symbol\",\"int64\"],\"rows\":"
        + "[[\"S0000\",1012]],\"rowCount\":1,\"rowsScanned\":100150,\"segments\":1,\"elapsedMicros\":811}")))
    @ApiResponse(responseCode = "400", description = "the query is wrong (the engine's words)", content = @Content(schema =
        @Schema(implementation = ErrorBody.class), examples = @ExampleObject(value = "{\"error\":\"unknown table [table=nope]\","
        + "\"status\":400}")))
    @ApiResponse(responseCode = "502", description = "the service did not answer", content = @Content(schema = @Schema(implementation =
        ErrorBody.class), examples = @ExampleObject(value = UNREACHABLE)))
    @PostMapping("/{target}/query")
    ResponseEntity<StreamingResponseBody> query(
        @Parameter(description = "rdb, hdb or gateway", example = "rdb") @PathVariable final String target,
        @RequestBody(required = false) final byte[] body,
        @Parameter(hidden = true) @RequestHeader(value = HttpHeaders.ACCEPT, required = false) final String accept,
        @Parameter(hidden = true) @RequestHeader(value = HttpHeaders.AUTHORIZATION, required = false) final String authorization,
        @Parameter(hidden = true) @RequestHeader(value = "X-Api-Token", required = false) final String apiToken) {
        return passOn(forwarder.query(target, body, accept, authorization, apiToken));
    }

    @Operation(summary = "One SQL SELECT (docs/query.md \"SQL\") to the RDB, the HDB or the HDB's gateway, passed through",
        description = "The body (text/plain) goes to rdb POST /api/sql, hdb POST /api/sql or hdb POST /api/gateway/sql; the answer "
            + "(rows, or a 400 naming the problem with its PostgreSQL SQLSTATE) comes back as the service gave it. Accept: text/csv "
            + "asks for CSV.")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(content = @Content(mediaType = "text/plain",
        schema = @Schema(type = "string"), examples = @ExampleObject(name = "count-by-sym",
            value = "SELECT sym, count(*) AS n FROM trade GROUP BY sym LIMIT 5")))
    @ApiResponse(responseCode = "200", description = "the answer: columns, types, rows", content = @Content(schema = @Schema(type =
        "object"), examples = @ExampleObject(value = "{\"columns\":[\"sym\",\"n\"],\"types\":[\"symbol\",\"int64\"],\"rows\":"
        + "[[\"S0000\",1012]],\"rowCount\":1,\"rowsScanned\":100150,\"segments\":1,\"elapsedMicros\":811}")))
    @ApiResponse(responseCode = "400", description = "the query is wrong (the SQL front end's words and SQLSTATE)", content =
        @Content(schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(value = "{\"error\":\"unknown table "
        + "[table=nope]\",\"status\":400,\"sqlstate\":\"42P01\"}")))
    @ApiResponse(responseCode = "502", description = "the service did not answer", content = @Content(schema = @Schema(implementation =
        ErrorBody.class), examples = @ExampleObject(value = UNREACHABLE)))
    @PostMapping(value = "/{target}/sql", consumes = {"text/plain", "*/*"})
    ResponseEntity<StreamingResponseBody> sql(
        @Parameter(description = "rdb, hdb or gateway", example = "rdb") @PathVariable final String target,
        @RequestBody(required = false) final byte[] body,
        @Parameter(hidden = true) @RequestHeader(value = HttpHeaders.ACCEPT, required = false) final String accept,
        @Parameter(hidden = true) @RequestHeader(value = HttpHeaders.AUTHORIZATION, required = false) final String authorization,
        @Parameter(hidden = true) @RequestHeader(value = "X-Api-Token", required = false) final String apiToken) {
        return passOn(forwarder.sql(target, body, accept, authorization, apiToken));
    }

    @Operation(summary = "A compression study of one HDB partition (hdb-service POST /api/compression-study), passed through",
        description = "The body goes to the HDB as it is (date, table, encodings, runs, cold); the answer comes when the study is "
            + "done: per column and encoding the size, write time and ratios, per query and encoding the read times. It is a call "
            + "that starts work: with the API token asked for, it needs the token like any write.")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(content = @Content(mediaType = "application/json",
        schema = @Schema(type = "object"), examples = @ExampleObject(name = "one-day-three-encodings",
            value = "{\"date\":\"2026-11-20\",\"table\":\"trade\",\"encodings\":[\"lz4\",\"zstd:1\",\"auto/zstd:3\"],\"runs\":1,"
                + "\"cold\":false}")))
    @ApiResponse(responseCode = "200", description = "the study's tables", content = @Content(schema = @Schema(type = "object"),
        examples = @ExampleObject(value = "{\"date\":\"2026-11-20\",\"table\":\"trade\",\"rows\":30290,\"encodings\":[\"none\","
            + "\"lz4\"],\"columns\":[{\"column\":\"price\",\"type\":\"float64\",\"encoding\":\"lz4\",\"rawBytes\":242320,"
            + "\"storedBytes\":82471,\"sizePct\":34.03,\"writeMillis\":15.5,\"writeRatio\":1.83}],\"queries\":[]}")))
    @ApiResponse(responseCode = "400", description = "unknown partition or table, bad encoding (the HDB's words)", content =
        @Content(schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(value = "{\"error\":\"unknown "
        + "partition [date=2020-01-01, table=trade]\",\"status\":400}")))
    @ApiResponse(responseCode = "502", description = "the HDB did not answer", content = @Content(schema = @Schema(implementation =
        ErrorBody.class), examples = @ExampleObject(value = UNREACHABLE)))
    @PostMapping("/hdb/compression-study")
    ResponseEntity<StreamingResponseBody> compressionStudy(
        @RequestBody(required = false) final byte[] body,
        @Parameter(hidden = true) @RequestHeader(value = HttpHeaders.AUTHORIZATION, required = false) final String authorization,
        @Parameter(hidden = true) @RequestHeader(value = "X-Api-Token", required = false) final String apiToken) {
        return passOn(forwarder.compressionStudy(body, authorization, apiToken));
    }

    private static ResponseEntity<StreamingResponseBody> passOn(final ConsoleForwarder.Answer answer) {
        final StreamingResponseBody body = out -> {
            try (InputStream in = answer.body()) {
                in.transferTo(out);
            }
        };
        return ResponseEntity.status(answer.status()).contentType(MediaType.parseMediaType(answer.contentType())).body(body);
    }
}
