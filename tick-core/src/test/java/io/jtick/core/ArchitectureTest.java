package io.jtick.core;

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
 * The package map of docs/architecture.md held against the sources: every package of tick-core has
 * a line, names only the packages its line lists (imports, fully qualified names and javadoc links
 * alike), and each of those sits in a lower layer, so no package reaches one beside it or above it.
 */
class ArchitectureTest {
    private static final Path MAIN = Path.of("src/main/java/io/jtick/core");
    private static final Path MAP = Path.of("../docs/architecture.md");
    private static final Pattern REFERENCE = Pattern.compile("io\\.jtick\\.core\\.([a-z]+(?:\\.[a-z]+)*)\\.[A-Z]");
    private static final Pattern ROW = Pattern.compile("^\\| (\\d+) \\| `([a-z.]+)` \\|.*\\| ([^|]*) \\|$");

    private record Line(int layer, Set<String> imports) {
    }

    /** Package → its layer and allowed imports, from the table in docs/architecture.md. */
    private static Map<String, Line> map() throws IOException {
        final Map<String, Line> out = new TreeMap<>();
        for (final String row : Files.readAllLines(MAP)) {
            final Matcher m = ROW.matcher(row);
            if (m.matches()) {
                final Set<String> imports = new TreeSet<>();
                for (final String p : m.group(3).split(",")) {
                    if (!p.isBlank() && !p.strip().equals("—")) {
                        imports.add(p.strip());
                    }
                }
                out.put(m.group(2), new Line(Integer.parseInt(m.group(1)), imports));
            }
        }
        return out;
    }

    /** Package (relative to io.jtick.core) → the io.jtick.core packages its main sources name. */
    private static Map<String, Set<String>> references() throws IOException {
        final Map<String, Set<String>> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(MAIN)) {
            for (final Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                final Path dir = MAIN.relativize(f.getParent());
                if (dir.toString().isEmpty()) {
                    continue;
                }
                final String pkg = dir.toString().replace('/', '.');
                final Set<String> refs = out.computeIfAbsent(pkg, k -> new TreeSet<>());
                final Matcher m = REFERENCE.matcher(Files.readString(f));
                while (m.find()) {
                    if (!m.group(1).equals(pkg)) {
                        refs.add(m.group(1));
                    }
                }
            }
        }
        return out;
    }

    @Test
    void shouldListEveryPackageInTheMap() throws IOException {
        assertThat(map().keySet()).as("packages in docs/architecture.md").isEqualTo(references().keySet());
    }

    @Test
    void shouldImportOnlyWhatTheMapSaysAndOnlyBelow() throws IOException {
        final Map<String, Line> map = map();
        references().forEach((pkg, used) -> {
            final Line line = map.get(pkg);
            assertThat(line).as("line of %s in docs/architecture.md", pkg).isNotNull();
            assertThat(line.imports()).as("what io.jtick.core.%s names (docs/architecture.md lists it)", pkg).containsAll(used);
            assertThat(used).as("io.jtick.core.%s names no more than it uses (keep the map true)", pkg).containsAll(line.imports());
            for (final String dep : used) {
                assertThat(map.get(dep).layer()).as("%s (layer %d) imports %s, which must sit below it", pkg, line.layer(), dep)
                    .isLessThan(line.layer());
            }
        });
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
                assertThat(Files.readString(f)).as("%s", f).doesNotContain("java.net.http").doesNotContain("HttpURLConnection");
            }
        }
    }
}
