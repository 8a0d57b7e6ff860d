package io.jtick.boot;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.Map;

/**
 * The header of every service's OpenAPI document ({@code /v3/api-docs}, Swagger UI at
 * {@code /swagger-ui.html}, springdoc-openapi): title from {@code spring.application.name}, what the
 * service does, where the error format is. The operations come from the controllers' annotations.
 */
@Configuration(proxyBeanMethods = false)
public class ApiDocs {
    /** Media type of the CSV answers (query results, run tables). */
    public static final String CSV = "text/csv";

    private static final Map<String, String> ABOUT = Map.of(
        "tp-service", "The tickerplant: status (sequences, tables, subscribers), publish mode, end of day. Feeds and subscribers "
            + "use the TCP port (docs/wire-format.md), not this API.",
        "rdb-service", "The real-time database: queries over today's data (docs/query.md), tables, status, end-of-day replay.",
        "hdb-service", "The historical database: queries over date partitions, the gateway over HDB and RDB, partitions, reload, "
            + "tiering, compression study.",
        "feed-sim", "The feed simulator and the profiling control plane: start and stop a feed, run the white paper's experiments.");

    @Bean
    OpenAPI jtickOpenApi(@Value("${spring.application.name:jtick}") final String name) {
        return new OpenAPI().info(new Info().title("jtick " + name).version("0.1.0")
            .description(ABOUT.getOrDefault(name, "jtick service") + " Every error answers {\"error\": \"... [key=value]\", "
                + "\"status\": n} (schema Error). Metrics: /actuator/prometheus (docs/metrics.md)."));
    }
}
