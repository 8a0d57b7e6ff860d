package io.jtick.boot;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import org.springdoc.core.properties.SwaggerUiConfigProperties;
import org.springdoc.core.properties.SwaggerUiOAuthProperties;
import org.springdoc.core.providers.ObjectMapperProvider;
import org.springdoc.webmvc.ui.SwaggerIndexPageTransformer;
import org.springdoc.webmvc.ui.SwaggerIndexTransformer;
import org.springdoc.webmvc.ui.SwaggerWelcomeCommon;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.type.MethodMetadata;
import org.springframework.util.function.SingletonSupplier;

import java.util.Map;

/**
 * The header of every service's OpenAPI document ({@code /v3/api-docs}, Swagger UI at
 * {@code /swagger-ui.html}, springdoc-openapi): title from {@code spring.application.name}, what the
 * service does, where the error format is. The operations come from the controllers' annotations.
 *
 * <p>springdoc's beans are created at the first request that needs them (the document, Swagger UI),
 * not at start-up: they and swagger-core with its Jackson 2 mappers are ~800 classes that an idle
 * service would otherwise hold (docs/operations.md "Memory"). Two pieces do it: every springdoc bean
 * is marked lazy, and Swagger UI's page transformer, which the web configuration needs at start-up
 * and which would build swagger-core's mappers, is replaced by one that builds springdoc's at its
 * first page.
 */
@Configuration(proxyBeanMethods = false)
public class ApiDocs {
    /** Media type of the CSV answers (query results, run tables). */
    public static final String CSV = "text/csv";
    /** What POST /api/query answers (JsonResultWriter's format). */
    public static final String QUERY_RESULT = "{columns, types, rows (one array per row), rowCount, rowsScanned, segments, "
        + "elapsedMicros}; with Accept: text/csv a header line and one line per row, column types in X-Jtick-Types";
    public static final String QUERY_RESULT_EXAMPLE = "{\"columns\":[\"sym\",\"vwap\",\"n\"],\"types\":[\"symbol\",\"float64\","
        + "\"int64\"],\"rows\":[[\"S0001\",100.52,1204],[\"S0002\",99.87,1187]],\"rowCount\":2,\"rowsScanned\":2391,"
        + "\"segments\":1,\"elapsedMicros\":412}";
    public static final String QUERY_CSV_EXAMPLE = "sym,vwap,n\nS0001,100.52,1204\nS0002,99.87,1187\n";
    /** A query document (docs/query.md) computing a VWAP and a count per sym. */
    public static final String QUERY_VWAP = "{\"table\":\"trade\",\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]},"
        + "\"n\":{\"count\":\"*\"}},\"by\":[\"sym\"]}";
    /** A query document selecting rows of one sym. */
    public static final String QUERY_ROWS = "{\"table\":\"trade\",\"where\":{\"sym\":\"S0001\"},"
        + "\"select\":[\"time\",\"sym\",\"price\",\"size\"],\"limit\":5}";
    public static final String QUERY_DOC = "A query document (docs/query.md): table, where, select (columns or aggregates), by, "
        + "asof, orderBy, limit; the first API's syms/from/to/columns/limit still work.";
    /** POST /api/sql: what it takes. */
    public static final String SQL_DOC = "One SELECT (docs/query.md \"SQL\"), compiled to a query document and answered as "
        + "POST /api/query answers it: aggregates, sum(price*size)/sum(size) or wavg(size, price) as the VWAP, WHERE with = <> < > "
        + "BETWEEN IN AND OR, now() and intervals, GROUP BY, ORDER BY, LIMIT/OFFSET, date_bin/time_bucket and SAMPLE BY, "
        + "DISTINCT ON and LATEST ON, ASOF JOIN, the date column of partitions. Anything else answers 400 with the PostgreSQL "
        + "SQLSTATE in sqlstate (0A000 not supported, 42P01 unknown table, 42703 unknown column, 42804/22P02 types).";
    /** A VWAP and a count per sym, in SQL. */
    public static final String SQL_VWAP = "SELECT sym, sum(price * size) / sum(size) AS vwap, count(*) AS n FROM trade GROUP BY sym";
    /** Rows of one sym, in SQL. */
    public static final String SQL_ROWS = "SELECT time, sym, price, size FROM trade WHERE sym = 'S0001' ORDER BY time DESC LIMIT 5";
    public static final String BAD_SQL_EXAMPLE = "{\"error\":\"unknown column [table=trade, column=pirce]\",\"status\":400,"
        + "\"sqlstate\":\"42703\"}";
    public static final String BAD_QUERY_EXAMPLE = "{\"error\":\"unknown table [table=nope]\",\"status\":400}";
    public static final String TOO_BIG_EXAMPLE = "{\"error\":\"result over the row limit [rows=1000001, "
        + "key=tick.query.max-rows, limit=1000000]\",\"status\":413}";

