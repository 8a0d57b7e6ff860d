package io.jtick.hdb;

import io.jtick.boot.ApiDocs;
import io.jtick.boot.ApiErrors;
import io.jtick.boot.ApiErrors.ErrorBody;
import io.jtick.boot.QueryArgs;
import io.jtick.core.bulk.HdbImport;
import io.jtick.lab.compression.CompressionStudy;
import io.jtick.core.hdb.format.CorruptPartitionException;
import io.jtick.core.hdb.format.DecodedBlockCache;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.ops.PartitionArchive;
import io.jtick.core.hdb.ops.TierPolicy;
import io.jtick.core.hdb.ops.TieringJob;
import io.jtick.core.replay.ReplayStatus;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The HDB's REST API: {@code GET /api/partitions}, {@code POST /api/reload}, {@code POST /api/query}, {@code POST /api/sql},
 * {@code POST /api/gateway/sql},
 * {@code POST /api/gateway/query}, {@code POST /api/tiering/run}, {@code POST /api/compression-study},
 * {@code PUT /api/partitions/{date}}, {@code GET /api/status}.
 * Bad input answers 400 with a message ({@link ApiErrors}); a corrupt block answers 500 naming
 * the file and block.
 */
@RestController
@RequestMapping("/api")
@Tag(name = "hdb")
class HdbController {
    /** A day the examples name: HdbOpenApiIT writes its partitions for it. */
    static final String EXAMPLE_DATE = "2026-11-20";
    private static final String SQL_BY_DATE = "SELECT date, sym, count(*) AS n FROM trade WHERE date BETWEEN '2026-11-01' AND '"
        + EXAMPLE_DATE + "' GROUP BY date, sym ORDER BY date, sym LIMIT 10";
    private static final String PARTITIONS_EXAMPLE = "[{\"date\":\"2026-11-20\",\"tier\":\"hot\",\"tables\":[{\"table\":\"trade\","
        + "\"rows\":30290,\"bytesOnDisk\":880070,\"rawBytes\":878410,\"columns\":[{\"name\":\"time\",\"type\":\"timestamp\","
        + "\"encoding\":\"none\",\"rawBytes\":242320,\"bytesOnDisk\":242748},{\"name\":\"price\",\"type\":\"float64\","
        + "\"encoding\":\"auto/lz4\",\"rawBytes\":242320,\"bytesOnDisk\":82471}]}]}]";
    private static final String RELOAD_EXAMPLE = "{\"partitions\":3,\"tables\":5,\"opened\":[\"2026-11-20/trade\"],\"dropped\":[],"
        + "\"recovery\":{\"deleted\":[],\"restored\":[]}}";
    private static final String TIERING_EXAMPLE = "{\"today\":\"2026-12-27\",\"dryRun\":false,\"tablesChecked\":2,\"moved\":[{"
        + "\"date\":\"2026-11-20\",\"table\":\"trade\",\"tier\":\"cold\",\"bytesBefore\":880070,\"bytesAfter\":268902,\"millis\":929}],"
        + "\"deleted\":[],\"failed\":[],\"millis\":1709}";
    private static final String STUDY_BODY_EXAMPLE = "{\"date\":\"2026-11-20\",\"table\":\"trade\",\"encodings\":[\"lz4\","
        + "\"zstd:1\",\"auto/zstd:3\"],\"runs\":1,\"cold\":false}";
    private static final String STUDY_EXAMPLE = "{\"date\":\"2026-11-20\",\"table\":\"trade\",\"rows\":30290,\"encodings\":"
        + "[\"none\",\"lz4\"],\"columns\":[{\"column\":\"price\",\"type\":\"float64\",\"encoding\":\"lz4\",\"rawBytes\":242320,"
        + "\"storedBytes\":82471,\"sizePct\":34.03,\"writeMillis\":15.5,\"writeRatio\":1.83}],\"queries\":[{\"query\":"
        + "\"scan-sum-numeric\",\"encoding\":\"lz4\",\"hotMillis\":0.31,\"hotRatio\":3.3,\"coldMillis\":\"NaN\","
        + "\"coldRatio\":\"NaN\"}],\"coldMeasured\":false,\"coldMethod\":\"not asked for\",\"method\":\"write: encode + write "
        + "to page cache, no fsync, best of 1; query: median of 1 after 10 warm-up rounds of every query; block 131072 B raw\"}";
    private static final String STATUS_EXAMPLE = "{\"root\":\"/srv/jtick/var/hdb\",\"partitions\":1,\"tables\":2,\"firstDate\":"
        + "\"2026-11-20\",\"lastDate\":\"2026-11-20\",\"rows\":30290,\"bytesOnDisk\":880478,\"today\":\"2026-11-26\",\"tiers\":"
        + "[{\"name\":\"hot\",\"maxAgeDays\":5,\"encoding\":\"none\",\"types\":{},\"columns\":{}},{\"name\":\"cold\","
        + "\"maxAgeDays\":-1,\"encoding\":\"auto/zstd:3\",\"types\":{},\"columns\":{}}],\"tieringSchedule\":"
        + "\"cron \\\"0 15 0 * * *\\\" UTC\",\"tieringRunning\":false,\"lastTiering\":null,\"lastReloadAt\":"
        + "\"2026-11-26T08:59:08.588Z\",\"lastReload\":{\"partitions\":1,\"tables\":2,\"opened\":[],\"dropped\":[],"
        + "\"recovery\":{\"deleted\":[],\"restored\":[]}},\"studyRunning\":false,\"decodedBlockCache\":{\"capacityBytes\":67108864,"
        + "\"bytes\":0,\"hits\":0,\"misses\":0},\"replayPort\":5012,\"replays\":[],\"imports\":[]}";
    private static final String COUNT_BY_DATE = "{\"table\":\"trade\",\"dates\":[\"2026-11-01\",\"2026-11-30\"],"
        + "\"select\":{\"n\":{\"count\":\"*\"}},\"by\":[\"date\"]}";
    private static final String VWAP_BY_DATE_AND_SYM = "{\"table\":\"trade\",\"select\":{\"vwap\":{\"wavg\":[\"size\","
        + "\"price\"]}},\"by\":[\"date\",\"sym\"]}";
    private static final String SERVER_ERROR_EXAMPLE = "{\"error\":\"corrupt block [file=/srv/jtick/var/hdb/2026-11-20/trade/price, "
        + "block=3]: checksum mismatch\",\"status\":500,\"file\":\"/srv/jtick/var/hdb/2026-11-20/trade/price\",\"block\":3}";

