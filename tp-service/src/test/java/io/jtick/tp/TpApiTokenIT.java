package io.jtick.tp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tickerplant's REST API guarded as off loopback ({@code tick.api.guard=always} on a random
 * loopback port): end of day and mode changes need the token, status does not.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"tick.api.guard=always", "tick.api.token=tp-t0ken", "tick.tp.port=0", "tick.tp.kdb-port=0"})
class TpApiTokenIT {
    @TempDir
    static Path journal;

    @LocalServerPort
    private int httpPort;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @DynamicPropertySource
    static void props(final DynamicPropertyRegistry registry) {
        registry.add("tick.tp.journal-dir", journal::toString);
    }

    private int status(final String method, final String path, final String body, final String token) throws Exception {
        final HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
            .header("Content-Type", "application/json").timeout(Duration.ofSeconds(10))
            .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    @Test
    void shouldAskForTheTokenToEndTheDayOrChangeTheMode() throws Exception {
        assertThat(status("POST", "/api/eod", null, null)).isEqualTo(401);
        assertThat(status("PUT", "/api/mode", "{\"mode\":\"timer-publish\"}", null)).isEqualTo(401);
        assertThat(status("PUT", "/api/mode", "{\"mode\":\"timer-publish\"}", "nope")).isEqualTo(401);
        assertThat(status("GET", "/api/status", null, null)).isEqualTo(200);

        assertThat(status("PUT", "/api/mode", "{\"mode\":\"timer-publish\"}", "tp-t0ken")).isEqualTo(200);
        assertThat(status("POST", "/api/eod", null, "tp-t0ken")).isEqualTo(200);
        assertThat(status("PUT", "/api/mode", "{\"mode\":\"zero-latency\"}", "tp-t0ken")).isEqualTo(200);
    }
}
