package io.jtick.image;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code java -jar jtick-images.jar ...} (run by {@code ./jtick images}): writes one OCI image layout
 * per service under {@code --out}, each image
 * <ol>
 *   <li>base: the files of the Debian packages extracted under {@code --rootfs} (glibc, libstdc++,
 *       zlib, busybox for the health check), plus the user {@code jtick} (10001), {@code /tmp} and the
 *       working directory {@code /var/jtick};</li>
 *   <li>runtime: the jlink'd JDK under {@code --runtime} at {@code /opt/java};</li>
 *   <li>the service's Spring Boot layers (dependencies, snapshot-dependencies, application) exploded
 *       under {@code /opt/jtick};</li>
 * </ol>
 * started as {@code java <jvm.options flags> -cp @/opt/jtick/classpath <Start-Class>} by user 10001,
 * with a health check on {@code /actuator/health}. Every time in the layers and the config is
 * {@code --epoch}, so the same inputs give the same digests.
 *
 * <p>Options: {@code --out DIR --rootfs DIR --runtime DIR --jvm-options FILE --version V
 * [--repository-prefix jtick/] [--epoch SECONDS] [--label K=V]...}, then per image
 * {@code --image NAME=JAR --http-port N [--port N]... [--env K=V]...}.
 */
public final class ImageCommand {
    static final int USER = 10001;
    static final String WORKDIR = "/var/jtick";
    static final String HEALTHCHECK = "/opt/jtick/bin/healthcheck";
    /** Label naming the Debian packages (name=version) the base came from. */
    static final String PACKAGES_LABEL = "io.jtick.image.base.packages";
    /** Label naming the Java runtime. */
    static final String RUNTIME_LABEL = "io.jtick.image.runtime";
    private static final long SECOND = 1_000_000_000L;

    /** One image to build. */
    record ImageSpec(String name, Path jar, int httpPort, List<Integer> ports, List<String> env) {
    }

    /** What was built: the reference, the manifest digest and the sizes (compressed blobs, unpacked layers). */
    record Built(String name, String reference, String digest, long compressedBytes, long unpackedBytes) {
    }

    /** Everything the command line says. */
    record Options(Path out, Path rootfs, Path runtime, Path jvmOptions, String version, String repositoryPrefix, long epoch,
                   Map<String, String> labels, List<ImageSpec> images) {
    }

    private ImageCommand() {
    }

    public static void main(final String[] args) {
        try {
            final Options o = parse(args);
            final List<Built> built = build(o, System.out);
            final StringBuilder table = new StringBuilder();
            for (final Built b : built) {
                table.append(String.format(Locale.ROOT, "%s\t%s\t%s\t%d\t%d%n", b.name(), b.reference(), b.digest(), b.compressedBytes(),
                    b.unpackedBytes()));
            }
            Files.writeString(o.out().resolve("images.txt"), table);
        } catch (final IllegalArgumentException e) {
            System.err.println("jtick images: " + e.getMessage());
            System.exit(2);
        } catch (final IOException e) {
            System.err.println("jtick images: failed: " + e);
            System.exit(1);
        }
    }

