package io.jtick.hdb;

import io.jtick.core.client.TickClient;
import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.table.TableSegment;
import io.jtick.core.testing.ReplayRows;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.ControlFrames;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
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
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real hdb-service on random ports: a replay over its replay port read by a {@code TickClient},
 * {@code GET/DELETE /api/replays}, the bulk import over REST followed by a replay of the imported
 * day, bad requests, and the replay metrics on {@code /actuator/prometheus}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class HdbReplayIT {
    static final LocalDate D1 = LocalDate.of(2026, 10, 5);
    static final LocalDate D2 = LocalDate.of(2026, 10, 6);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    static Path root;

    @TempDir
    static Path data;

    static TableSegment day1;
    static TableSegment day2;

    @LocalServerPort
    private int port;

    @DynamicPropertySource
    static void props(final DynamicPropertyRegistry registry) throws IOException {
        day1 = HdbTestData.writeDay(root, D1, "trade", 5_000, 20, 1, EncodingPolicy.PLAIN);
        day2 = HdbTestData.writeDay(root, D2, "trade", 5_000, 20, 2, EncodingPolicy.uniform(ColumnEncoding.parse("auto/zstd:3")));
        registry.add("tick.hdb.root", root::toString);
        registry.add("tick.hdb.tiering.enabled", () -> "false");
        registry.add("tick.hdb.import.data-dir", data::toString);
    }

    private JsonNode ok(final String method, final String path, final String body, final int status) throws Exception {
        final HttpResponse<String> r = HdbTestData.call(port, method, path, body, Map.of());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        return JSON.readTree(r.body());
    }

    private int replayPort() throws Exception {
        return ok("GET", "/api/status", null, 200).get("replayPort").asInt();
    }

    @Test
    void shouldReplayOverTheReplayPortAndListTheReplay() throws Exception {
        final int replayPort = replayPort();
        assertThat(replayPort).isPositive();
        final ReplayRows.Consumer c = ReplayRows.replay(replayPort,
            ControlFrames.Replay.of(List.of("trade"), (int) D1.toEpochDay(), (int) D2.toEpochDay()).withRowsPerUpdate(1000));
        final List<String> expected = new java.util.ArrayList<>(ReplayRows.expected(List.of(day1), null));
        expected.addAll(ReplayRows.expected(List.of(day2), null));
        assertThat(c.rows).containsExactlyElementsOf(expected);
        assertThat(c.done.statusName()).isEqualTo("complete");
        final JsonNode replays = ok("GET", "/api/replays", null, 200);
        assertThat(replays.get("port").asInt()).isEqualTo(replayPort);
        final JsonNode last = replays.get("replays").get(0);
        assertThat(last.get("consumer").asString()).isEqualTo("test-consumer");
        assertThat(last.get("state").asString()).isEqualTo("complete");
        assertThat(last.get("rowsSent").asLong()).isEqualTo(10_000);
        assertThat(last.get("totalRows").asLong()).isEqualTo(10_000);
        assertThat(last.get("progress").asDouble()).isEqualTo(100.0);

        final ReplayRows.Consumer bad = ReplayRows.replay(replayPort, ControlFrames.Replay.of(List.of("trade"), (int) D2.toEpochDay(),
            (int) D1.toEpochDay()));
        assertThat(bad.errors).singleElement().asString().startsWith("bad-replay: date range ends before it starts");
        final String metrics = HdbTestData.call(port, "GET", "/actuator/prometheus", null, Map.of()).body();
        assertThat(metrics).contains("tick_hdb_replay_rows_total").contains("tick_hdb_replay_encode_seconds_bucket")
            .contains("tick_hdb_replay_errors_total{application=\"hdb-service\",code=\"bad-replay\"}")
            .contains("tick_hdb_replay_ended_total{application=\"hdb-service\",status=\"complete\"}");
    }

    @Test
    void shouldCancelARunningReplayWithDelete() throws Exception {
        final ReplayRows.Consumer c = new ReplayRows.Consumer();
        try (TickClient client = TickClient.replay(TickClient.Settings.of("127.0.0.1", replayPort(), "paced"),
            ControlFrames.Replay.of(List.of("trade"), (int) D1.toEpochDay(), (int) D1.toEpochDay()).withSpeed(1), c, null,
            NanoClock.SYSTEM)) {
            client.start();
            TestSupport.await("a paced replay running", Duration.ofSeconds(10), () -> !c.rows.isEmpty());
            long id = -1;
            for (final JsonNode r : ok("GET", "/api/replays", null, 200).get("replays")) {
                if ("paced".equals(r.get("consumer").asString()) && "running".equals(r.get("state").asString())) {
                    id = r.get("id").asLong();
                    assertThat(r.get("pace").asString()).isEqualTo("recorded");
                    assertThat(r.get("progress").asDouble()).isLessThan(100);
                }
            }
            assertThat(id).isPositive();
            assertThat(ok("GET", "/api/status", null, 200).get("replays").toString()).contains("\"consumer\":\"paced\"");
            ok("DELETE", "/api/replays/" + id, null, 202);
            c.awaitEnd(Duration.ofSeconds(10));
            assertThat(c.done.statusName()).isEqualTo("cancelled");
            assertThat(c.done.message()).contains("DELETE /api/replays/" + id);
            ok("DELETE", "/api/replays/" + id, null, 404);
        }
    }

    @Test
    void shouldImportAFileOverRestAndReplayTheImportedDay() throws Exception {
        Files.writeString(data.resolve("trades.csv"), "DT,EX,SYMBOL,COND,SIZE,PRICE,CORR\n"
            + "2025-06-02T14:00:00.000Z,P,ABC,,100,10.5,0\n"
            + "2025-06-02T14:00:01.000Z,P,XYZ,,oops,10.5,0\n"
            + "2025-06-02T14:00:02.000Z,P,XYZ,,300,20.25,0\n"
            + "2025-06-03T14:00:00.000Z,P,ABC,,50,10.75,0\n");
        final JsonNode started = ok("POST", "/api/import", "{\"source\":\"taq\",\"file\":\"trades.csv\",\"encoding\":\"lz4\"}", 202);
        final String id = started.get("id").asString();
        TestSupport.await("the import ends", Duration.ofSeconds(30), () -> {
            try {
                return !"running".equals(ok("GET", "/api/import/" + id, null, 200).get("state").asString());
            } catch (final Exception e) {
                throw new IllegalStateException(e);
            }
        });
        final JsonNode done = ok("GET", "/api/import/" + id, null, 200);
        assertThat(done.get("state").asString()).isEqualTo("done");
        assertThat(done.get("rowsWritten").asLong()).isEqualTo(3);
        assertThat(done.get("badLines").asLong()).isEqualTo(1);
        assertThat(done.get("badLineSamples").get(0).asString()).contains("trades.csv").contains("line=3");
        assertThat(done.get("dates")).hasSize(2);
        TestSupport.await("the imported dates are loaded", Duration.ofSeconds(10), () -> {
            try {
                return ok("GET", "/api/partitions", null, 200).toString().contains("2025-06-03");
            } catch (final Exception e) {
                throw new IllegalStateException(e);
            }
        });
        final ReplayRows.Consumer c = ReplayRows.replay(replayPort(), ControlFrames.Replay.of(List.of("trade"),
            (int) LocalDate.of(2025, 6, 2).toEpochDay(), (int) LocalDate.of(2025, 6, 3).toEpochDay()));
        assertThat(c.rows).containsExactly(
            "trade|2025-06-02T14:00:00Z|ABC|10.5|100|' '".replace("' '", " "),
            "trade|2025-06-02T14:00:02Z|XYZ|20.25|300| ",
            "trade|2025-06-03T14:00:00Z|ABC|10.75|50| ");
        assertThat(ok("GET", "/api/import", null, 200).get(0).get("id").asString()).isEqualTo(id);

        assertThat(ok("POST", "/api/import", "{\"source\":\"taq\",\"file\":\"../outside.csv\"}", 400).get("error").asString())
            .contains("file outside the import folder");
        assertThat(ok("POST", "/api/import", "{\"source\":\"csv\"}", 400).get("error").asString()).contains("unknown file source");
        assertThat(ok("POST", "/api/import", "{\"source\":\"taq\",\"file\":\"missing.csv\"}", 202).get("id").asString()).isNotBlank();
        ok("GET", "/api/import/nope", null, 404);
    }
}