    private static final Logger LOG = LoggerFactory.getLogger(HdbController.class);

    private final HdbLifecycle store;
    private final CompressionStudyRunner study;
    private final HdbProperties properties;
    private final HdbConfiguration.HdbQueries queries;
    private final ReplayLifecycle replay;
    private final ImportRunner imports;

    HdbController(final HdbLifecycle store, final CompressionStudyRunner study, final HdbProperties properties,
                  final HdbConfiguration.HdbQueries queries, final ReplayLifecycle replay, final ImportRunner imports) {
        this.store = store;
        this.study = study;
        this.properties = properties;
        this.queries = queries;
        this.replay = replay;
        this.imports = imports;
    }

    /** One partition as listed, with the tier its age puts it in today. */
    record PartitionView(LocalDate date, String tier, List<HistoricalDatabase.TableInfo> tables) {
    }

    /** Dates (oldest first), tables, rows, and per column type, encoding, raw bytes and bytes on disk. */
    @Operation(summary = "Loaded partitions: dates, tier, tables, rows, and per column encoding and bytes")
    @ApiResponse(responseCode = "200", description = "one entry per date, oldest first", content = @Content(
        array = @ArraySchema(schema = @Schema(implementation = PartitionView.class)),
        examples = @ExampleObject(value = PARTITIONS_EXAMPLE)))
    @GetMapping("/partitions")
    List<PartitionView> partitions() {
        final LocalDate today = store.today();
        final TierPolicy policy = store.policy();
        final List<PartitionView> out = new ArrayList<>();
        for (final HistoricalDatabase.PartitionInfo p : store.hdb().partitions()) {
            out.add(new PartitionView(p.date(), policy.tierFor(p.date(), today).name(), p.tables()));
        }
        return out;
    }