    static Options parse(final String[] args) {
        Path out = null;
        Path rootfs = null;
        Path runtime = null;
        Path jvmOptions = null;
        String version = null;
        String prefix = "jtick/";
        long epoch = 0;
        final Map<String, String> labels = new LinkedHashMap<>();
        final List<ImageSpec> images = new ArrayList<>();
        String name = null;
        Path jar = null;
        int http = 0;
        List<Integer> ports = new ArrayList<>();
        List<String> env = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            final String a = args[i];
            final String v = i + 1 < args.length ? args[i + 1] : null;
            if (v == null) {
                throw new IllegalArgumentException("option needs a value [option=" + a + "]");
            }
            i++;
            switch (a) {
                case "--out" -> out = Path.of(v);
                case "--rootfs" -> rootfs = Path.of(v);
                case "--runtime" -> runtime = Path.of(v);
                case "--jvm-options" -> jvmOptions = Path.of(v);
                case "--version" -> version = v;
                case "--repository-prefix" -> prefix = v;
                case "--epoch" -> epoch = Long.parseLong(v);
                case "--label" -> labels.put(key(v, a), v.substring(v.indexOf('=') + 1));
                case "--image" -> {
                    if (name != null) {
                        images.add(spec(name, jar, http, ports, env));
                    }
                    name = key(v, a);
                    jar = Path.of(v.substring(v.indexOf('=') + 1));
                    http = 0;
                    ports = new ArrayList<>();
                    env = new ArrayList<>();
                }
                case "--http-port" -> http = port(v);
                case "--port" -> ports.add(port(v));
                case "--env" -> {
                    key(v, a);
                    env.add(v);
                }
                default -> throw new IllegalArgumentException("unknown option [option=" + a + "]");
            }
            if (name == null && (a.equals("--http-port") || a.equals("--port") || a.equals("--env"))) {
                throw new IllegalArgumentException(a + " belongs to an image: give --image NAME=JAR first");
            }
        }
        if (name != null) {
            images.add(spec(name, jar, http, ports, env));
        }
        if (out == null || rootfs == null || runtime == null || jvmOptions == null || version == null || images.isEmpty()) {
            throw new IllegalArgumentException("usage: --out DIR --rootfs DIR --runtime DIR --jvm-options FILE --version V"
                + " [--repository-prefix P] [--epoch S] [--label K=V]... (--image NAME=JAR --http-port N [--port N]... [--env K=V]...)...");
        }
        return new Options(out, rootfs, runtime, jvmOptions, version, prefix, epoch, labels, images);
    }

    private static ImageSpec spec(final String name, final Path jar, final int http, final List<Integer> ports, final List<String> env) {
        if (http == 0) {
            throw new IllegalArgumentException("no --http-port for the image [image=" + name + "]");
        }
        return new ImageSpec(name, jar, http, List.copyOf(ports), List.copyOf(env));
    }

    private static String key(final String kv, final String option) {
        final int eq = kv.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException("expected KEY=VALUE [option=" + option + ", value=" + kv + "]");
        }
        return kv.substring(0, eq);
    }

    private static int port(final String v) {
        final int p = Integer.parseInt(v);
        if (p < 1 || p > 65535) {
            throw new IllegalArgumentException("bad port [port=" + v + "]");
        }
        return p;
    }

    /** Builds every image of {@code o}; the base and runtime layers are written once and shared. */
    static List<Built> build(final Options o, final PrintStream log) throws IOException {
        final List<String> flags = JvmOptions.read(o.jvmOptions(), JvmOptions.runtimeMajor(o.runtime()));
        Files.createDirectories(o.out());
        final Path sharedDir = o.out().resolve(".shared-layers");
        deleteTree(sharedDir);
        final ImageLayout shared = new ImageLayout(sharedDir);
        final List<Layer> common = new ArrayList<>();
        common.add(new Layer("base: Debian packages (" + o.labels().getOrDefault(PACKAGES_LABEL, "see --rootfs") + "), user jtick "
            + USER + ", health check", baseLayer(o.rootfs()).writeTo(shared, o.epoch())));
        common.add(new Layer("runtime: " + o.labels().getOrDefault(RUNTIME_LABEL, "jlink'd JDK") + " at /opt/java",
            new LayerArchive().addTree(o.runtime(), "/opt/java", 0).writeTo(shared, o.epoch())));
        final List<Built> built = new ArrayList<>();
        for (final ImageSpec spec : o.images()) {
            final Path dir = o.out().resolve(spec.name());
            deleteTree(dir);
            final ImageLayout layout = new ImageLayout(dir);
            final List<Layer> layers = new ArrayList<>();
            for (final Layer l : common) {
                layout.importBlob(shared, l.written().blob());
                layers.add(l);
            }
            final BootJar jar = BootJar.read(spec.jar());
            final List<String> layerNames = new ArrayList<>(jar.layers().keySet());
            for (final String layerName : layerNames) {
                final LayerArchive archive = new LayerArchive();
                for (final BootJar.File f : jar.layers().get(layerName)) {
                    archive.addFile(f.path(), f.content(), 0644, 0);
                }
                if (layerName.equals(layerNames.get(layerNames.size() - 1))) {
                    archive.addFile(BootJar.APP_HOME + "/classpath", jar.classPath().getBytes(StandardCharsets.UTF_8), 0644, 0);
                }
                layers.add(new Layer(spec.name() + " " + layerName + " (" + jar.layers().get(layerName).size() + " files)",
                    archive.writeTo(layout, o.epoch())));
            }
            final Map<String, Object> config = config(o, spec, jar, flags, layers);
            final ImageLayout.Descriptor configBlob = layout.writeJson(ImageLayout.CONFIG, config);
            final Map<String, Object> manifest = new LinkedHashMap<>();
            manifest.put("schemaVersion", 2);
            manifest.put("mediaType", ImageLayout.MANIFEST);
            manifest.put("config", configBlob.json());
            manifest.put("layers", layers.stream().map(l -> l.written().blob().json()).toList());
            manifest.put("annotations", annotations(o, spec));
            final ImageLayout.Descriptor manifestBlob = layout.writeJson(ImageLayout.MANIFEST, manifest);
            layout.writeIndex(List.of(Map.entry(o.version(), manifestBlob)));
            long compressed = configBlob.size() + manifestBlob.size();
            long unpacked = 0;
            for (final Layer l : layers) {
                compressed += l.written().blob().size();
                unpacked += l.written().tarBytes();
            }
            final Built b = new Built(spec.name(), o.repositoryPrefix() + spec.name() + ":" + o.version(), manifestBlob.digest(),
                compressed, unpacked);
            built.add(b);
            log.printf(Locale.ROOT, "%-12s %-32s %s  %6.1f MB compressed  %6.1f MB unpacked  (oci:%s:%s)%n", b.name(), b.reference(),
                b.digest(), b.compressedBytes() / 1e6, b.unpackedBytes() / 1e6, dir, o.version());
        }
        deleteTree(sharedDir);
        return built;
    }

    /** A layer and the line its history entry shows. */
    private record Layer(String createdBy, LayerArchive.Written written) {
    }

    /** The Debian files plus what jtick adds: users, /tmp, the working directory, /bin/sh and the health check. */
    static LayerArchive baseLayer(final Path rootfs) throws IOException {
        final LayerArchive base = new LayerArchive().addTree(rootfs, "/", 0);
        if (!base.paths().contains("bin/busybox")) {
            throw new IOException("the base has no /bin/busybox (Debian package busybox-static) [rootfs=" + rootfs + "]");
        }
        base.addFile("/etc/passwd", ("root:x:0:0:root:/root:/sbin/nologin\n"
            + "jtick:x:" + USER + ":" + USER + ":jtick:" + WORKDIR + ":/sbin/nologin\n"
            + "nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n").getBytes(StandardCharsets.UTF_8), 0644, 0);
        base.addFile("/etc/group", ("root:x:0:\njtick:x:" + USER + ":\nnogroup:x:65534:\n").getBytes(StandardCharsets.UTF_8), 0644, 0);
        base.addFile("/etc/nsswitch.conf", "passwd: files\ngroup: files\nhosts: files dns\n".getBytes(StandardCharsets.UTF_8), 0644, 0);
        base.addDirectory("/tmp", 01777, 0);
        base.addDirectory(WORKDIR, 0755, USER);
        base.addDirectory("/proc", 0555, 0);
        base.addDirectory("/sys", 0555, 0);
        base.addDirectory("/dev", 0755, 0);
        base.addSymlink("/bin/sh", "busybox", 0);
        // the Docker-style HEALTHCHECK: UP on /actuator/health of this container's HTTP port (busybox wget: no JVM per check)
        base.addFile(HEALTHCHECK, ("#!/bin/sh\n"
            + "# health of the jtick service in this container: /actuator/health on its HTTP port must answer 2xx\n"
            + "# (busybox 1.35's static wget crashes with its own -T timeout: the timeout applet bounds it instead)\n"
            + "exec /bin/busybox timeout 5 /bin/busybox wget -q -O /dev/null \"http://127.0.0.1:${SERVER_PORT:?SERVER_PORT is not set}/actuator/health\"\n")
            .getBytes(StandardCharsets.UTF_8), 0755, 0);
        return base;
    }

    static Map<String, Object> config(final Options o, final ImageSpec spec, final BootJar jar, final List<String> flags,
                                      final List<Layer> layers) {
        final String created = Instant.ofEpochSecond(o.epoch()).toString();
        final List<String> entrypoint = new ArrayList<>();
        entrypoint.add("/opt/java/bin/java");
        entrypoint.addAll(flags);
        entrypoint.add("-cp");
        entrypoint.add("@" + BootJar.APP_HOME + "/classpath");
        entrypoint.add(jar.mainClass());
        final List<String> env = new ArrayList<>(List.of("PATH=/opt/java/bin:/usr/bin:/bin", "JAVA_HOME=/opt/java", "LANG=C.UTF-8",
            // JNA (Chronicle) unpacks its native library under $XDG_CACHE_HOME: keep it in /tmp, writable even on a read-only root
            "XDG_CACHE_HOME=/tmp/.cache", "SERVER_ADDRESS=0.0.0.0", "SERVER_PORT=" + spec.httpPort()));
        env.addAll(spec.env());
        final Map<String, Object> ports = new LinkedHashMap<>();
        ports.put(spec.httpPort() + "/tcp", Map.of());
        for (final int p : spec.ports()) {
            ports.put(p + "/tcp", Map.of());
        }
        final Map<String, Object> health = new LinkedHashMap<>();
        health.put("Test", List.of("CMD", HEALTHCHECK));
        health.put("Interval", 10 * SECOND);
        health.put("Timeout", 6 * SECOND);
        health.put("StartPeriod", 120 * SECOND);
        health.put("Retries", 3);
        final Map<String, Object> c = new LinkedHashMap<>();
        c.put("User", USER + ":" + USER);
        c.put("ExposedPorts", ports);
        c.put("Env", env);
        c.put("Entrypoint", entrypoint);
        c.put("WorkingDir", WORKDIR);
        c.put("Labels", annotations(o, spec));
        c.put("StopSignal", "SIGTERM");
        c.put("Healthcheck", health);
        final Map<String, Object> rootfs = new LinkedHashMap<>();
        rootfs.put("type", "layers");
        rootfs.put("diff_ids", layers.stream().map(l -> l.written().diffId()).toList());
        final Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("created", created);
        doc.put("architecture", "amd64");
        doc.put("os", "linux");
        doc.put("config", c);
        doc.put("rootfs", rootfs);
        doc.put("history", layers.stream().map(l -> {
            final Map<String, Object> h = new LinkedHashMap<>();
            h.put("created", created);
            h.put("created_by", "jtick images: " + l.createdBy());
            return h;
        }).toList());
        return doc;
    }

    private static Map<String, Object> annotations(final Options o, final ImageSpec spec) {
        final Map<String, Object> a = new LinkedHashMap<>();
        a.put("org.opencontainers.image.title", "jtick " + spec.name());
        a.put("org.opencontainers.image.version", o.version());
        a.put("org.opencontainers.image.created", Instant.ofEpochSecond(o.epoch()).toString());
        a.putAll(o.labels());
        return a;
    }

    static void deleteTree(final Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(final Path file, final BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(final Path d, final IOException exc) throws IOException {
                Files.delete(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
