package io.jtick.boot;

import jakarta.validation.ValidatorFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A service's OpenAPI document ({@code /v3/api-docs}) held against the running service: every
 * request mapping of its jtick controllers is documented, every operation has an example and its
 * error responses, and every documented example request is accepted (2xx) by the real endpoint.
 */
public final class OpenApiContract {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final int port;
    private final JsonNode doc;

    private OpenApiContract(final int port, final JsonNode doc) {
        this.port = port;
        this.doc = doc;
    }

    /**
     * Fetches the document from the service on 127.0.0.1:{@code port}; Swagger UI must answer too, its
     * initializer pointing at the document's configuration (what ApiDocs' page transformer writes).
     */
    public static OpenApiContract fetch(final int port) {
        final HttpResponse<String> docs = send(port, "GET", "/v3/api-docs", null, null, "application/json");
        assertThat(docs.statusCode()).as("/v3/api-docs: %s", docs.body()).isEqualTo(200);
        final HttpResponse<String> ui = send(port, "GET", "/swagger-ui/index.html", null, null, "text/html");
        assertThat(ui.statusCode()).as("Swagger UI").isEqualTo(200);
        final HttpResponse<String> init = send(port, "GET", "/swagger-ui/swagger-initializer.js", null, null, "*/*");
        assertThat(init.body()).as("Swagger UI's initializer").contains("\"configUrl\" : \"/v3/api-docs/swagger-config\"");
        return new OpenApiContract(port, JSON.readTree(docs.body()));
    }

    /**
     * As {@link #fetch(int)}, for a service running in {@code context}: which must not hold Actuator's
     * Jackson 2 mapper ({@code management.endpoints.jackson2.isolated-object-mapper=false} in its
     * application.yml) nor a Bean Validation factory (Spring Boot's validation auto-configuration, which
     * starts Hibernate Validator): ~500 and ~550 classes an idle service would load for nothing.
     */
    public static OpenApiContract fetch(final ApplicationContext context, final int port) {
        assertThat(context.containsBean("jackson2EndpointJsonMapper")).as("Actuator's Jackson 2 mapper").isFalse();
        assertThat(context.getBeanNamesForType(ValidatorFactory.class)).as("Bean Validation factories").isEmpty();
        return fetch(port);
    }

    public JsonNode document() {
        return doc;
    }

    /** "METHOD /path" of every operation in the document. */
    public Set<String> operations() {
        final Set<String> out = new TreeSet<>();
        doc.path("paths").properties().forEach(p -> p.getValue().properties()
            .forEach(m -> out.add(m.getKey().toUpperCase(Locale.ROOT) + " " + p.getKey())));
        return out;
    }

    /** Every request mapping of the application's io.jtick controllers appears in the document; returns them. */
    public Set<String> assertEveryMappingDocumented(final ApplicationContext context) {
        final Set<String> mapped = new TreeSet<>();
        for (final RequestMappingHandlerMapping hm : context.getBeansOfType(RequestMappingHandlerMapping.class).values()) {
            hm.getHandlerMethods().forEach((info, method) -> {
                if (method.getBeanType().getPackageName().startsWith("io.jtick")) {
                    mapped.addAll(keys(info));
                }
            });
        }
        assertThat(mapped).as("request mappings of the jtick controllers").isNotEmpty();
        assertThat(operations()).as("operations in /v3/api-docs").containsAll(mapped);
        return mapped;
    }

    private static List<String> keys(final RequestMappingInfo info) {
        final List<String> out = new ArrayList<>();
        final Set<RequestMethod> methods = info.getMethodsCondition().getMethods();
        assertThat(methods).as("mapping %s names its HTTP method", info).isNotEmpty();
        for (final String path : info.getPatternValues()) {
            for (final RequestMethod m : methods) {
                out.add(m.name() + " " + path);
            }
        }
        return out;
    }

    /**
     * Every operation has a summary, an example (of its request body, a parameter or its answer), a
     * schema for each answer, and, when it takes input, an error answer (4xx or 5xx) with the Error schema.
     */
    public void assertEveryOperationDescribed() {
        forEachOperation((key, op) -> {
            assertThat(op.path("summary").asString("")).as("%s summary", key).isNotBlank();
            final boolean input = op.has("requestBody") || !op.path("parameters").isEmpty();
            assertThat(hasExample(op)).as("%s has an example", key).isTrue();
            op.path("responses").properties().forEach(r -> {
                if (r.getValue().has("content")) {
                    r.getValue().path("content").properties().forEach(c -> assertThat(c.getValue().has("schema"))
                        .as("%s answer %s %s has a schema", key, r.getKey(), c.getKey()).isTrue());
                }
            });
            if (input) {
                assertThat(op.path("responses").propertyNames()).as("%s documents its errors", key)
                    .anyMatch(code -> code.startsWith("4") || code.startsWith("5"));
            }
        });
    }

    private static boolean hasExample(final JsonNode op) {
        final String text = op.toString();
        return text.contains("\"example\"") || text.contains("\"examples\"");
    }

