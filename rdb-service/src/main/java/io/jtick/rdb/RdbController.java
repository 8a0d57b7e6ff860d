package io.jtick.rdb;

import io.jtick.boot.ApiDocs;
import io.jtick.boot.ApiErrors;
import io.jtick.boot.ApiErrors.ErrorBody;
import io.jtick.boot.QueryEndpoint;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.rdb.HdbWriteDown;
import io.jtick.core.rdb.RealtimeDatabase;
import io.jtick.core.schema.ColumnDef;
import io.jtick.core.table.TableSegment;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpHeaders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.io.IOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Query REST over today's data: {@code POST /api/query}, {@code POST /api/sql}, {@code GET /api/tables},
 * {@code GET /api/status} (subscription, counters, end of day and write-down). Bad input answers 400
 * with a message, results over the configured limits 413 (see {@link ApiErrors} and {@link QueryEndpoint}).
 */
@RestController
@RequestMapping("/api")
@Tag(name = "rdb")
class RdbController {
    /** Response header: the RDB's trading day, {@code yyyy-MM-dd}. */
    static final String DAY_HEADER = "X-Jtick-Day";

    private final RealtimeDatabase rdb;
    private final QueryEndpoint query;
    private final ObjectProvider<RdbLifecycle> subscription;
    private final ObjectProvider<HdbWriteDown> writeDown;
    private final RdbProperties properties;

    RdbController(final RealtimeDatabase rdb, final QueryEndpoint query, final ObjectProvider<RdbLifecycle> subscription,
                  final ObjectProvider<HdbWriteDown> writeDown, final RdbProperties properties) {
        this.properties = properties;
        this.rdb = rdb;
        this.query = query;
        this.subscription = subscription;
        this.writeDown = writeDown;
    }

