package io.jtick.hdb;

import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.format.StoredTable;
import io.jtick.core.table.TableSegment;
import io.jtick.core.testing.Cells;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real hdb-service on a random port over a root of partitions written by the real writer:
 * listing, queries (syms, time range, columns incl. the virtual date, limit, date range), bad
 * queries, reload, tier moves under a running query, and the compression study as JSON and CSV.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class HdbApplicationIT {
    static final LocalDate D1 = LocalDate.of(2026, 11, 18);
    static final LocalDate D2 = LocalDate.of(2026, 11, 19);
    static final LocalDate D3 = LocalDate.of(2026, 11, 20);
    static final LocalDate D4 = LocalDate.of(2026, 11, 21);
    static final List<String> ALL = List.of("date", "time", "sym", "price", "size", "cond");

    @TempDir
    static Path root;

    static TableSegment trade1;
    static TableSegment trade2;
    static TableSegment trade3;

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @LocalServerPort
    private int port;

    @Autowired
    private HdbLifecycle store;

    @DynamicPropertySource
    static void props(final DynamicPropertyRegistry registry) throws IOException {
        trade1 = HdbTestData.writeDay(root, D1, "trade", 2000, 20, 1, EncodingPolicy.PLAIN);
        trade2 = HdbTestData.writeDay(root, D2, "trade", 2000, 20, 2, EncodingPolicy.PLAIN);
        trade3 = HdbTestData.writeDay(root, D3, "trade", 2000, 20, 3, EncodingPolicy.PLAIN);
        HdbTestData.writeDay(root, D3, "quote", 1500, 20, 4, EncodingPolicy.PLAIN);
        Files.createDirectories(root.resolve("not-a-date"));
        Files.writeString(root.resolve("2026-11-17"), "a file, not a partition");
        registry.add("tick.hdb.root", root::toString);
        registry.add("tick.hdb.tiering.enabled", () -> "false");
        registry.add("tick.hdb.tiers[0].name", () -> "hot");
        registry.add("tick.hdb.tiers[0].max-age-days", () -> "1");
        registry.add("tick.hdb.tiers[0].encoding", () -> "plain");
        registry.add("tick.hdb.tiers[1].name", () -> "warm");
        registry.add("tick.hdb.tiers[1].max-age-days", () -> "3");
        registry.add("tick.hdb.tiers[1].encoding", () -> "lz4");
        registry.add("tick.hdb.tiers[2].name", () -> "cold");
        registry.add("tick.hdb.tiers[2].encoding", () -> "auto/zstd:3");
        registry.add("tick.hdb.tiers[2].types.timestamp", () -> "delta+shuffle/zstd:1");
        registry.add("tick.hdb.tiers[2].columns[trade.cond]", () -> "zstd:9");
    }

    private HttpResponse<String> call(final String method, final String path, final String body) throws Exception {
        return HdbTestData.call(port, method, path, body, Map.of());
    }

    private JsonNode ok(final HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private static String json(final Object o) {
        return JSON.writeValueAsString(o);
    }

    /** Expected rows through the same JSON writer and parser as the answer, so numbers compare alike. */
    private static JsonNode tree(final List<List<Object>> rows) {
        return JSON.readTree(json(rows));
    }

    private static JsonNode encodings(final JsonNode partitions, final LocalDate date, final String table) {
        for (final JsonNode p : partitions) {
            if (p.get("date").asString().equals(date.toString())) {
                for (final JsonNode t : p.get("tables")) {
                    if (t.get("table").asString().equals(table)) {
                        final Map<String, String> m = new java.util.LinkedHashMap<>();
                        t.get("columns").forEach(c -> m.put(c.get("name").asString(), c.get("encoding").asString()));
                        return JSON.valueToTree(m);
                    }
                }
            }
        }
        throw new AssertionError("no " + date + "/" + table + " in " + partitions);
    }

    @Test
    void shouldListPartitionsWithRowsBytesAndEncodingPerColumn() throws Exception {
        final JsonNode parts = ok(call("GET", "/api/partitions", null));
        final List<String> dates = new ArrayList<>();
        parts.forEach(p -> dates.add(p.get("date").asString()));
        assertThat(dates).startsWith("2026-11-18", "2026-11-19", "2026-11-20").doesNotContain("2026-11-17");
        final JsonNode d3 = parts.get(2);
        assertThat(d3.get("tables")).hasSize(2);
        assertThat(d3.get("tables").get(0).get("table").asString()).isEqualTo("quote");
        final JsonNode trade = d3.get("tables").get(1);
        assertThat(trade.get("rows").asInt()).isEqualTo(2000);
        assertThat(trade.get("rawBytes").asLong()).isEqualTo(2000L * (8 + 4 + 8 + 8 + 1));
        assertThat(trade.get("bytesOnDisk").asLong()).isPositive();
        final JsonNode price = trade.get("columns").get(2);
        assertThat(price.get("name").asString()).isEqualTo("price");
        assertThat(price.get("type").asString()).isEqualTo("float64");
        assertThat(price.get("rawBytes").asLong()).isEqualTo(2000L * 8);
        // plain until a tiering run (another test) re-encodes it; plain files hold a header and block index besides the values
        if ("none".equals(price.get("encoding").asString())) {
            assertThat(price.get("bytesOnDisk").asLong()).isGreaterThan(2000L * 8);
        } else {
            assertThat(price.get("bytesOnDisk").asLong()).isPositive();
        }
        assertThat(d3.get("tier").asString()).isIn("hot", "warm", "cold");
    }

    @Test
    void shouldAnswerQueriesBySymTimeColumnsLimitAndDate() throws Exception {
        final String sym = Cells.sym(trade2, 0);
        final JsonNode one = ok(call("POST", "/api/query", "{\"table\":\"trade\",\"date\":\"2026-11-19\",\"syms\":[\"" + sym
            + "\"],\"columns\":" + json(ALL) + ",\"limit\":100000}"));
        final List<List<Object>> expected = HdbTestData.expected(D2, trade2, List.of(sym), Long.MIN_VALUE, Long.MAX_VALUE, ALL);
        assertThat(expected).hasSizeGreaterThan(50);
        assertThat(one.get("columns")).isEqualTo(JSON.valueToTree(ALL));
        assertThat(one.get("rows")).isEqualTo(tree(expected));

        // time range: from as epoch ns, to as an ISO instant; both inclusive
        final long from = Cells.time(trade2, 500);
        final long to = Cells.time(trade2, 1500);
        final JsonNode window = ok(call("POST", "/api/query", "{\"table\":\"trade\",\"fromDate\":\"2026-11-19\",\"toDate\":\"2026-11-19\","
            + "\"from\":" + from + ",\"to\":\"" + Instant.ofEpochSecond(0, to) + "\",\"columns\":[\"sym\",\"time\",\"size\"],"
            + "\"limit\":100000}"));
        assertThat(window.get("rows")).isEqualTo(tree(HdbTestData.expected(D2, trade2, null, from, to, List.of("sym", "time", "size"))));

        // a date range: each date's rows in turn, the virtual date column telling them apart
        final String s2 = Cells.sym(trade1, 3);
        final JsonNode range = ok(call("POST", "/api/query", "{\"table\":\"trade\",\"fromDate\":\"2026-11-18\",\"toDate\":\"2026-11-19\","
            + "\"syms\":[\"" + s2 + "\"],\"columns\":[\"date\",\"sym\",\"price\"],\"limit\":100000}"));
        final List<List<Object>> both = new ArrayList<>(HdbTestData.expected(D1, trade1, List.of(s2), Long.MIN_VALUE, Long.MAX_VALUE,
            List.of("date", "sym", "price")));
        both.addAll(HdbTestData.expected(D2, trade2, List.of(s2), Long.MIN_VALUE, Long.MAX_VALUE, List.of("date", "sym", "price")));
        assertThat(range.get("rows")).isEqualTo(tree(both));

        // limit: the first rows in date, sym, time order; no date: every date
        final JsonNode limited = ok(call("POST", "/api/query",
            "{\"table\":\"trade\",\"columns\":[\"date\",\"sym\",\"size\"],\"limit\":5}"));
        assertThat(limited.get("rows")).isEqualTo(tree(HdbTestData.expected(D1, trade1, null, Long.MIN_VALUE, Long.MAX_VALUE,
            List.of("date", "sym", "size")).subList(0, 5)));
        final JsonNode all = ok(call("POST", "/api/query", "{\"table\":\"trade\",\"columns\":[\"size\"],\"limit\":100000}"));
        assertThat(all.get("rows").size()).isGreaterThanOrEqualTo(6000);

        // all columns when none are named (no virtual date then)
        final JsonNode full = ok(call("POST", "/api/query", "{\"table\":\"trade\",\"date\":\"2026-11-20\",\"syms\":[\""
            + Cells.sym(trade3, 0) + "\"],\"limit\":3}"));
        assertThat(full.get("columns")).isEqualTo(JSON.valueToTree(List.of("time", "sym", "price", "size", "cond")));
        assertThat(full.get("rows").get(0).get(4).asString()).hasSize(1);
    }

    @Test
    void shouldAnswer400WithMessageForBadQueries() throws Exception {
        final Object[][] cases = {
            {"{\"table\":\"nope\"}", "unknown table [table=nope]"},
            {"{\"table\":\"trade\",\"columns\":[\"time\",\"bogus\"]}", "unknown column [table=trade, column=bogus]"},
            {"{\"table\":\"trade\",\"date\":\"2001-01-01\",\"columns\":[\"bogus\"]}", "unknown column [table=trade, column=bogus]"},
            {"{\"table\":\"trade\",\"date\":\"yesterday\"}", "bad date [date=yesterday]"},
            {"{\"table\":\"trade\",\"date\":\"2026-11-19\",\"fromDate\":\"2026-11-18\"}", "give date or fromDate/toDate, not both"},
            {"{\"table\":\"trade\",\"fromDate\":\"2026-11-20\",\"toDate\":\"2026-11-18\"}", "from date is after to date"},
            {"{\"table\":\"trade\",\"from\":\"soon\"}", "bad time"},
            {"{\"table\":\"trade\",\"limit\":0}", "limit must be a positive integer"},
            {"{\"syms\":[\"S0001\"]}", "table"},
            {"{\"table\":", "malformed query JSON"},
        };
        for (final Object[] c : cases) {
            final HttpResponse<String> r = call("POST", "/api/query", (String) c[0]);
            assertThat(r.statusCode()).as(c[0] + " -> " + r.body()).isEqualTo(400);
            assertThat(JSON.readTree(r.body()).get("error").asString()).as((String) c[0]).contains((String) c[1]);
        }
        final HttpResponse<String> empty = call("POST", "/api/query",
            "{\"table\":\"trade\",\"date\":\"2001-01-01\",\"columns\":[\"sym\"]}");
        assertThat(ok(empty).get("rows")).isEmpty();
    }

    @Test
    void shouldLoadNewDateOnReload() throws Exception {
        final TableSegment trade4 = HdbTestData.writeDay(root, D4, "trade", 300, 5, 9, EncodingPolicy.PLAIN);
        assertThat(call("POST", "/api/query", "{\"table\":\"trade\",\"date\":\"2026-11-21\"}").body()).contains("\"rows\":[]");
        final JsonNode report = ok(call("POST", "/api/reload", null));
        assertThat(report.get("opened")).isEqualTo(JSON.valueToTree(List.of("2026-11-21/trade")));
        assertThat(report.get("dropped")).isEmpty();
        final JsonNode rows = ok(call("POST", "/api/query", "{\"table\":\"trade\",\"date\":\"2026-11-21\",\"columns\":[\"sym\",\"time\","
            + "\"price\"],\"limit\":1000}")).get("rows");
        assertThat(rows).isEqualTo(tree(HdbTestData.expected(D4, trade4, null, Long.MIN_VALUE, Long.MAX_VALUE,
            List.of("sym", "time", "price"))));
        assertThat(ok(call("GET", "/api/partitions", null)).toString()).contains("\"2026-11-21\"");
        assertThat(ok(call("POST", "/api/reload", null)).get("opened")).isEmpty();
    }

    @Test
    void shouldMoveOldPartitionToItsTierWhileQueriesRun() throws Exception {
        final String sym = Cells.sym(trade1, 7);
        final String q = "{\"table\":\"trade\",\"date\":\"2026-11-18\",\"syms\":[\"" + sym + "\"],\"columns\":" + json(ALL)
            + ",\"limit\":100000}";
        final JsonNode expected = tree(HdbTestData.expected(D1, trade1, List.of(sym), Long.MIN_VALUE, Long.MAX_VALUE, ALL));
        assertThat(encodings(ok(call("GET", "/api/partitions", null)), D1, "trade").get("price").asString()).isEqualTo("none");

        // a reader that holds the old files across the swap, and HTTP queries running throughout
        final List<StoredTable> held = store.hdb().acquire("trade", D1, D1);
        assertThat(held).hasSize(1);
        final AtomicBoolean done = new AtomicBoolean();
        final AtomicInteger answered = new AtomicInteger();
        final CompletableFuture<List<String>> queries = CompletableFuture.supplyAsync(() -> {
            final List<String> wrong = new ArrayList<>();
            do {
                try {
                    final HttpResponse<String> r = call("POST", "/api/query", q);
                    if (r.statusCode() != 200 || !JSON.readTree(r.body()).get("rows").equals(expected)) {
                        wrong.add(r.statusCode() + " " + r.body());
                    }
                    answered.incrementAndGet();
                } catch (final Exception e) {
                    wrong.add(e.toString());
                }
            } while (!done.get());
            return wrong;
        });
        final JsonNode report;
        try {
            report = ok(call("POST", "/api/tiering/run?today=2026-11-20", null));
        } finally {
            done.set(true);
        }
        assertThat(queries.get(60, TimeUnit.SECONDS)).isEmpty();
        assertThat(answered.get()).isPositive();
        assertThat(report.get("moved")).hasSize(1);
        assertThat(report.get("moved").get(0).get("date").asString()).isEqualTo("2026-11-18");
        assertThat(report.get("moved").get(0).get("tier").asString()).isEqualTo("warm");
        assertThat(report.get("failed")).isEmpty();
        try {
            final StoredTable old = held.get(0);
            final List<List<Object>> fromOldFiles = new ArrayList<>();
            for (final int r : Cells.symRows(old, sym)) {
                final List<Object> row = new ArrayList<>();
                row.add(D1.toString());
                for (int c = 0; c < old.schema().columnCount(); c++) {
                    row.add(Cells.cell(old, c, r));
                }
                fromOldFiles.add(row);
            }
            assertThat(tree(fromOldFiles)).isEqualTo(expected);
        } finally {
            held.forEach(StoredTable::release);
        }
        JsonNode enc = encodings(ok(call("GET", "/api/partitions", null)), D1, "trade");
        assertThat(enc).isEqualTo(JSON.valueToTree(Map.of("time", "lz4", "sym", "none", "price", "lz4", "size", "lz4",
            "cond", "lz4")));
        assertThat(encodings(ok(call("GET", "/api/partitions", null)), D2, "trade").get("price").asString()).isEqualTo("none");
        assertThat(ok(call("POST", "/api/query", q)).get("rows")).isEqualTo(expected);

        // three days later D1 is cold: per-type and per-column overrides from the configuration apply
        final JsonNode later = ok(call("POST", "/api/tiering/run?today=2026-11-23", null));
        assertThat(later.get("failed")).isEmpty();
        enc = encodings(ok(call("GET", "/api/partitions", null)), D1, "trade");
        assertThat(enc.get("time").asString()).isEqualTo("delta+shuffle/zstd:1");
        assertThat(enc.get("cond").asString()).isEqualTo("zstd:9");
        assertThat(enc.get("price").asString()).endsWith("zstd:3");
        assertThat(enc.get("sym").asString()).isEqualTo("none");
        assertThat(encodings(ok(call("GET", "/api/partitions", null)), D3, "quote").get("bid").asString()).isEqualTo("lz4");
        assertThat(ok(call("POST", "/api/query", q)).get("rows")).isEqualTo(expected);
        assertThat(call("POST", "/api/tiering/run?today=someday", null).statusCode()).isEqualTo(400);
    }

    @Test
    void shouldRunCompressionStudyAsJsonAndCsv() throws Exception {
        final String body = "{\"date\":\"2026-11-20\",\"table\":\"quote\",\"encodings\":[\"lz4\",\"zstd:1\"],\"runs\":1,\"cold\":false}";
        final JsonNode r = ok(call("POST", "/api/compression-study", body));
        assertThat(r.get("table").asString()).isEqualTo("quote");
        assertThat(r.get("rows").asInt()).isEqualTo(1500);
        assertThat(r.get("encodings")).isEqualTo(JSON.valueToTree(List.of("none", "lz4", "zstd:1")));
        assertThat(r.get("columns")).hasSize(6 * 3);
        assertThat(r.get("columns").get(0).get("sizePct").asDouble()).isEqualTo(100.0);
        assertThat(r.get("queries")).hasSize(4 * 3);
        assertThat(r.get("coldMeasured").asBoolean()).isFalse();

        final HttpResponse<String> csv = HdbTestData.call(port, "POST", "/api/compression-study", body, Map.of("Accept", "text/csv"));
        assertThat(csv.statusCode()).isEqualTo(200);
        assertThat(csv.headers().firstValue("Content-Type").orElse("")).startsWith("text/csv");
        final String[] lines = csv.body().split("\n", -1);
        assertThat(lines[0]).isEqualTo("column,type,encoding,raw_bytes,stored_bytes,size_pct,write_ms,write_ratio");
        assertThat(lines[1]).startsWith("time,timestamp,none,12000,12000,100.0000,");
        assertThat(lines[19]).isEmpty();
        assertThat(lines[20]).isEqualTo("query,encoding,hot_ms,hot_ratio,cold_ms,cold_ratio");
        assertThat(lines).hasSize(1 + 18 + 1 + 1 + 12 + 1);

        final HttpResponse<String> unknown = call("POST", "/api/compression-study", "{\"date\":\"2001-01-01\",\"table\":\"quote\"}");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(unknown.body()).contains("unknown partition [date=2001-01-01, table=quote]");
        final HttpResponse<String> bad = call("POST", "/api/compression-study", "{\"date\":\"2026-11-20\",\"encodings\":[\"lz5\"]}");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("bad encoding [encoding=lz5]");
        assertThat(call("POST", "/api/compression-study", "{\"date\":\"2026-11-20\",\"runs\":0}").statusCode()).isEqualTo(400);
    }

    @Test
    void shouldReportStatusHealthAndMetrics() throws Exception {
        final JsonNode status = ok(call("GET", "/api/status", null));
        assertThat(status.get("partitions").asInt()).isGreaterThanOrEqualTo(3);
        assertThat(status.get("tieringSchedule").asString()).isEqualTo("off");
        assertThat(status.get("tiers").get(1).get("encoding").asString()).isEqualTo("lz4");
        assertThat(status.get("tiers").get(2).get("columns").get("trade.cond").asString()).isEqualTo("zstd:9");
        assertThat(status.get("lastReload").get("partitions").asInt()).isGreaterThanOrEqualTo(3);
        assertThat(call("GET", "/actuator/health", null).body()).contains("\"status\":\"UP\"");
        ok(call("POST", "/api/query", "{\"table\":\"trade\",\"limit\":1}"));
        final String prom = call("GET", "/actuator/prometheus", null).body();
        assertThat(prom).contains("tick_hdb_partitions", "tick_query_rows_total{application=\"hdb-service\",service=\"hdb\"}",
            "tick_hdb_reloads_total", "tick_hdb_tiering_runs_total",
            "tick_query_seconds_count{application=\"hdb-service\",service=\"hdb\"}",
            "tick_query_seconds_bucket{application=\"hdb-service\",service=\"hdb\",le=\"+Inf\"}");
    }
}
