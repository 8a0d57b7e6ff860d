package io.jtick.boot;

import io.swagger.v3.oas.annotations.Operation;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ApiDocs on a real Spring Boot app on a random loopback port: springdoc's beans (and swagger-core's
 * Jackson 2 mappers, which its mapper provider builds) are not made at start-up, and the document
 * and Swagger UI still answer, built at their first request.
 */
class ApiDocsIT {
    /** springdoc's bean that builds swagger-core's JSON and YAML mappers. */
    private static final String MAPPERS = "springdocObjectMapperProvider";

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({ApiDocs.class, Endpoints.class})
    static class App {
    }

    @RestController
    static class Endpoints {
        @Operation(summary = "Says hello")
        @GetMapping("/api/hello")
        Map<String, Object> hello() {
            return Map.of("hello", "world");
        }
    }

    @Test
    void shouldBuildSpringdocAtTheFirstRequestNotAtStartUp() {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(App.class).properties("server.port=0",
            "server.address=127.0.0.1", "spring.main.banner-mode=off", "spring.application.name=tp-service").run()) {
            final ConfigurableListableBeanFactory beans = app.getBeanFactory();
            assertThat(beans.containsBeanDefinition(MAPPERS)).as("springdoc is configured").isTrue();
            final List<String> made = Arrays.stream(beans.getSingletonNames())
                .filter(name -> name.equals(MAPPERS) || name.equals("openApiResource") || name.equals("jtickOpenApi"))
                .toList();
            assertThat(made).as("springdoc's beans made at start-up").isEmpty();
            assertThat(beans.containsSingleton("webServerPortProvider")).as("springdoc's web server port listener, made at start-up")
                .isTrue();

            final int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
            final OpenApiContract api = OpenApiContract.fetch(port);
            assertThat(api.operations()).containsExactly("GET /api/hello");
            assertThat(api.document().path("info").path("title").asString()).isEqualTo("jtick tp-service");
            assertThat(beans.containsSingleton(MAPPERS)).as("springdoc's mappers, once asked").isTrue();
        }
    }
}
