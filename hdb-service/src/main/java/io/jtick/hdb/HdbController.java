package io.jtick.hdb;

import io.jtick.boot.ApiErrors;
import io.jtick.boot.QueryArgs;
import io.jtick.core.hdb.CompressionStudy;
import io.jtick.core.hdb.CorruptPartitionException;
import io.jtick.core.hdb.DecodedBlockCache;
import io.jtick.core.hdb.HistoricalDatabase;
import io.jtick.core.hdb.PartitionArchive;
import io.jtick.core.hdb.TierPolicy;
import io.jtick.core.hdb.TieringJob;
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
 * The HDB's REST API: {@code GET /api/partitions}, {@code POST /api/reload}, {@code POST /api/query},
 * {@code POST /api/gateway/query}, {@code POST /api/tiering/run}, {@code POST /api/compression-study},
 * {@code PUT /api/partitions/{date}}, {@code GET /api/status}.
 * Bad input answers 400 with a message ({@link ApiErrors}); a corrupt block answers 500 naming
 * the file and block.
 */
@RestController
@RequestMapping("/api")
class HdbController {
    private static final Logger LOG = LoggerFactory.getLogger(HdbController.class);

    private final HdbLifecycle store;
    private final CompressionStudyRunner study;
    private final HdbProperties properties;
    private final HdbConfiguration.HdbQueries queries;

    HdbController(final HdbLifecycle store, final CompressionStudyRunner study, final HdbProperties properties,
                  final HdbConfiguration.HdbQueries queries) {
        this.store = store;
        this.study = study;
        this.properties = properties;
        this.queries = queries;
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

    /** What {@code PUT /api/partitions/{date}} installed, and the reload that followed. */
    record ImportView(LocalDate date, List<String> tables, long rows, long bytes) {
    }

    /**
     * Installs a partition sent as a zip of {@code <table>/<file>} entries
     * ({@link io.jtick.core.hdb.PartitionArchive}; an RDB's end of day when the two share no
     * directory, or an operator's import): received, verified, then each table swapped in (replacing
     * the date's table of the same name), then reloaded. A bad archive answers 400 and changes nothing.
     */
    @PutMapping(value = "/partitions/{date}", consumes = {"application/zip", "application/octet-stream"})
    ImportView importPartition(@PathVariable("date") final String date, final InputStream body) throws IOException {
        final LocalDate day = QueryArgs.date("date", date);
        final PartitionArchive.Installed in = store.importPartition(body, day);
        return new ImportView(in.date(), in.tables(), in.rows(), in.bytes());
    }

    /** Rescans the root (the RDB calls this after each end-of-day write). */
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
    @PostMapping("/query")
    void query(@RequestBody final String body, @RequestHeader(value = HttpHeaders.ACCEPT, required = false) final String accept,
               final HttpServletResponse response) throws IOException {
        queries.hdbEndpoint().handle(body, accept, queries.hdbSource(), Map.of(), response);
    }

    /**
     * The gateway: the same query document over a date range that may include today, answered from
     * the HDB's partitions plus the RDB at {@code tick.hdb.gateway.rdb-url} (today's rows fetched
     * over REST), merged by one engine run so aggregates, medians, bars and as-of joins span the
     * day boundary exactly. 503 when no RDB is configured or it cannot be reached.
     */
    @PostMapping("/gateway/query")
    void gatewayQuery(@RequestBody final String body, @RequestHeader(value = HttpHeaders.ACCEPT, required = false) final String accept,
                      final HttpServletResponse response) throws IOException {
        if (queries.gatewaySource() == null) {
            throw new ApiErrors.ApiException(HttpStatus.SERVICE_UNAVAILABLE,
                "no RDB for the gateway: set tick.hdb.gateway.rdb-url (like http://127.0.0.1:8011)");
        }
        queries.gatewayEndpoint().handle(body, accept, queries.gatewaySource(), Map.of(), response);
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

    /** What {@code GET /api/status} shows. */
    record StatusView(String root, int partitions, int tables, LocalDate firstDate, LocalDate lastDate, long rows, long bytesOnDisk,
                      LocalDate today, List<TierView> tiers, String tieringSchedule, boolean tieringRunning,
                      TieringJob.Report lastTiering, Instant lastReloadAt, HistoricalDatabase.ReloadReport lastReload,
                      boolean studyRunning, CacheView decodedBlockCache) {
    }

    /** The process's decoded-block cache: its bound and use ({@code tick.hdb.decoded-block-cache}). */
    record CacheView(long capacityBytes, long bytes, long hits, long misses) {
        static CacheView of(final DecodedBlockCache c) {
            return new CacheView(c.capacityBytes(), c.bytes(), c.hits(), c.misses());
        }
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
            store.lastTiering(), reloaded == null ? null : reloaded.at(), reloaded == null ? null : reloaded.report(), study.running(),
            CacheView.of(DecodedBlockCache.shared()));
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