    /**
     * Runs a query document over today's tables (see docs/query.md) and streams the result as
     * JSON, or CSV with {@code Accept: text/csv}. The first API's row-selection fields
     * ({@code syms}, {@code from}, {@code to}, {@code columns}, {@code limit}) still work: they map
     * onto {@code where} and {@code select}. The response carries the RDB's trading day in
     * {@value #DAY_HEADER} (the gateway dates the rows it fetches with it).
     */
    @Operation(summary = "Query today's tables", description = ApiDocs.QUERY_DOC)
    @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true, content = @Content(mediaType = "application/json",
        schema = @Schema(type = "object", description = ApiDocs.QUERY_DOC), examples = {
            @ExampleObject(name = "vwap-by-sym", value = ApiDocs.QUERY_VWAP),
            @ExampleObject(name = "rows-of-one-sym", value = ApiDocs.QUERY_ROWS)}))
    @ApiResponse(responseCode = "200", description = ApiDocs.QUERY_RESULT,
        headers = @Header(name = DAY_HEADER, description = "the RDB's trading day",
            schema = @Schema(type = "string", example = "2026-11-24")),
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
    @PostMapping("/query")
    void query(@RequestBody final String body,
               @Parameter(description = "application/json (default) or text/csv", example = "application/json",
                   schema = @Schema(allowableValues = {"application/json", ApiDocs.CSV}))
               @RequestHeader(value = HttpHeaders.ACCEPT, required = false) final String accept,
               final HttpServletResponse response) throws IOException {
        query.handle(body, accept, rdb, Map.of(DAY_HEADER, LocalDate.ofEpochDay(rdb.currentDay()).toString()), response);
    }

    /** {@code POST /api/sql}: one SELECT over today's tables, answered as {@code POST /api/query} answers its document. */
    @Operation(summary = "SQL over today's tables", description = ApiDocs.SQL_DOC)
    @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true, content = @Content(mediaType = "text/plain",
        schema = @Schema(type = "string", description = ApiDocs.SQL_DOC), examples = {
            @ExampleObject(name = "vwap-by-sym", value = ApiDocs.SQL_VWAP),
            @ExampleObject(name = "rows-of-one-sym", value = ApiDocs.SQL_ROWS)}))
    @ApiResponse(responseCode = "200", description = ApiDocs.QUERY_RESULT,
        headers = @Header(name = DAY_HEADER, description = "the RDB's trading day",
            schema = @Schema(type = "string", example = "2026-11-24")),
        content = {@Content(mediaType = "application/json", schema = @Schema(type = "object", description = ApiDocs.QUERY_RESULT),
            examples = @ExampleObject(value = ApiDocs.QUERY_RESULT_EXAMPLE)),
            @Content(mediaType = ApiDocs.CSV, schema = @Schema(type = "string"),
                examples = @ExampleObject(value = ApiDocs.QUERY_CSV_EXAMPLE))})
    @ApiResponse(responseCode = "400", description = "a statement jtick does not run: the message names it, sqlstate classifies it",
        content = @Content(schema = @Schema(implementation = ErrorBody.class),
            examples = @ExampleObject(value = ApiDocs.BAD_SQL_EXAMPLE)))
    @ApiResponse(responseCode = "413", description = "the result is over tick.query.max-rows or max-bytes",
        content = @Content(schema = @Schema(implementation = ErrorBody.class),
            examples = @ExampleObject(value = ApiDocs.TOO_BIG_EXAMPLE)))
    @PostMapping("/sql")
    void sql(@RequestBody final String body,
             @Parameter(description = "application/json (default) or text/csv", example = "application/json",
                 schema = @Schema(allowableValues = {"application/json", ApiDocs.CSV}))
             @RequestHeader(value = HttpHeaders.ACCEPT, required = false) final String accept,
             final HttpServletResponse response) throws IOException {
        query.handleSql(body, accept, rdb, Map.of(DAY_HEADER, LocalDate.ofEpochDay(rdb.currentDay()).toString()), response);
    }

    record ColumnView(String name, String type) {
    }

    record TableView(String name, List<ColumnView> columns, long rows) {
    }

    @Operation(summary = "Tables in memory: schema and rows")
    @ApiResponse(responseCode = "200", description = "one entry per table", content = @Content(
        array = @io.swagger.v3.oas.annotations.media.ArraySchema(schema = @Schema(implementation = TableView.class)),
        examples = @ExampleObject(value = "[{\"name\":\"trade\",\"columns\":[{\"name\":\"time\",\"type\":\"timestamp\"},"
            + "{\"name\":\"sym\",\"type\":\"symbol\"},{\"name\":\"price\",\"type\":\"float64\"}],\"rows\":1203450}]")))
    @GetMapping("/tables")
    List<TableView> tables() {
        final List<TableView> out = new ArrayList<>();
        for (final TableSegment t : rdb.tables()) {
            final List<ColumnView> cols = new ArrayList<>();
            for (final ColumnDef c : t.schema().columns()) {
                cols.add(new ColumnView(c.name(), c.type().typeName()));
            }
            out.add(new TableView(t.schema().name(), cols, t.rowCount()));
        }
        return out;
    }

    /**
     * The end-of-day write-down: whether it is on, how the day reaches the HDB ({@code reload} or
     * {@code upload}), the last partition it wrote (null until one), the days written that the HDB has
     * not taken yet (offered again every {@code tick.rdb.hdb.retry-interval}) and why the last write or
     * delivery failed; a failed write shows in {@code lastEodError} too.
     */
    record WriteDownView(boolean enabled, String transfer, WrittenView lastWrite, List<LocalDate> undelivered, String lastError) {
    }

    /** One partition written: date, directory, rows, raw and stored bytes, write time. */
    record WrittenView(LocalDate date, String directory, long rows, long rawBytes, long storedBytes, long millis,
                       List<PartitionWriter.TableWritten> tables) {
        static WrittenView of(final PartitionWriter.Written w) {
            return w == null ? null : new WrittenView(w.date(), w.directory().toString(),
                w.tables().stream().mapToLong(PartitionWriter.TableWritten::rows).sum(), w.rawBytes(), w.storedBytes(),
                w.nanos() / 1_000_000, w.tables());
        }
    }

    record StatusView(boolean connected, boolean subscribed, String tp, long tpChanges, boolean caughtUp, long lastSequence,
                      Map<String, Long> tables, long rows, long updates, long duplicates, long rejected, long endOfDays,
                      long endOfDayFailures, int lastEndOfDay, String lastEodError, String lastError, WriteDownView writeDown,
                      MemoryView memory) {
    }

    /**
     * Memory: per table, the heap bytes it holds (column chunks, sym index, dictionary cache) and
     * bytes per row; the JVM's heap used, committed and maximum ({@code -Xmx}).
     */
    record MemoryView(Map<String, TableMemoryView> tables, long heapUsedBytes, long heapCommittedBytes, long heapMaxBytes) {
        static MemoryView of(final RealtimeDatabase.Status s) {
            final Map<String, TableMemoryView> t = new LinkedHashMap<>();
            for (final Map.Entry<String, Long> e : s.tableBytes().entrySet()) {
                final long rows = s.tableRows().getOrDefault(e.getKey(), 0L);
                t.put(e.getKey(), new TableMemoryView(rows, e.getValue(), rows == 0 ? 0 : Math.round(e.getValue() * 10.0 / rows) / 10.0));
            }
            final Runtime rt = Runtime.getRuntime();
            return new MemoryView(t, rt.totalMemory() - rt.freeMemory(), rt.totalMemory(), rt.maxMemory());
        }
    }

    /** One table's memory: rows, heap bytes, bytes per row (0 when empty). */
    record TableMemoryView(long rows, long bytes, double bytesPerRow) {
    }

    @Operation(summary = "Subscription, counters, end of day and write-down")
    @ApiResponse(responseCode = "200", description = "the RDB's state",
        content = @Content(schema = @Schema(implementation = StatusView.class),
        examples = @ExampleObject(value = "{\"connected\":true,\"subscribed\":true,\"tp\":\"127.0.0.1:5010\",\"tpChanges\":0,"
            + "\"caughtUp\":true,\"lastSequence\":120345,"
            + "\"tables\":{\"trade\":1203450},\"rows\":1203450,\"updates\":120345,\"duplicates\":0,\"rejected\":0,"
            + "\"endOfDays\":0,\"endOfDayFailures\":0,\"lastEndOfDay\":0,\"lastEodError\":null,\"lastError\":null,"
            + "\"writeDown\":{\"enabled\":true,\"transfer\":\"reload\",\"lastWrite\":null,\"undelivered\":[],\"lastError\":null},"
            + "\"memory\":{\"tables\":{\"trade\":{\"rows\":1203450,\"bytes\":41238016,\"bytesPerRow\":34.3}},"
            + "\"heapUsedBytes\":160432128,\"heapCommittedBytes\":268435456,\"heapMaxBytes\":2147483648}}")))
    @GetMapping("/status")
    StatusView status() {
        final RdbLifecycle sub = subscription.getIfAvailable();
        final HdbWriteDown w = writeDown.getIfAvailable();
        final RealtimeDatabase.Status s = rdb.status();
        return new StatusView(sub != null && sub.connected(), sub != null && sub.subscribed(), sub == null ? null : sub.tickerplant(),
            sub == null ? 0 : sub.tickerplantChanges(), s.caughtUp(), s.lastSequence(),
            s.tableRows(), s.rows(), s.updates(), s.duplicates(), s.rejected(), s.endOfDays(), s.endOfDayFailures(),
            s.lastEndOfDay(), s.lastEodError(), s.lastError(), w == null ? new WriteDownView(false, null, null, List.of(), null)
                : new WriteDownView(true, properties.hdb().transfer(), WrittenView.of(w.last()), w.undelivered(), w.lastError()),
            MemoryView.of(s));
    }
}
