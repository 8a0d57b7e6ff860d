package io.jtick.boot.access;

import io.jtick.boot.ApiErrors;
import io.jtick.core.auth.AccessCheck;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The token check over real HTTP: a Spring Boot app with read and write endpoints on a random
 * loopback port, started with the settings under test ({@code tick.api.guard=always} stands for a
 * service bound off loopback, which tests do not open; the address decision itself is checked on its own).
 */
class ApiTokenFilterIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({ApiErrors.class, ApiAccessConfiguration.class, Endpoints.class})
    static class App {
    }

    @RestController
    @RequestMapping("/api")
    static class Endpoints {
        @GetMapping("/status")
        Map<String, Object> status() {
            return Map.of("ok", true);
        }

        @PostMapping("/query")
        Map<String, Object> query() {
            return Map.of("rows", 0);
        }

        @PostMapping("/gateway/query")
        Map<String, Object> gatewayQuery() {
            return Map.of("rows", 0);
        }

        @PostMapping("/eod")
        Map<String, Object> eod() {
            return Map.of("ended", true);
        }

        @PutMapping("/mode")
        Map<String, Object> mode() {
            return Map.of("mode", "x");
        }

        @DeleteMapping("/runs/{id}")
        Map<String, Object> stop() {
            return Map.of("stopped", true);
        }
    }

    private static ConfigurableApplicationContext start(final String... properties) {
        final List<String> props = new ArrayList<>(List.of("server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off"));
        props.addAll(List.of(properties));
        return new SpringApplicationBuilder(App.class).properties(props.toArray(String[]::new)).run();
    }

    private static HttpResponse<String> call(final ConfigurableApplicationContext app, final String method, final String path,
                                             final String... headers) throws Exception {
        final int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
        final HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString("{}"));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldRefuseWritesWithoutTheTokenAndAcceptThemWithIt() throws Exception {
        try (ConfigurableApplicationContext app = start("tick.api.guard=always", "tick.api.token=t0ken-123")) {
            final HttpResponse<String> none = call(app, "POST", "/api/eod");
            assertThat(none.statusCode()).isEqualTo(401);
            assertThat(none.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
            assertThat(none.body()).contains("POST /api/eod needs the API token", "\"status\":401");
            assertThat(call(app, "PUT", "/api/mode").statusCode()).isEqualTo(401);
            assertThat(call(app, "DELETE", "/api/runs/7").statusCode()).isEqualTo(401);
            final HttpResponse<String> wrong = call(app, "POST", "/api/eod", "Authorization", "Bearer t0ken-12");
            assertThat(wrong.statusCode()).isEqualTo(401);
            assertThat(wrong.body()).contains("wrong API token [method=POST, path=/api/eod]");

            final HttpResponse<String> bearer = call(app, "POST", "/api/eod", "Authorization", "Bearer t0ken-123");
            assertThat(bearer.statusCode()).isEqualTo(200);
            assertThat(bearer.body()).contains("\"ended\":true");
            assertThat(call(app, "PUT", "/api/mode", "authorization", "bearer t0ken-123").statusCode()).isEqualTo(200);
            assertThat(call(app, "DELETE", "/api/runs/7", "X-Api-Token", "t0ken-123").statusCode()).isEqualTo(200);

            assertThat(call(app, "GET", "/api/status").statusCode()).as("reads stay open by default").isEqualTo(200);
            assertThat(call(app, "POST", "/api/query").statusCode()).as("a query only reads").isEqualTo(200);
            assertThat(call(app, "POST", "/api/gateway/query").statusCode()).isEqualTo(200);
            assertThat(call(app, "GET", "/actuator/health").statusCode()).as("probes need no token").isEqualTo(200);

            final MeterRegistry registry = app.getBean(MeterRegistry.class);
            assertThat(registry.get("tick.api.refused").tag("reason", "token-missing").counter().count()).isEqualTo(3);
            assertThat(registry.get("tick.api.refused").tag("reason", "token-wrong").counter().count()).isEqualTo(1);
        }
    }

    @Test
    void shouldRefuseReadsTooWhenAsked() throws Exception {
        try (ConfigurableApplicationContext app = start("tick.api.guard=always", "tick.api.token=t0ken-123",
            "tick.api.protect-reads=true")) {
            assertThat(call(app, "GET", "/api/status").statusCode()).isEqualTo(401);
            assertThat(call(app, "POST", "/api/query").statusCode()).isEqualTo(401);
            assertThat(call(app, "GET", "/api/status", "Authorization", "Bearer t0ken-123").statusCode()).isEqualTo(200);
            assertThat(call(app, "POST", "/api/query", "X-Api-Token", "t0ken-123").statusCode()).isEqualTo(200);
            assertThat(call(app, "GET", "/actuator/health").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void shouldRefuseEveryWriteWhenGuardedWithoutAToken() throws Exception {
        try (ConfigurableApplicationContext app = start("tick.api.guard=always")) {
            final HttpResponse<String> r = call(app, "POST", "/api/eod", "Authorization", "Bearer anything");
            assertThat(r.statusCode()).isEqualTo(403);
            assertThat(r.body()).contains("this service has none: set tick.api.token (TICK_API_TOKEN)", "[bound=127.0.0.1]");
            assertThat(call(app, "GET", "/api/status").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void shouldLeaveALoopbackServiceOpen() throws Exception {
        try (ConfigurableApplicationContext app = start()) {
            assertThat(app.getBean(AccessCheck.class).guarded()).isFalse();
            assertThat(call(app, "POST", "/api/eod").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void shouldGuardAServiceBoundOffLoopback() {
        final io.jtick.core.auth.AccessSettings settings = new ApiAccessProperties(null, "auto", false).toSettings();
        for (final String address : new String[] {"0.0.0.0", "::", "", "10.20.30.40"}) {
            assertThat(AccessCheck.forListener(settings, ApiAccessConfiguration.boundAddress(address)).guarded()).as(address).isTrue();
        }
        for (final String address : new String[] {"127.0.0.1", "localhost", "::1"}) {
            assertThat(AccessCheck.forListener(settings, ApiAccessConfiguration.boundAddress(address)).guarded()).as(address).isFalse();
        }
    }

    @Test
    void shouldStopStartUpOnABadGuardOrToken() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ApiAccessProperties("x", "never", false).toSettings())
            .hasMessageContaining("unknown guard [guard=never").hasMessageContaining("[key=tick.api.guard]");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ApiAccessProperties("a b", "auto", false).toSettings())
            .hasMessageContaining("[key=tick.api.token]");
    }
}