    private static final Map<String, String> ABOUT = Map.of(
        "tp-service", "The tickerplant: status (sequences, tables, subscribers), publish mode, end of day. Feeds and subscribers "
            + "use the TCP port (docs/wire-format.md), not this API.",
        "rdb-service", "The real-time database: queries over today's data (docs/query.md), tables, status, end-of-day replay.",
        "hdb-service", "The historical database: queries over date partitions, the gateway over HDB and RDB, partitions, reload, "
            + "tiering, compression study.",
        "feed-sim", "The feed simulator and the profiling control plane: start and stop a feed, run the white paper's experiments.");

    /** springdoc's configuration of the bean that listens for the web server's port. */
    private static final String PORT_LISTENER_CONFIGURATION = "org.springdoc.core.configuration.SpringDocWebServerConfiguration";

    /** Marks springdoc's beans lazy (see the class comment); a static bean, so it runs before any is made. */
    @Bean
    static BeanFactoryPostProcessor apiDocsOnFirstUse() {
        return factory -> {
            for (final String name : factory.getBeanDefinitionNames()) {
                final BeanDefinition definition = factory.getBeanDefinition(name);
                if (isSpringdoc(definition)) {
                    definition.setLazyInit(true);
                }
            }
        };
    }

    /**
     * Whether a bean is springdoc's and may wait for its first use: its class, or for a {@code @Bean}
     * method the class that declares it, is springdoc's, and it is not the web server port listener
     * ({@code SpringDocWebServerConfiguration}'s {@code webServerPortProvider}, declared as another type,
     * which must exist when the server starts to learn its port).
     */
    static boolean isSpringdoc(final BeanDefinition definition) {
        String type = definition.getBeanClassName();
        if (type == null && definition instanceof AnnotatedBeanDefinition annotated) {
            final MethodMetadata factoryMethod = annotated.getFactoryMethodMetadata();
            type = factoryMethod == null ? null : factoryMethod.getDeclaringClassName();
        }
        return type != null && type.startsWith("org.springdoc.") && !type.startsWith(PORT_LISTENER_CONFIGURATION);
    }

    /**
     * Swagger UI's index page transformer (springdoc's {@code indexPageTransformer}, which it makes
     * only where none is defined), built at the first page served rather than when Spring MVC
     * collects its configurers at start-up.
     */
    @Bean
    SwaggerIndexTransformer indexPageTransformer(final ObjectProvider<SwaggerUiConfigProperties> ui,
                                                 final ObjectProvider<SwaggerUiOAuthProperties> oauth,
                                                 final ObjectProvider<SwaggerWelcomeCommon> welcome,
                                                 final ObjectProvider<ObjectMapperProvider> mappers) {
        final SingletonSupplier<SwaggerIndexTransformer> springdoc = SingletonSupplier.of(() ->
            new SwaggerIndexPageTransformer(ui.getObject(), oauth.getObject(), welcome.getObject(), mappers.getObject()));
        return (request, resource, chain) -> springdoc.obtain().transform(request, resource, chain);
    }

    @Bean
    @Lazy
    OpenAPI jtickOpenApi(@Value("${spring.application.name:jtick}") final String name) {
        return new OpenAPI().info(new Info().title("jtick " + name).version("0.1.0")
            .description(ABOUT.getOrDefault(name, "jtick service") + " Every error answers {\"error\": \"... [key=value]\", "
                + "\"status\": n} (schema Error). Metrics: /actuator/prometheus (docs/metrics.md)."));
    }
}
