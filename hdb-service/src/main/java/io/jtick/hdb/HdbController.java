package io.jtick.hdb;

import io.jtick.boot.ApiErrors;
import io.jtick.boot.QueryArgs;
import io.jtick.core.hdb.CompressionStudy;
import io.jtick.core.hdb.CompressionStudyCli;
import io.jtick.core.hdb.CorruptPartitionException;
import io.jtick.core.hdb.HistoricalDatabase;
import io.jtick.core.hdb.PartitionTable;
import io.jtick.core.hdb.TierPolicy;
import io.jtick.core.hdb.TieringJob;
import io.jtick.core.rdb.QueryRequest;
import io.jtick.core.rdb.QueryResult;
import io.jtick.core.schema.TableSchema;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The HDB's REST API: {@code GET /api/partitions}, {@code POST /api/reload}, {@code POST /api/query},
 * {@code POST /api/tiering/run}, {@code POST /api/compression-study}, {@code GET /api/status}.
 * Bad input answers 400 with a message ({@link ApiErrors}); a corrupt block answers 500 naming
 * the file and block.
 */
@RestController
@RequestMapping("/api")
class HdbController {
    private static final Logger LOG = LoggerFactory.getLogger(HdbController.class);

    /** Rows returned when a query gives no limit (as the RDB). */
    static final int DEFAULT_LIMIT = 1000;

    private final HdbLifecycle store;
    private final CompressionStudyRunner study;
    private final HdbProperties properties;

    HdbController(final HdbLifecycle store, final CompressionStudyRunner study, final HdbProperties properties) {
        this.store = store;
        this.study = study;
        this.properties = properties;
    }

    /** One partition as listed, with the tier its age puts it in today. */
    record PartitionView(LocalDate date, String tier, List<HistoricalDatabase.TableInfo> tables) {
    }

    /** Dates (oldest first), tables, rows, and per column type, encoding, raw bytes and bytes on disk. */
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

    /** Rescans the root (the RDB calls this after each end-of-day write). */
    @PostMapping("/reload")
    HistoricalDatabase.ReloadReport reload() throws IOException {
        return store.reload();
    }

    /**
     * A query body: the RDB's ({@code table}, {@code syms}, {@code from}/{@code to} as epoch ns or
     * ISO-8601 instants, {@code columns}, {@code limit}) plus the dates: {@code date}, or
     * {@code fromDate}/{@code toDate} (inclusive, each optional; none = every date). The virtual
     * column {@code date} gives each row's partition date.
     */
    record QueryBody(@NotBlank String table, List<String> syms, Object from, Object to, List<String> columns, Integer limit,
                     String date, String fromDate, String toDate) {
    }

    /** Rows in date order, then sym then time within a date (the partitions' order). */
    @PostMapping("/query")
    QueryResult query(@Valid @RequestBody final QueryBody body) throws IOException {
        final LocalDate date = QueryArgs.date("date", body.date());
        LocalDate from = QueryArgs.date("fromDate", body.fromDate());
        LocalDate to = QueryArgs.date("toDate", body.toDate());
        if (date != null) {
            if (from != null || to != null) {
                throw ApiErrors.badRequest("give date or fromDate/toDate, not both [date=" + date + ", fromDate=" + from + ", toDate="
                    + to + "]");
            }
            from = date;
            to = date;
        }
        final int limit = body.limit() == null ? DEFAULT_LIMIT : body.limit();
        final QueryRequest request = new QueryRequest(body.table(), body.syms(), QueryArgs.nanos("from", body.from()),
            QueryArgs.nanos("to", body.to()), body.columns(), limit);
        checkColumns(request);
        return store.hdb().query(request, from, to);
    }

    /** Names unknown columns even when no partition falls in the date range (the newest partition's schema decides). */
    private void checkColumns(final QueryRequest request) {
        if (request.columns().isEmpty()) {
            return;
        }
        final List<PartitionTable> all = store.hdb().acquire(request.table(), null, null);
        try {
            if (all.isEmpty()) {
                return;
            }
            final TableSchema schema = all.get(all.size() - 1).schema();
            for (final String c : request.columns()) {
                if (schema.indexOf(c) < 0 && !"date".equals(c)) {
                    throw new IllegalArgumentException("unknown column [table=" + schema.name() + ", column=" + c + "]");
                }
            }
        } finally {
            all.forEach(PartitionTable::release);
        }
    }

    /** Moves partitions to their tiers now; {@code today} (yyyy-MM-dd) defaults to today in {@code tick.hdb.tiering.zone}. */
    @PostMapping("/tiering/run")
    TieringJob.Report tiering(@RequestParam(name = "today", required = false) final String today) {
        final LocalDate day = QueryArgs.date("today", today);
        return store.runTiering(day == null ? store.today() : day);
    }

    /** A compression-study body; absent fields take the defaults ({@code tick.hdb.study.*}, the KX encoding list). */
    record StudyBody(String date, String table, List<String> encodings, Integer runs, Boolean cold) {
    }

    /** Runs the compression study on a loaded partition table: JSON, or CSV with {@code Accept: text/csv} or {@code ?format=csv}. */
    @PostMapping("/compression-study")
    ResponseEntity<?> compressionStudy(@RequestBody(required = false) final StudyBody body,
                                       @RequestHeader(name = "Accept", required = false) final String accept,
                                       @RequestParam(name = "format", required = false) final String format) throws IOException {
        final StudyBody b = body == null ? new StudyBody(null, null, null, null, null) : body;
        final List<String> encodings = b.encodings() == null || b.encodings().isEmpty() ? CompressionStudyCli.DEFAULT_ENCODINGS
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

    /** What {@code GET /api/status} shows. */
    record StatusView(String root, int partitions, int tables, LocalDate firstDate, LocalDate lastDate, long rows, long bytesOnDisk,
                      LocalDate today, List<TierView> tiers, String tieringSchedule, boolean tieringRunning,
                      TieringJob.Report lastTiering, Instant lastReloadAt, HistoricalDatabase.ReloadReport lastReload,
                      boolean studyRunning) {
    }

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
            store.lastTiering(), reloaded == null ? null : reloaded.at(), reloaded == null ? null : reloaded.report(), study.running());
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
