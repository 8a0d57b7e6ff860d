package io.jtick.hdb;

import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.ops.PartitionArchive;
import io.jtick.core.table.TableSegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.ByteArrayOutputStream;
import java.net.HttpURLConnection;
import java.net.ProtocolException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code PUT /api/partitions/{date}} on the real hdb-service, guarded as off loopback
 * ({@code tick.api.guard=always} on a random loopback port): a day written elsewhere arrives as a
 * zip, is installed and answers queries; without the token nothing that changes the HDB is allowed
 * (import, reload, tiering, compression study) while queries still are; a bad archive changes nothing.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"tick.api.guard=always", "tick.api.token=hdb-t0ken", "tick.hdb.tiering.enabled=false"})
class HdbPartitionImportIT {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 20);
    private static final Map<String, String> TOKEN = Map.of("Authorization", "Bearer hdb-t0ken");
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    static Path root;

    @TempDir
    static Path elsewhere;

    @LocalServerPort
    private int port;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @DynamicPropertySource
    static void props(final DynamicPropertyRegistry registry) {
        registry.add("tick.hdb.root", root::toString);
    }

    private HttpResponse<String> put(final String path, final byte[] body, final String contentType, final Map<String, String> headers)
        throws Exception {
        final HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(60))
            .header("Content-Type", contentType).PUT(HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(b::header);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldInstallADaySentAsAZipOnlyWithTheToken() throws Exception {
        final TableSegment trade = HdbTestData.writeDay(elsewhere, DAY, "trade", 3000, 20, 7, EncodingPolicy.PLAIN);
        final ByteArrayOutputStream zip = new ByteArrayOutputStream();
        PartitionArchive.write(elsewhere.resolve(DAY.toString()), List.of("trade"), zip);

        assertThat(put("/api/partitions/" + DAY, zip.toByteArray(), "application/zip", Map.of()).statusCode()).isEqualTo(401);
        assertThat(HdbTestData.call(port, "POST", "/api/reload", null, Map.of()).statusCode()).isEqualTo(401);
        assertThat(HdbTestData.call(port, "POST", "/api/tiering/run", null, Map.of()).statusCode()).isEqualTo(401);
        assertThat(HdbTestData.call(port, "POST", "/api/compression-study", "{}", Map.of()).statusCode()).isEqualTo(401);
        assertThat(HdbTestData.call(port, "GET", "/api/partitions", null, Map.of()).body()).isEqualTo("[]");

        final HttpResponse<String> in = put("/api/partitions/" + DAY, zip.toByteArray(), "application/zip", TOKEN);
        assertThat(in.statusCode()).as(in.body()).isEqualTo(200);
        final JsonNode installed = JSON.readTree(in.body());
        assertThat(installed.get("rows").asLong()).isEqualTo(3000);
        assertThat(installed.get("tables").toString()).isEqualTo("[\"trade\"]");

        final HttpResponse<String> q = HdbTestData.call(port, "POST", "/api/query", "{\"table\":\"trade\",\"date\":\"" + DAY
            + "\",\"columns\":[\"date\",\"time\",\"sym\",\"price\",\"size\",\"cond\"],\"limit\":100000}", Map.of());
        assertThat(q.statusCode()).as("queries need no token").isEqualTo(200);
        final JsonNode rows = JSON.readTree(q.body()).get("rows");
        assertThat(rows.size()).isEqualTo(3000);
        assertThat(rows.equals(JSON.readTree(JSON.writeValueAsString(HdbTestData.expected(DAY, trade, null, Long.MIN_VALUE,
            Long.MAX_VALUE, List.of("date", "time", "sym", "price", "size", "cond")))))).as("the rows sent, in partition order").isTrue();
        assertThat(HdbTestData.call(port, "POST", "/api/reload", null, TOKEN).statusCode()).isEqualTo(200);
    }

    @Test
    void shouldRefuseAnUploadWithTheWrongTokenBeforeItsBodyIsSent() throws Exception {
        final HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + "/api/partitions/" + DAY).toURL()
            .openConnection();
        c.setRequestMethod("PUT");
        c.setDoOutput(true);
        c.setFixedLengthStreamingMode(1L << 30);
        c.setRequestProperty("Content-Type", "application/zip");
        c.setRequestProperty("Expect", "100-continue");
        c.setRequestProperty("Authorization", "Bearer wrong");
        c.setReadTimeout(30_000);
        try {
            assertThatThrownBy(c::getOutputStream).as("no 100 Continue: not one byte of the 1 GiB body goes out")
                .isInstanceOf(ProtocolException.class);
            assertThat(c.getResponseCode()).isEqualTo(401);
        } finally {
            c.disconnect();
        }
    }

    @Test
    void shouldRefuseABadArchiveAndChangeNothing() throws Exception {
        final HttpResponse<String> garbage = put("/api/partitions/2026-11-19", "not a zip".getBytes(), "application/zip", TOKEN);
        assertThat(garbage.statusCode()).isEqualTo(400);
        assertThat(garbage.body()).contains("holds no table");
        assertThat(put("/api/partitions/yesterday", new byte[0], "application/zip", TOKEN).statusCode()).isEqualTo(400);
        assertThat(put("/api/partitions/2026-11-19", new byte[0], "text/plain", TOKEN).statusCode()).isEqualTo(415);
        try (Stream<Path> s = Files.list(root)) {
            assertThat(s.map(p -> p.getFileName().toString())).doesNotContain("2026-11-19").noneMatch(n -> n.startsWith(".tmp-"));
        }
    }
}