    /**
     * Sends every documented example request (each request-body example, with the parameters' examples)
     * to the service and asserts a 2xx answer. {@code pathValues} replace the examples of path or query
     * parameters that must name what this service holds (a run id it created, a day its journal has);
     * operations in {@code skip} are left to the caller.
     *
     * @return "METHOD /path example → status" for each request sent
     */
    public List<String> assertExamplesAccepted(final Map<String, String> pathValues, final Set<String> skip) {
        final List<String> sent = new ArrayList<>();
        forEachOperation((key, op) -> {
            if (!skip.contains(key)) {
                sent.addAll(sendExamples(key, op, pathValues));
            }
        });
        return sent;
    }

    /** Sends the documented examples of one operation ("POST /api/runs"); returns the answers' bodies. */
    public List<String> sendExamples(final String key, final Map<String, String> pathValues) {
        final String[] mp = key.split(" ", 2);
        final JsonNode op = doc.path("paths").path(mp[1]).path(mp[0].toLowerCase(Locale.ROOT));
        assertThat(op.isObject()).as("%s in the document", key).isTrue();
        final List<String> bodies = new ArrayList<>();
        for (final Map.Entry<String, HttpResponse<String>> r : requests(key, op, pathValues).entrySet()) {
            assertThat(r.getValue().statusCode()).as("%s: %s", r.getKey(), r.getValue().body()).isBetween(200, 299);
            bodies.add(r.getValue().body());
        }
        return bodies;
    }

    private List<String> sendExamples(final String key, final JsonNode op, final Map<String, String> pathValues) {
        final List<String> out = new ArrayList<>();
        for (final Map.Entry<String, HttpResponse<String>> r : requests(key, op, pathValues).entrySet()) {
            assertThat(r.getValue().statusCode()).as("documented example %s: %s", r.getKey(), r.getValue().body()).isBetween(200, 299);
            out.add(r.getKey() + " -> " + r.getValue().statusCode());
        }
        return out;
    }

    /** The operation's example requests, sent, by description. */
    private Map<String, HttpResponse<String>> requests(final String key, final JsonNode op, final Map<String, String> pathValues) {
        final String method = key.substring(0, key.indexOf(' '));
        String path = key.substring(key.indexOf(' ') + 1);
        final StringBuilder query = new StringBuilder();
        String accept = "application/json";
        for (final JsonNode p : op.path("parameters")) {
            final String name = p.path("name").asString();
            final String in = p.path("in").asString();
            String value = example(p);
            if (pathValues.containsKey(name)) {
                value = pathValues.get(name);
            }
            if (value == null) {
                assertThat(p.path("required").asBoolean(false)).as("%s: required parameter %s has no example", key, name).isFalse();
                continue;
            }
            switch (in) {
                case "path" -> path = path.replace("{" + name + "}", URLEncoder.encode(value, StandardCharsets.UTF_8));
                case "query" -> query.append(query.isEmpty() ? '?' : '&').append(name).append('=')
                    .append(URLEncoder.encode(value, StandardCharsets.UTF_8));
                case "header" -> {
                    if ("accept".equalsIgnoreCase(name)) {
                        accept = value;
                    }
                }
                default -> throw new AssertionError(key + ": parameter in " + in);
            }
        }
        final String target = path + query;
        final String accepts = accept;
        final Map<String, HttpResponse<String>> out = new LinkedHashMap<>();
        final JsonNode body = op.path("requestBody").path("content");
        if (body.isMissingNode() || body.isEmpty()) {
            out.put(key + " " + target, send(port, method, target, null, null, accept));
            return out;
        }
        for (final Map.Entry<String, JsonNode> media : body.properties()) {
            final JsonNode examples = media.getValue().path("examples");
            if (examples.isObject() && !examples.isEmpty()) {
                examples.properties().forEach(e -> out.put(key + " " + target + " example '" + e.getKey() + "'",
                    send(port, method, target, text(e.getValue().path("value")), media.getKey(), accepts)));
            } else if (media.getValue().has("example")) {
                out.put(key + " " + target + " example", send(port, method, target, text(media.getValue().path("example")), media.getKey(),
                    accept));
            }
        }
        assertThat(out).as("%s: request body without an example", key).isNotEmpty();
        return out;
    }

    private static String example(final JsonNode parameter) {
        if (parameter.has("example")) {
            return text(parameter.path("example"));
        }
        if (parameter.path("schema").has("example")) {
            return text(parameter.path("schema").path("example"));
        }
        final JsonNode examples = parameter.path("examples");
        if (examples.isObject() && !examples.isEmpty()) {
            return text(examples.properties().iterator().next().getValue().path("value"));
        }
        return null;
    }

    private static String text(final JsonNode value) {
        return value.isString() ? value.asString() : value.toString();
    }

    private interface OperationVisitor {
        void visit(String key, JsonNode operation);
    }

    private void forEachOperation(final OperationVisitor visitor) {
        doc.path("paths").properties().forEach(p -> p.getValue().properties()
            .forEach(m -> visitor.visit(m.getKey().toUpperCase(Locale.ROOT) + " " + p.getKey(), m.getValue())));
    }

    private static HttpResponse<String> send(final int port, final String method, final String target, final String body,
                                             final String contentType, final String accept) {
        final HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + target))
            .timeout(Duration.ofSeconds(60)).header("Accept", accept);
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        try {
            return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (final IOException e) {
            throw new AssertionError(method + " " + target + ": " + e, e);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
