package io.jtick.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The package maps of docs/architecture.md held against the sources, one module at a time (tick-core,
 * and tick-lab above it): every package of the module has a line in its table, names only the
 * packages of the module its line lists (imports, fully qualified names and javadoc links alike),
 * and each of those sits in a lower layer, so no package reaches one beside it or above it. A
 * module may name the packages of the modules below it freely (tick-lab uses all of tick-core).
 */
class ArchitectureTest {
    private static final Path MAP = Path.of("../docs/architecture.md");
    private static final Path MAIN = Path.of("src/main/java/io/jtick/core");
    private static final Pattern ROW = Pattern.compile("^\\| (\\d+) \\| `([a-z.]+)` \\|.*\\| ([^|]*) \\|$");

    /**
     * One module's sources and its table.
     *
     * @param sources  the module's root package directory
     * @param base     that package's name (the table leaves it out)
     * @param heading  the heading of its table in docs/architecture.md
     */
    record Module(Path sources, String base, String heading) {
        Pattern reference() {
            return Pattern.compile(Pattern.quote(base + ".") + "([a-z]+(?:\\.[a-z]+)*)\\.[A-Z]");
        }

        @Override
        public String toString() {
            return base;
        }
    }

    private record Line(int layer, Set<String> imports) {
    }

    static List<Module> modules() {
        return List.of(new Module(MAIN, "io.jtick.core", "## Packages of tick-core"),
            new Module(Path.of("../tick-lab/src/main/java/io/jtick/lab"), "io.jtick.lab", "## Packages of tick-lab"));
    }

    /** Package → its layer and allowed imports, from the module's table in docs/architecture.md. */
    private static Map<String, Line> map(final Module module) throws IOException {
        final Map<String, Line> out = new TreeMap<>();
        boolean inSection = false;
        for (final String row : Files.readAllLines(MAP)) {
            if (row.startsWith("## ")) {
                inSection = row.equals(module.heading());
                continue;
            }
            final Matcher m = ROW.matcher(row);
            if (inSection && m.matches()) {
                final Set<String> imports = new TreeSet<>();
                for (final String p : m.group(3).split(",")) {
                    if (!p.isBlank() && !p.strip().equals("—")) {
                        imports.add(p.strip());
                    }
                }
                out.put(m.group(2), new Line(Integer.parseInt(m.group(1)), imports));
            }
        }
        assertThat(out).as("the table under \"%s\" in docs/architecture.md", module.heading()).isNotEmpty();
        return out;
    }

    /** Package (relative to the module's base) → the packages of the same module its main sources name. */
    private static Map<String, Set<String>> references(final Module module) throws IOException {
        final Map<String, Set<String>> out = new TreeMap<>();
        final Pattern reference = module.reference();
        try (Stream<Path> files = Files.walk(module.sources())) {
            for (final Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                final Path dir = module.sources().relativize(f.getParent());
                if (dir.toString().isEmpty()) {
                    continue;
                }
                final String pkg = dir.toString().replace('/', '.');
                final Set<String> refs = out.computeIfAbsent(pkg, k -> new TreeSet<>());
                final Matcher m = reference.matcher(Files.readString(f));
                while (m.find()) {
                    if (!m.group(1).equals(pkg)) {
                        refs.add(m.group(1));
                    }
                }
            }
        }
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modules")
    void shouldListEveryPackageInTheMap(final Module module) throws IOException {
        assertThat(map(module).keySet()).as("packages of %s in docs/architecture.md", module).isEqualTo(references(module).keySet());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modules")
    void shouldImportOnlyWhatTheMapSaysAndOnlyBelow(final Module module) throws IOException {
        final Map<String, Line> map = map(module);
        references(module).forEach((pkg, used) -> {
            final Line line = map.get(pkg);
            assertThat(line).as("line of %s in docs/architecture.md", pkg).isNotNull();
            assertThat(line.imports()).as("what %s.%s names (docs/architecture.md lists it)", module, pkg).containsAll(used);
            assertThat(used).as("%s.%s names no more than it uses (keep the map true)", module, pkg).containsAll(line.imports());
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

    @Test
    void shouldKeepTheLaboratoryOutOfTickCore() throws IOException {
        try (Stream<Path> files = Files.walk(MAIN)) {
            for (final Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                assertThat(Files.readString(f)).as("%s", f).doesNotContain("io.jtick.lab");
            }
        }
    }
}
