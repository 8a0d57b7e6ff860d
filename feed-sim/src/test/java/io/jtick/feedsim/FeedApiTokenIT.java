package io.jtick.feedsim;

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
 * feed-sim's API guarded as off loopback ({@code tick.api.guard=always} on a random loopback port):
 * starting and stopping the feed and starting or stopping a run need the token; reading the feed
 * and the runs does not, unless reads are protected too.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"tick.api.guard=always", "tick.api.token=feed-t0ken", "tick.feed.tp-port=1"})
class FeedApiTokenIT {
    @TempDir
    static Path runs;

    @LocalServerPort
    private int port;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @DynamicPropertySource
    static void props(final DynamicPropertyRegistry registry) {
        registry.add("tick.feed.runs-dir", runs::toString);
    }

    private HttpResponse<String> call(final String method, final String path, final String body, final String token) throws Exception {
        final HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .header("Content-Type", "application/json").timeout(Duration.ofSeconds(10))
            .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("X-Api-Token", token);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldAskForTheTokenToStartLoad() throws Exception {
        assertThat(call("POST", "/api/feed/stop", null, null).statusCode()).isEqualTo(401);
        assertThat(call("POST", "/api/feed/start", "{\"table\":\"trade\"}", null).statusCode()).isEqualTo(401);
        assertThat(call("POST", "/api/runs", "{\"experiment\":\"rows-per-update\"}", null).statusCode()).isEqualTo(401);
        assertThat(call("DELETE", "/api/runs/nope", null, null).statusCode()).isEqualTo(401);
        assertThat(call("POST", "/api/feed/stop", null, "wrong").statusCode()).isEqualTo(401);
        assertThat(call("GET", "/api/feed", null, null).statusCode()).isEqualTo(200);
        assertThat(call("GET", "/api/runs", null, null).statusCode()).isEqualTo(200);

        final HttpResponse<String> stop = call("POST", "/api/feed/stop", null, "feed-t0ken");
        assertThat(stop.statusCode()).as(stop.body()).isEqualTo(200);
        final HttpResponse<String> unknown = call("DELETE", "/api/runs/nope", null, "feed-t0ken");
        assertThat(unknown.statusCode()).as("past the token check, the endpoint answers: " + unknown.body()).isEqualTo(404);
    }
}
