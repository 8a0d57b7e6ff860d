package io.jtick.core.query;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The query engine's packages import only those below them (docs/architecture.md): the model at
 * the bottom, then the plan and the result writers, then the execution, then the engine's facade;
 * the gateway sits outside the engine and uses the facade's public API. Read from the sources, so
 * an import (or a fully qualified name, or a javadoc link) that crosses a layer fails here.
 */
class QueryLayersTest {
    private static final Path MAIN = Path.of("src/main/java/io/jtick/core");
    private static final Pattern REFERENCE = Pattern.compile("io\\.jtick\\.core\\.([a-z]+(?:\\.[a-z]+)*)\\.[A-Z]");

    private static final Map<String, Set<String>> ALLOWED = Map.of(
        "query.model", Set.of("schema", "table"),
        "query.plan", Set.of("query.model", "schema"),
        "query.result", Set.of("query.model", "table"),
        "query.exec", Set.of("query.plan", "query.result", "query.model", "schema", "table"),
        "query", Set.of("query.exec", "query.plan", "query.result", "query.model", "schema", "table", "metrics"),
        "gateway", Set.of("query", "query.result", "query.model", "schema", "table"));

    /** Package (relative to io.jtick.core) → the io.jtick.core packages its main sources name. */
    private static Map<String, Set<String>> references() throws IOException {
        final Map<String, Set<String>> out = new TreeMap<>();
        for (final String pkg : ALLOWED.keySet()) {
            final Set<String> refs = new TreeSet<>();
            try (Stream<Path> files = Files.list(MAIN.resolve(pkg.replace('.', '/')))) {
                for (final Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    final Matcher m = REFERENCE.matcher(Files.readString(f));
                    while (m.find()) {
                        if (!m.group(1).equals(pkg)) {
                            refs.add(m.group(1));
                        }
                    }
                }
            }
            out.put(pkg, refs);
        }
        return out;
    }

    @Test
    void shouldImportOnlyPackagesBelow() throws IOException {
        final Map<String, Set<String>> refs = references();
        assertThat(refs.get("query")).as("the facade reaches every stage").contains("query.exec", "query.plan");
        refs.forEach((pkg, used) -> assertThat(ALLOWED.get(pkg)).as("packages io.jtick.core.%s names", pkg).containsAll(used));
    }

    @Test
    void shouldKeepTheGatewayAndAnyHttpClientOutOfTheEngine() throws IOException {
        try (Stream<Path> files = Files.walk(MAIN)) {
            for (final Path f : files.filter(p -> p.toString().endsWith(".java") && !p.startsWith(MAIN.resolve("gateway"))).toList()) {
                assertThat(Files.readString(f)).as("%s", f).doesNotContain("io.jtick.core.gateway");
            }
        }
        try (Stream<Path> files = Files.walk(MAIN.resolve("query"))) {
            for (final Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                assertThat(Files.readString(f)).as("%s", f).doesNotContain("java.net.http");
            }
        }
    }
}
