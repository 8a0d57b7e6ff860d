package io.jtick.hdb;

import io.jtick.core.hdb.write.EncodingPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real hdb-service with a Parquet tier: a day moves to {@code parquet/zstd} by the tiering job
 * and answers as before; {@code POST /api/export} writes it as a Hive-style folder;
 * {@code POST /api/import} with source {@code parquet} loads that folder back; a misfit is refused
 * naming the column.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"tick.hdb.tiering.enabled=false", "tick.hdb.tiers[0].name=hot", "tick.hdb.tiers[0].max-age-days=1",
        "tick.hdb.tiers[0].encoding=none", "tick.hdb.tiers[1].name=lake", "tick.hdb.tiers[1].encoding=parquet/zstd",
        "tick.hdb.retention.quote=hot P1D, delete"})
class HdbParquetIT {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 20);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String VWAP = "{\"table\":\"trade\",\"fromDate\":\"2026-11-20\",\"toDate\":\"2026-11-20\",\"select\":{\"n\":"
        + "{\"count\":\"*\"},\"vwap\":{\"wavg\":[\"size\",\"price\"]}},\"by\":\"sym\"}";

    @TempDir
    static Path root;
    @TempDir
    static Path lake;

    @LocalServerPort
    private int port;

    @DynamicPropertySource
    static void props(final DynamicPropertyRegistry registry) {
        registry.add("tick.hdb.root", root::toString);
        registry.add("tick.hdb.export.dir", lake::toString);
        registry.add("tick.hdb.import.data-dir", lake::toString);
    }

    private HttpResponse<String> call(final String method, final String path, final String body) throws Exception {
        return HdbTestData.call(port, method, path, body, Map.of());
    }

    private static JsonNode rows(final HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body()).get("rows");
    }

    @Test
    void shouldTierToParquetExportAndImportBack() throws Exception {
        HdbTestData.writeDay(root, DAY, "trade", 20_000, 15, 5, EncodingPolicy.PLAIN);
        HdbTestData.writeDay(root, DAY, "quote", 2_000, 15, 6, EncodingPolicy.PLAIN);
        assertThat(call("POST", "/api/reload", null).statusCode()).isEqualTo(200);
        final JsonNode before = rows(call("POST", "/api/query", VWAP));

        final JsonNode dry = JSON.readTree(call("POST", "/api/tiering/run?today=2026-12-31&dryRun=true", null).body());
        assertThat(dry.get("dryRun").asBoolean()).isTrue();
        assertThat(dry.get("moved").get(0).get("table").asString()).isEqualTo("trade");
        assertThat(dry.get("deleted").get(0).get("table").asString()).as("quote: past its retention").isEqualTo("quote");
        assertThat(Files.exists(root.resolve("2026-11-20/quote"))).as("a dry run changes nothing").isTrue();

        final HttpResponse<String> tiered = call("POST", "/api/tiering/run?today=2026-12-31", null);
        assertThat(tiered.statusCode()).as(tiered.body()).isEqualTo(200);
        assertThat(JSON.readTree(tiered.body()).get("moved").get(0).get("tier").asString()).isEqualTo("lake");
        assertThat(JSON.readTree(tiered.body()).get("deleted").get(0).get("table").asString()).isEqualTo("quote");
        assertThat(Files.exists(root.resolve("2026-11-20/quote"))).isFalse();
        assertThat(Files.readString(root.resolve("tiering-audit.jsonl"))).contains("\"action\":\"move\"", "\"action\":\"delete\"");
        final JsonNode parts = JSON.readTree(call("GET", "/api/partitions", null).body());
        assertThat(parts.get(0).get("tables").get(0).get("format").asString()).isEqualTo("parquet/zstd");
        assertThat(rows(call("POST", "/api/query", VWAP))).isEqualTo(before);

        final HttpResponse<String> exported = call("POST", "/api/export", "{\"from\":\"2026-11-20\",\"dir\":\"out\"}");
        assertThat(exported.statusCode()).as(exported.body()).isEqualTo(200);
        assertThat(Files.exists(lake.resolve("out/date=2026-11-20/trade.parquet"))).isTrue();
        assertThat(call("POST", "/api/export", "{\"from\":\"2026-11-20\",\"dir\":\"../x\"}").statusCode()).isEqualTo(400);
        assertThat(call("POST", "/api/export", "{\"from\":\"2026-11-20\",\"compression\":\"gzip\"}").body()).contains("gzip");

        final HttpResponse<String> started = call("POST", "/api/import", "{\"source\":\"parquet\",\"table\":\"trade\",\"file\":\"out\","
            + "\"zone\":\"America/New_York\"}");
        assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
        final String id = JSON.readTree(started.body()).get("id").asString();
        JsonNode report = JSON.readTree(call("GET", "/api/import/" + id, null).body());
        final long deadline = System.nanoTime() + 60_000_000_000L;
        while ("running".equals(report.get("state").asString()) && System.nanoTime() < deadline) {
            Thread.sleep(50);
            report = JSON.readTree(call("GET", "/api/import/" + id, null).body());
        }
        assertThat(report.get("state").asString()).as(report.toString()).isEqualTo("done");
        assertThat(report.get("rowsWritten").asLong()).isEqualTo(20_000);
        assertThat(rows(call("POST", "/api/query", VWAP))).isEqualTo(before);
    }
}
