package io.jtick.hdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class HdbApplicationTest {
    @TempDir
    static Path root;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @LocalServerPort
    private int port;

    @DynamicPropertySource
    static void hdbRoot(final DynamicPropertyRegistry registry) throws IOException {
        Files.createDirectories(root.resolve("2026-11-20"));
        Files.createDirectories(root.resolve("2026-11-19"));
        Files.createDirectories(root.resolve("not-a-date"));
        Files.writeString(root.resolve("2026-11-18"), "a file, not a partition");
        registry.add("tick.hdb.root", root::toString);
    }

    @Test
    void shouldListDatedDirectoriesOldestFirst() throws Exception {
        final HttpResponse<String> response = get("/api/partitions");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body().replace(" ", "")).isEqualTo("[\"2026-11-19\",\"2026-11-20\"]");
    }

    @Test
    void shouldReportHealthUp() throws Exception {
        final HttpResponse<String> response = get("/actuator/health");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"status\":\"UP\"");
    }

    @Test
    void shouldExposePrometheus() throws Exception {
        final HttpResponse<String> response = get("/actuator/prometheus");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("jvm_memory_used_bytes");
    }

    private HttpResponse<String> get(final String path) throws IOException, InterruptedException {
        final HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10)).GET().build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
