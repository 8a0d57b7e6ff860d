package io.jtick.hdb;

import io.jtick.boot.OpenApiContract;
import io.jtick.core.hdb.write.EncodingPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HDB's OpenAPI document against the real service over a partition of the examples' day: every
 * request mapping documented, every operation with a summary, an example and its error answers, and
 * every documented example request accepted. Two are sent elsewhere: the partition upload takes a zip
 * that no JSON example holds (EndOfDayUploadIT and HdbPartitionImportIT send real ones), and the
 * gateway's examples need an RDB (system-tests GatewayIT sends them to a real one).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class HdbOpenApiIT {
    @TempDir
    static Path root;

    @LocalServerPort
    private int port;

    @Autowired
    private ApplicationContext context;

    @DynamicPropertySource
    static void props(final DynamicPropertyRegistry registry) throws IOException {
        final LocalDate day = LocalDate.parse(HdbController.EXAMPLE_DATE);
        HdbTestData.writeDay(root, day, "trade", 3000, 20, 1, EncodingPolicy.PLAIN);
        HdbTestData.writeDay(root, day, "quote", 2000, 20, 2, EncodingPolicy.PLAIN);
        registry.add("tick.hdb.root", root::toString);
        registry.add("tick.hdb.tiering.enabled", () -> "false");
        registry.add("tick.hdb.export.dir", () -> root.resolve("export").toString());
    }

    @Test
    void shouldDocumentEveryEndpointWithExamplesTheServiceAccepts() {
        final OpenApiContract api = OpenApiContract.fetch(context, port);
        assertThat(api.assertEveryMappingDocumented(context)).containsExactlyInAnyOrder(
            "GET /api/partitions", "POST /api/reload", "POST /api/query", "POST /api/gateway/query", "POST /api/tiering/run",
            "POST /api/sql", "POST /api/gateway/sql",
            "POST /api/compression-study", "GET /api/status", "PUT /api/partitions/{date}", "GET /api/replays",
            "DELETE /api/replays/{replayId}", "POST /api/import", "GET /api/import", "GET /api/import/{importId}", "POST /api/export");
        api.assertEveryOperationDescribed();
        // the import example first, so that GET /api/import/{importId} names an import this service holds
        final String started = api.sendExamples("POST /api/import", Map.of()).get(0);
        final String id = started.replaceAll(".*\"id\":\"([^\"]+)\".*", "$1");
        // DELETE /api/replays/{replayId} needs a running replay: HdbReplayIT stops one
        assertThat(api.assertExamplesAccepted(Map.of("importId", id), Set.of("PUT /api/partitions/{date}", "POST /api/gateway/query",
            "POST /api/gateway/sql", "DELETE /api/replays/{replayId}", "POST /api/import")))
            .hasSize(14); // partitions, reload, 3 queries, 2 SQL statements, tiering, study,
        // status, replays, the imports, the one import and the export
    }
}