    /** What {@code PUT /api/partitions/{date}} installed, and the reload that followed. */
    record ImportView(LocalDate date, List<String> tables, long rows, long bytes) {
    }

    /**
     * Installs a partition sent as a zip of {@code <table>/<file>} entries
     * ({@link io.jtick.core.hdb.ops.PartitionArchive}; an RDB's end of day when the two share no
     * directory, or an operator's import): received, verified, then each table swapped in (replacing
     * the date's table of the same name), then reloaded. A bad archive answers 400 and changes nothing.
     */
    @Operation(summary = "Install a partition sent as a zip (an RDB's end of day, or an import)",
        description = "The body is a zip of <table>/<file> entries as the partition writer lays them out (docs/storage-format.md). "
            + "Received, verified, then each table swapped in atomically (replacing the date's table of the same name), then "
            + "reloaded. A bad archive changes nothing.")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true, content = {
        @Content(mediaType = "application/zip", schema = @Schema(type = "string", format = "binary")),
        @Content(mediaType = "application/octet-stream", schema = @Schema(type = "string", format = "binary"))})
    @ApiResponse(responseCode = "200", description = "what was installed", content = @Content(
        schema = @Schema(implementation = ImportView.class), examples = @ExampleObject(
            value = "{\"date\":\"2026-11-20\",\"tables\":[\"quote\",\"trade\"],\"rows\":30290,\"bytes\":880478}")))
    @ApiResponse(responseCode = "400", description = "a bad date or a bad archive (nothing changed)", content = @Content(
        schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(
            value = "{\"error\":\"the archive holds no table [date=2026-11-20]\",\"status\":400}")))
    @PutMapping(value = "/partitions/{date}", consumes = {"application/zip", "application/octet-stream"})
    ImportView importPartition(@Parameter(description = "the partition's date, yyyy-MM-dd", example = EXAMPLE_DATE)
                               @PathVariable("date") final String date, final InputStream body) throws IOException {
        final LocalDate day = QueryArgs.date("date", date);
        final PartitionArchive.Installed in = store.importPartition(body, day);
        return new ImportView(in.date(), in.tables(), in.rows(), in.bytes());
    }

    /** Rescans the root (the RDB calls this after each end-of-day write). */
    @Operation(summary = "Rescan the root and load new or changed partitions (the RDB calls it after each end of day)")
    @ApiResponse(responseCode = "200", description = "what the reload opened, dropped and recovered", content = @Content(
        schema = @Schema(implementation = HistoricalDatabase.ReloadReport.class), examples = @ExampleObject(value = RELOAD_EXAMPLE)))
    @ApiResponse(responseCode = "500", description = "the root cannot be read, or a partition is corrupt (named)", content = @Content(
        schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(value = SERVER_ERROR_EXAMPLE)))
    @PostMapping("/reload")
    HistoricalDatabase.ReloadReport reload() throws IOException {
        return store.reload();
    }

    /**
     * Runs a query document over the date partitions (see docs/query.md: {@code dates} prunes
     * them; the virtual column {@code date} gives each row's partition date) and streams the
     * result as JSON, or CSV with {@code Accept: text/csv}. The first HDB API's row selection
     * ({@code syms}, {@code from}/{@code to}, {@code columns}, {@code limit}, and {@code date} or
     * {@code fromDate}/{@code toDate}) maps onto the same engine. Rows come in date order, then sym
     * then time within a date (the partitions' order) unless {@code orderBy} says otherwise.
     */
    @Operation(summary = "Query the date partitions", description = ApiDocs.QUERY_DOC + " dates (or date, fromDate, toDate) "
        + "prune the partitions; the virtual column date is each row's partition date.")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true, content = @Content(mediaType = "application/json",
        schema = @Schema(type = "object", description = ApiDocs.QUERY_DOC), examples = {
            @ExampleObject(name = "vwap-by-sym", value = ApiDocs.QUERY_VWAP),
            @ExampleObject(name = "rows-of-one-sym", value = ApiDocs.QUERY_ROWS),
            @ExampleObject(name = "count-by-date", value = COUNT_BY_DATE)}))
    @ApiResponse(responseCode = "200", description = ApiDocs.QUERY_RESULT,
        content = {@Content(mediaType = "application/json", schema = @Schema(type = "object", description = ApiDocs.QUERY_RESULT),
            examples = @ExampleObject(value = ApiDocs.QUERY_RESULT_EXAMPLE)),
            @Content(mediaType = ApiDocs.CSV, schema = @Schema(type = "string"),
                examples = @ExampleObject(value = ApiDocs.QUERY_CSV_EXAMPLE))})
    @ApiResponse(responseCode = "400", description = "a bad query: the message names the problem",
        content = @Content(schema = @Schema(implementation = ErrorBody.class),
            examples = @ExampleObject(value = ApiDocs.BAD_QUERY_EXAMPLE)))
    @ApiResponse(responseCode = "413", description = "the result is over tick.query.max-rows or max-bytes",
        content = @Content(schema = @Schema(implementation = ErrorBody.class),
            examples = @ExampleObject(value = ApiDocs.TOO_BIG_EXAMPLE)))
    @ApiResponse(responseCode = "500", description = "a block failed its checks: the message names file and block",
        content = @Content(schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(value = SERVER_ERROR_EXAMPLE)))
    @PostMapping("/query")
    void query(@RequestBody final String body,
               @Parameter(description = "application/json (default) or text/csv", example = "application/json",
                   schema = @Schema(allowableValues = {"application/json", ApiDocs.CSV}))
               @RequestHeader(value = HttpHeaders.ACCEPT, required = false) final String accept,
               final HttpServletResponse response) throws IOException {
        queries.hdbEndpoint().handle(body, accept, queries.hdbSource(), Map.of(), response);
    }

    /** {@code POST /api/sql}: one SELECT over the partitions (the {@code date} column picks them), answered as {@code POST /api/query}. */
    @Operation(summary = "SQL over the date partitions", description = ApiDocs.SQL_DOC)
    @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true, content = @Content(mediaType = "text/plain",
        schema = @Schema(type = "string", description = ApiDocs.SQL_DOC), examples = {
            @ExampleObject(name = "vwap-by-sym", value = ApiDocs.SQL_VWAP),
            @ExampleObject(name = "count-by-date", value = SQL_BY_DATE)}))
    @ApiResponse(responseCode = "200", description = ApiDocs.QUERY_RESULT,
        content = {@Content(mediaType = "application/json", schema = @Schema(type = "object", description = ApiDocs.QUERY_RESULT),
            examples = @ExampleObject(value = ApiDocs.QUERY_RESULT_EXAMPLE)),
            @Content(mediaType = ApiDocs.CSV, schema = @Schema(type = "string"),
                examples = @ExampleObject(value = ApiDocs.QUERY_CSV_EXAMPLE))})
    @ApiResponse(responseCode = "400", description = "a statement jtick does not run: the message names it, sqlstate classifies it",
        content = @Content(schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(value = ApiDocs.BAD_SQL_EXAMPLE)))
    @ApiResponse(responseCode = "413", description = "the result is over tick.query.max-rows or max-bytes",
        content = @Content(schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(value = ApiDocs.TOO_BIG_EXAMPLE)))
    @PostMapping("/sql")
    void sql(@RequestBody final String body,
             @Parameter(description = "application/json (default) or text/csv", example = "application/json",
                 schema = @Schema(allowableValues = {"application/json", ApiDocs.CSV}))
             @RequestHeader(value = HttpHeaders.ACCEPT, required = false) final String accept,
             final HttpServletResponse response) throws IOException {
        queries.hdbEndpoint().handleSql(body, accept, queries.hdbSource(), Map.of(), response);
    }

    /** {@code POST /api/gateway/sql}: one SELECT over the partitions and today's RDB, as {@code POST /api/gateway/query}. */
    @Operation(summary = "SQL through the gateway: the HDB's partitions and today's RDB", description = ApiDocs.SQL_DOC)
    @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true, content = @Content(mediaType = "text/plain",
        schema = @Schema(type = "string", description = ApiDocs.SQL_DOC), examples = {
            @ExampleObject(name = "vwap-by-sym", value = ApiDocs.SQL_VWAP),
            @ExampleObject(name = "count-by-date", value = SQL_BY_DATE)}))
    @ApiResponse(responseCode = "200", description = ApiDocs.QUERY_RESULT,
        content = {@Content(mediaType = "application/json", schema = @Schema(type = "object", description = ApiDocs.QUERY_RESULT),
            examples = @ExampleObject(value = ApiDocs.QUERY_RESULT_EXAMPLE)),
            @Content(mediaType = ApiDocs.CSV, schema = @Schema(type = "string"),
                examples = @ExampleObject(value = ApiDocs.QUERY_CSV_EXAMPLE))})
    @ApiResponse(responseCode = "400", description = "a statement jtick does not run: the message names it, sqlstate classifies it",
        content = @Content(schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(value = ApiDocs.BAD_SQL_EXAMPLE)))
    @ApiResponse(responseCode = "503", description = "no RDB configured (tick.hdb.gateway.rdb-url) or the RDB cannot be reached",
        content = @Content(schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(
            value = "{\"error\":\"no RDB for the gateway: set tick.hdb.gateway.rdb-url (like http://127.0.0.1:8011)\",\"status\":503}")))
    @PostMapping("/gateway/sql")
    void gatewaySql(@RequestBody final String body,
                    @Parameter(description = "application/json (default) or text/csv", example = "application/json",
                        schema = @Schema(allowableValues = {"application/json", ApiDocs.CSV}))
                    @RequestHeader(value = HttpHeaders.ACCEPT, required = false) final String accept,
                    final HttpServletResponse response) throws IOException {
        if (queries.gatewaySource() == null) {
            throw new ApiErrors.ApiException(HttpStatus.SERVICE_UNAVAILABLE,
                "no RDB for the gateway: set tick.hdb.gateway.rdb-url (like http://127.0.0.1:8011)");
        }
        queries.gatewayEndpoint().handleSql(body, accept, queries.gatewaySource(), Map.of(), response);
    }

    /**
     * The gateway: the same query document over a date range that may include today, answered from
     * the HDB's partitions plus the RDB at {@code tick.hdb.gateway.rdb-url} (today's rows fetched
     * over REST), merged by one engine run so aggregates, medians, bars and as-of joins span the
     * day boundary exactly. 503 when no RDB is configured or it cannot be reached.
     */
    @Operation(summary = "The gateway: one query over the HDB's partitions and today's RDB",
        description = ApiDocs.QUERY_DOC + " Past dates come from the partitions, today from the RDB at tick.hdb.gateway.rdb-url; "
            + "decomposable grouped queries run as partial queries on each side, the rest fetch today's matching rows.")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true, content = @Content(mediaType = "application/json",
        schema = @Schema(type = "object", description = ApiDocs.QUERY_DOC), examples = {
            @ExampleObject(name = "vwap-by-sym", value = ApiDocs.QUERY_VWAP),
            @ExampleObject(name = "rows-of-one-sym", value = ApiDocs.QUERY_ROWS),
            @ExampleObject(name = "vwap-by-date-and-sym", value = VWAP_BY_DATE_AND_SYM)}))
    @ApiResponse(responseCode = "200", description = ApiDocs.QUERY_RESULT,
        content = {@Content(mediaType = "application/json", schema = @Schema(type = "object", description = ApiDocs.QUERY_RESULT),
            examples = @ExampleObject(value = ApiDocs.QUERY_RESULT_EXAMPLE)),
            @Content(mediaType = ApiDocs.CSV, schema = @Schema(type = "string"),
                examples = @ExampleObject(value = ApiDocs.QUERY_CSV_EXAMPLE))})
    @ApiResponse(responseCode = "400", description = "a bad query: the message names the problem",
        content = @Content(schema = @Schema(implementation = ErrorBody.class),
            examples = @ExampleObject(value = ApiDocs.BAD_QUERY_EXAMPLE)))
    @ApiResponse(responseCode = "413", description = "the result is over tick.query.max-rows or max-bytes",
        content = @Content(schema = @Schema(implementation = ErrorBody.class),
            examples = @ExampleObject(value = ApiDocs.TOO_BIG_EXAMPLE)))
    @ApiResponse(responseCode = "503", description = "no RDB configured (tick.hdb.gateway.rdb-url) or the RDB cannot be reached",
        content = @Content(schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(
            value = "{\"error\":\"no RDB for the gateway: set tick.hdb.gateway.rdb-url (like http://127.0.0.1:8011)\",\"status\":503}")))
    @PostMapping("/gateway/query")
    void gatewayQuery(@RequestBody final String body,
                      @Parameter(description = "application/json (default) or text/csv", example = "application/json",
                   schema = @Schema(allowableValues = {"application/json", ApiDocs.CSV}))
               @RequestHeader(value = HttpHeaders.ACCEPT, required = false) final String accept,
                      final HttpServletResponse response) throws IOException {
        if (queries.gatewaySource() == null) {
            throw new ApiErrors.ApiException(HttpStatus.SERVICE_UNAVAILABLE,
                "no RDB for the gateway: set tick.hdb.gateway.rdb-url (like http://127.0.0.1:8011)");
        }
        queries.gatewayEndpoint().handle(body, accept, queries.gatewaySource(), Map.of(), response);
    }

    /** Moves partitions to their tiers now; {@code today} (yyyy-MM-dd) defaults to today in {@code tick.hdb.tiering.zone}. */
    @Operation(summary = "Move partitions to their storage tier now, delete what is past retention",
        description = "Rewrites every table not stored as its tier asks (its table's tick.hdb.retention step for its age, else "
            + "tick.hdb.tiers) as of today, into a temporary copy swapped in atomically; deletes days past their table's retention; "
            + "queries holding the old files keep reading them. Each move and delete is appended to <root>/tiering-audit.jsonl. "
            + "dryRun=true lists what would move or go and changes nothing.")
    @ApiResponse(responseCode = "200", description = "what moved, sizes before and after, failures", content = @Content(
        schema = @Schema(implementation = TieringJob.Report.class), examples = @ExampleObject(value = TIERING_EXAMPLE)))
    @ApiResponse(responseCode = "400", description = "a bad date", content = @Content(schema = @Schema(implementation = ErrorBody.class),
        examples = @ExampleObject(value = "{\"error\":\"bad date [today=bad]: expected yyyy-MM-dd like 2026-11-20\",\"status\":400}")))
    @PostMapping("/tiering/run")
    TieringJob.Report tiering(@Parameter(description = "the day ages are counted from, yyyy-MM-dd (default: today in "
        + "tick.hdb.tiering.zone)", example = "2026-12-27")
                              @RequestParam(name = "today", required = false) final String today,
                              @Parameter(description = "list what would move or be deleted, change nothing", example = "false")
                              @RequestParam(name = "dryRun", defaultValue = "false") final boolean dryRun) {
        final LocalDate day = QueryArgs.date("today", today);
        return store.runTiering(day == null ? store.today() : day, dryRun);
    }

    /** A compression-study body; absent fields take the defaults ({@code tick.hdb.study.*}, the KX encoding list). */
    record StudyBody(String date, String table, List<String> encodings, Integer runs, Boolean cold) {
    }

    /** Runs the compression study on a loaded partition table: JSON, or CSV with {@code Accept: text/csv} or {@code ?format=csv}. */
    @Operation(summary = "The KX compression study on one loaded partition table",
        description = "Per column and encoding: size % of raw and write time relative to uncompressed; per query and encoding: hot "
            + "and (when cold is true and the page cache can be dropped) cold time relative to uncompressed. Runs in the request's "
            + "thread; one study at a time.")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(content = @Content(mediaType = "application/json",
        schema = @Schema(implementation = StudyBody.class), examples = @ExampleObject(name = "three-encodings",
            value = STUDY_BODY_EXAMPLE)))
    @ApiResponse(responseCode = "200", description = "the study's tables", content = {
        @Content(mediaType = "application/json", schema = @Schema(type = "object"), examples = @ExampleObject(value = STUDY_EXAMPLE)),
        @Content(mediaType = ApiDocs.CSV, schema = @Schema(type = "string"))})
    @ApiResponse(responseCode = "400", description = "unknown partition or table, bad encoding", content = @Content(
        schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(
            value = "{\"error\":\"unknown partition [date=2020-01-01, table=trade]\",\"status\":400}")))
    @ApiResponse(responseCode = "409", description = "another study is running", content = @Content(
        schema = @Schema(implementation = ErrorBody.class), examples = @ExampleObject(
            value = "{\"error\":\"a compression study is already running; try again when it is done\",\"status\":409}")))
    @PostMapping("/compression-study")
    ResponseEntity<?> compressionStudy(@RequestBody(required = false) final StudyBody body,
                                       @Parameter(description = "application/json (default) or text/csv", example = "application/json")
                                       @RequestHeader(name = "Accept", required = false) final String accept,
                                       @Parameter(description = "json or csv (wins over Accept)", example = "json",
                                           schema = @Schema(allowableValues = {"json", "csv"}))
                                       @RequestParam(name = "format", required = false) final String format) throws IOException {
        final StudyBody b = body == null ? new StudyBody(null, null, null, null, null) : body;
        final List<String> encodings = b.encodings() == null || b.encodings().isEmpty() ? CompressionStudy.DEFAULT_ENCODINGS
            : b.encodings();
        final CompressionStudy.Result r = study.run(QueryArgs.date("date", b.date()), b.table() == null ? "trade" : b.table(), encodings,
            b.runs(), b.cold());
        final boolean csv = "csv".equalsIgnoreCase(format) || format == null && accept != null && accept.contains("text/csv");
        if (csv) {
            return ResponseEntity.ok().contentType(new MediaType("text", "csv")).body(r.toCsv());
        }
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(r);
    }

    /** A tier as configured, encodings written out ({@code auto/zstd:3}). */
    record TierView(String name, int maxAgeDays, String encoding, Map<String, String> types, Map<String, String> columns) {
        static TierView of(final TierPolicy.Tier t) {
            final Map<String, String> types = new TreeMap<>();
            t.types().forEach((k, v) -> types.put(k, v.toString()));
            final Map<String, String> columns = new TreeMap<>();
            t.columns().forEach((k, v) -> columns.put(k, v.toString()));
            return new TierView(t.name(), t.maxAgeDays(), t.encoding().toString(), types, columns);
        }
    }

    /**
     * What {@code GET /api/status} shows; {@code replayPort} is 0 and {@code replays} empty when replay is off,
     * {@code replays} holds the running replays with their progress, {@code imports} the running imports.
     */
    record StatusView(String root, int partitions, int tables, LocalDate firstDate, LocalDate lastDate, long rows, long bytesOnDisk,
                      LocalDate today, List<TierView> tiers, String tieringSchedule, boolean tieringRunning,
                      TieringJob.Report lastTiering, Instant lastReloadAt, HistoricalDatabase.ReloadReport lastReload,
                      boolean studyRunning, CacheView decodedBlockCache, int replayPort, List<ReplayStatus> replays,
                      List<HdbImport.Report> imports) {
    }

    /** The process's decoded-block cache: its bound and use ({@code tick.hdb.decoded-block-cache}). */
    record CacheView(long capacityBytes, long bytes, long hits, long misses) {
        static CacheView of(final DecodedBlockCache c) {
            return new CacheView(c.capacityBytes(), c.bytes(), c.hits(), c.misses());
        }
    }

    @Operation(summary = "Root, partitions, rows, bytes, tiers, tiering schedule, last tiering run and reload")
    @ApiResponse(responseCode = "200", description = "the HDB's state", content = @Content(
        schema = @Schema(implementation = StatusView.class), examples = @ExampleObject(value = STATUS_EXAMPLE)))
    @GetMapping("/status")
    StatusView status() {
        final List<HistoricalDatabase.PartitionInfo> parts = store.hdb().partitions();
        int tables = 0;
        long rows = 0;
        long bytes = 0;
        for (final HistoricalDatabase.PartitionInfo p : parts) {
            for (final HistoricalDatabase.TableInfo t : p.tables()) {
                tables++;
                rows += t.rows();
                bytes += t.bytesOnDisk();
            }
        }
        final HdbLifecycle.Reloaded reloaded = store.lastReload();
        return new StatusView(properties.root().toAbsolutePath().normalize().toString(), parts.size(), tables,
            parts.isEmpty() ? null : parts.get(0).date(), parts.isEmpty() ? null : parts.get(parts.size() - 1).date(), rows, bytes,
            store.today(), store.policy().tiers().stream().map(TierView::of).toList(), store.schedule(), store.tieringInProgress(),
            store.lastTiering(), reloaded == null ? null : reloaded.at(), reloaded == null ? null : reloaded.report(), study.running(),
            CacheView.of(DecodedBlockCache.shared()), replay.server() == null ? 0 : replay.server().port(),
            replay.server() == null ? List.of() : replay.server().replays().stream().filter(r -> "running".equals(r.state())).toList(),
            imports.list().stream().filter(r -> "running".equals(r.state())).toList());
    }

    /** A block that fails its checks: 500 naming the file and block (never returned as data). */
    @ExceptionHandler(CorruptPartitionException.class)
    ResponseEntity<Map<String, Object>> corrupt(final CorruptPartitionException e) {
        LOG.error("corrupt partition [file={}, block={}]", e.file(), e.block(), e);
        return ResponseEntity.status(HttpStatus.INTERNAL_SERVER_ERROR).contentType(MediaType.APPLICATION_JSON)
            .body(Map.of("error", e.getMessage(), "status", 500, "file", String.valueOf(e.file()), "block", e.block()));
    }

    /** Any other I/O failure (a reload that cannot read the root, a study that cannot write): 500 with its message. */
    @ExceptionHandler(IOException.class)
    ResponseEntity<Map<String, Object>> io(final IOException e) {
        LOG.error("HDB request failed", e);
        return ResponseEntity.status(HttpStatus.INTERNAL_SERVER_ERROR).contentType(MediaType.APPLICATION_JSON)
            .body(Map.of("error", String.valueOf(e.getMessage()), "status", 500));
    }
}
