package io.jtick.image;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

/**
 * A Spring Boot executable jar read as an image needs it: its main class ({@code Start-Class}), its
 * class path in {@code BOOT-INF/classpath.idx} order, and its files grouped by the layers Spring Boot
 * wrote in {@code BOOT-INF/layers.idx} (dependencies, snapshot-dependencies, application). The
 * image runs the exploded classes and jars with a plain {@code java -cp}, so the loader layer is left out.
 */
final class BootJar {
    static final String APP_HOME = "/opt/jtick";
    static final String CLASSES = APP_HOME + "/classes";
    static final String LIB = APP_HOME + "/lib";
    private static final String LOADER_LAYER = "spring-boot-loader";

    /** One file of the image: where it goes and its bytes. */
    record File(String path, byte[] content) {
    }

    private final Path jar;
    private final String mainClass;
    private final List<String> classPath;
    private final Map<String, List<File>> layers;

    private BootJar(final Path jar, final String mainClass, final List<String> classPath, final Map<String, List<File>> layers) {
        this.jar = jar;
        this.mainClass = mainClass;
        this.classPath = classPath;
        this.layers = layers;
    }

    static BootJar read(final Path jar) throws IOException {
        try (JarFile j = new JarFile(jar.toFile())) {
            final Attributes manifest = j.getManifest() == null ? null : j.getManifest().getMainAttributes();
            final String main = manifest == null ? null : manifest.getValue("Start-Class");
            if (main == null) {
                throw new IOException("not a Spring Boot executable jar: no Start-Class in its manifest [jar=" + jar + "]");
            }
            final List<String> cp = new ArrayList<>();
            cp.add(CLASSES);
            for (final String lib : listed(text(j, "BOOT-INF/classpath.idx", jar))) {
                cp.add(imagePath(lib, jar));
            }
            final Map<String, List<String>> index = layersIndex(text(j, "BOOT-INF/layers.idx", jar));
            final Map<String, List<File>> layers = new LinkedHashMap<>();
            for (final String layer : index.keySet()) {
                if (!layer.equals(LOADER_LAYER)) {
                    layers.put(layer, new ArrayList<>());
                }
            }
            final Enumeration<? extends ZipEntry> entries = j.entries();
            while (entries.hasMoreElements()) {
                final ZipEntry e = entries.nextElement();
                final String name = e.getName();
                if (e.isDirectory() || !(name.startsWith("BOOT-INF/classes/") || name.startsWith("BOOT-INF/lib/"))) {
                    continue;
                }
                final String layer = layerOf(index, name, jar);
                if (layer.equals(LOADER_LAYER)) {
                    continue;
                }
                try (InputStream in = j.getInputStream(e)) {
                    layers.get(layer).add(new File(imagePath(name, jar), in.readAllBytes()));
                }
            }
            layers.values().removeIf(List::isEmpty);
            return new BootJar(jar, main, List.copyOf(cp), layers);
        }
    }

    Path jar() {
        return jar;
    }

    String mainClass() {
        return mainClass;
    }

    /** The {@code -cp} value: the classes directory, then each library in Spring Boot's order. */
    String classPath() {
        return String.join(":", classPath);
    }

    /** Layer name → its files, in layers.idx order. */
    Map<String, List<File>> layers() {
        return layers;
    }

    private static String imagePath(final String entry, final Path jar) throws IOException {
        if (entry.startsWith("BOOT-INF/classes/")) {
            return CLASSES + "/" + entry.substring("BOOT-INF/classes/".length());
        }
        if (entry.startsWith("BOOT-INF/lib/") && entry.indexOf('/', "BOOT-INF/lib/".length()) < 0) {
            return LIB + "/" + entry.substring("BOOT-INF/lib/".length());
        }
        throw new IOException("unexpected entry in a Spring Boot jar [jar=" + jar + ", entry=" + entry + "]");
    }

    /** The layer of an entry: the first layer listing the entry itself or a directory above it. */
    private static String layerOf(final Map<String, List<String>> index, final String entry, final Path jar) throws IOException {
        for (final Map.Entry<String, List<String>> layer : index.entrySet()) {
            for (final String prefix : layer.getValue()) {
                if (prefix.endsWith("/") ? entry.startsWith(prefix) : entry.equals(prefix)) {
                    return layer.getKey();
                }
            }
        }
        throw new IOException("entry in no layer of BOOT-INF/layers.idx [jar=" + jar + ", entry=" + entry + "]");
    }

    private static String text(final JarFile j, final String name, final Path jar) throws IOException {
        final ZipEntry e = j.getEntry(name);
        if (e == null) {
            throw new IOException("missing " + name + " (built by spring-boot-maven-plugin's repackage) [jar=" + jar + "]");
        }
        try (InputStream in = j.getInputStream(e)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** {@code - "x"} lines → x. */
    private static List<String> listed(final String idx) {
        final List<String> out = new ArrayList<>();
        for (final String line : idx.split("\n")) {
            final String t = line.strip();
            if (t.startsWith("- \"") && t.endsWith("\"")) {
                out.add(t.substring(3, t.length() - 1));
            }
        }
        return out;
    }

    /** layers.idx: {@code - "layer":} lines, each followed by its {@code   - "entry"} lines. */
    static Map<String, List<String>> layersIndex(final String idx) {
        final Map<String, List<String>> out = new LinkedHashMap<>();
        List<String> current = null;
        for (final String line : idx.split("\n")) {
            if (line.startsWith("- \"") && line.endsWith("\":")) {
                current = new ArrayList<>();
                out.put(line.substring(3, line.length() - 2), current);
            } else if (line.startsWith("  - \"") && line.endsWith("\"") && current != null) {
                current.add(line.substring(5, line.length() - 1));
            }
        }
        return out;
    }
}
