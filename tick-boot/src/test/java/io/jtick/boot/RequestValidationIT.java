package io.jtick.boot;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * RequestValidation on a real Spring Boot app on a random loopback port: Bean Validation is not
 * started with the app, and a {@code @Valid} request body is still validated, at the first such request.
 */
class RequestValidationIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({RequestValidation.class, Endpoints.class})
    static class App {
    }

    /** A request body with a constraint. */
    record Greeting(@NotBlank String name) {
    }

    @RestController
    static class Endpoints {
        @PostMapping("/api/greet")
        Map<String, Object> greet(@Valid @RequestBody final Greeting greeting) {
            return Map.of("hello", greeting.name());
        }
    }

    @Test
    void shouldValidateARequestBodyWithBeanValidationBuiltAtTheFirstOne() throws Exception {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(App.class).properties("server.port=0",
            "server.address=127.0.0.1", "spring.main.banner-mode=off").run()) {
            final RequestValidation validation = app.getBean(RequestValidation.class);
            assertThat(validation.built()).as("Bean Validation started with the app").isFalse();
            final int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
            assertThat(post(port, "{\"name\":\"jtick\"}").body()).contains("\"hello\":\"jtick\"");
            assertThat(validation.built()).isTrue();
            assertThat(post(port, "{\"name\":\" \"}").statusCode()).as("a blank name").isEqualTo(400);
        }
    }

    private static HttpResponse<String> post(final int port, final String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/greet")).timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
            HttpResponse.BodyHandlers.ofString());
    }
}
