package io.jtick.image;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ImageCommandTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path tmp;

    /** A Spring Boot jar as repackage writes it: loader classes, BOOT-INF/classes, BOOT-INF/lib, classpath.idx, layers.idx. */
    static Path bootJar(final Path file, final String mainClass) throws IOException {
        final Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "org.springframework.boot.loader.launch.JarLauncher");
        m.getMainAttributes().putValue("Start-Class", mainClass);
        try (OutputStream out = Files.newOutputStream(file); JarOutputStream jar = new JarOutputStream(out, m)) {
            entry(jar, "org/springframework/boot/loader/launch/JarLauncher.class", "loader");
            entry(jar, "BOOT-INF/classes/application.yml", "server:\n  port: 8010\n");
            entry(jar, "BOOT-INF/classes/io/x/App.class", "app");
            entry(jar, "BOOT-INF/lib/zlib-1.0.jar", "z");
            entry(jar, "BOOT-INF/lib/alib-2.0.jar", "a");
            entry(jar, "BOOT-INF/lib/core-0.1.0-SNAPSHOT.jar", "core");
            entry(jar, "BOOT-INF/classpath.idx", "- \"BOOT-INF/lib/zlib-1.0.jar\"\n- \"BOOT-INF/lib/core-0.1.0-SNAPSHOT.jar\"\n"
                + "- \"BOOT-INF/lib/alib-2.0.jar\"\n");
            entry(jar, "BOOT-INF/layers.idx", "- \"dependencies\":\n  - \"BOOT-INF/lib/alib-2.0.jar\"\n  - \"BOOT-INF/lib/zlib-1.0.jar\"\n"
                + "- \"spring-boot-loader\":\n  - \"org/\"\n- \"snapshot-dependencies\":\n- \"application\":\n  - \"BOOT-INF/classes/\"\n"
                + "  - \"BOOT-INF/classpath.idx\"\n  - \"BOOT-INF/layers.idx\"\n  - \"BOOT-INF/lib/core-0.1.0-SNAPSHOT.jar\"\n"
                + "  - \"META-INF/\"\n");
        }
        return file;
    }

    private static void entry(final JarOutputStream jar, final String name, final String content) throws IOException {
        jar.putNextEntry(new JarEntry(name));
        jar.write(content.getBytes(StandardCharsets.UTF_8));
        jar.closeEntry();
    }

    @Test
    void shouldReadABootJarsMainClassClassPathAndLayers() throws Exception {
        final BootJar jar = BootJar.read(bootJar(tmp.resolve("app.jar"), "io.x.App"));
        assertThat(jar.mainClass()).isEqualTo("io.x.App");
        assertThat(jar.classPath()).isEqualTo("/opt/jtick/classes:/opt/jtick/lib/zlib-1.0.jar:/opt/jtick/lib/core-0.1.0-SNAPSHOT.jar"
            + ":/opt/jtick/lib/alib-2.0.jar");
        assertThat(jar.layers()).containsOnlyKeys("dependencies", "application");
        assertThat(jar.layers().get("dependencies")).extracting(BootJar.File::path)
            .containsExactlyInAnyOrder("/opt/jtick/lib/alib-2.0.jar", "/opt/jtick/lib/zlib-1.0.jar");
        assertThat(jar.layers().get("application")).extracting(BootJar.File::path).containsExactlyInAnyOrder(
            "/opt/jtick/classes/application.yml", "/opt/jtick/classes/io/x/App.class", "/opt/jtick/lib/core-0.1.0-SNAPSHOT.jar");
    }

    @Test
    void shouldRefuseAJarThatIsNotASpringBootOne() throws Exception {
        final Path plain = tmp.resolve("plain.jar");
        try (OutputStream out = Files.newOutputStream(plain); JarOutputStream jar = new JarOutputStream(out, new Manifest())) {
            entry(jar, "a.txt", "a");
        }
        assertThatThrownBy(() -> BootJar.read(plain)).hasMessageContaining("no Start-Class").hasMessageContaining("plain.jar");
    }

    @Test
    void shouldReadJvmOptionsAsJtickDoes() throws Exception {
        final Path opts = Files.writeString(tmp.resolve("jvm.options"), "# comment\n--add-opens=java.base/java.nio=ALL-UNNAMED\n\n"
            + "  -Dx=1   # trailing comment\n");
        assertThat(JvmOptions.read(opts, 17)).containsExactly("--add-opens=java.base/java.nio=ALL-UNNAMED", "-Dx=1");
        assertThat(JvmOptions.read(opts, 25)).endsWith("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow");
        final Path runtime = Files.createDirectories(tmp.resolve("rt"));
        Files.writeString(runtime.resolve("release"), "IMPLEMENTOR=\"Debian\"\nJAVA_VERSION=\"17.0.15\"\n");
        assertThat(JvmOptions.runtimeMajor(runtime)).isEqualTo(17);
    }

    @Test
    void shouldRefuseIncompleteCommandLines() {
        assertThatThrownBy(() -> ImageCommand.parse(new String[] {"--out", "x"})).hasMessageContaining("usage:");
        assertThatThrownBy(() -> ImageCommand.parse(new String[] {"--http-port", "8010"}))
            .hasMessageContaining("give --image NAME=JAR first");
        assertThatThrownBy(() -> ImageCommand.parse(new String[] {"--image", "a=b.jar", "--port", "70000"}))
            .hasMessageContaining("bad port [port=70000]");
        assertThatThrownBy(() -> ImageCommand.parse(new String[] {"--nope", "1"})).hasMessageContaining("unknown option [option=--nope]");
        assertThatThrownBy(() -> ImageCommand.parse(new String[] {"--out", "x", "--rootfs", "r", "--runtime", "rt", "--jvm-options", "j",
            "--version", "1", "--image", "a=a.jar"})).hasMessageContaining("no --http-port for the image [image=a]");
    }

    private String[] args(final Path out) throws IOException {
        final Path rootfs = Files.createDirectories(tmp.resolve("rootfs/bin"));
        Files.writeString(rootfs.resolve("busybox"), "not really busybox");
        final Path runtime = Files.createDirectories(tmp.resolve("runtime/bin"));
        Files.writeString(runtime.resolve("java"), "not really java");
        Files.writeString(tmp.resolve("runtime/release"), "JAVA_VERSION=\"17.0.15\"\n");
        Files.writeString(tmp.resolve("jvm.options"), "--add-opens=java.base/java.nio=ALL-UNNAMED\n-Dchronicle.analytics.disable=true\n");
        bootJar(tmp.resolve("tp.jar"), "io.x.App");
        return new String[] {"--out", out.toString(), "--rootfs", tmp.resolve("rootfs").toString(), "--runtime",
            tmp.resolve("runtime").toString(), "--jvm-options", tmp.resolve("jvm.options").toString(), "--version", "1.2.3",
            "--epoch", "1700000000", "--label", "io.jtick.image.base.packages=libc6=2.36", "--image", "tp-service=" + tmp.resolve("tp.jar"),
            "--http-port", "8010", "--port", "5010", "--env", "TICK_TP_HOST=0.0.0.0"};
    }

    @Test
    void shouldWriteAnOciLayoutWhoseDigestsHoldAndWhoseConfigStartsTheServiceAsJtick() throws Exception {
        final Path out = tmp.resolve("out");
        final ImageCommand.Options o = ImageCommand.parse(args(out));
        final List<ImageCommand.Built> built = ImageCommand.build(o, new PrintStream(OutputStream.nullOutputStream()));
        assertThat(built).hasSize(1);
        final ImageCommand.Built b = built.get(0);
        assertThat(b.reference()).isEqualTo("jtick/tp-service:1.2.3");
        final Path layout = out.resolve("tp-service");
        assertThat(Files.readString(layout.resolve("oci-layout"))).contains("\"imageLayoutVersion\":\"1.0.0\"");
        final JsonNode index = JSON.readTree(layout.resolve("index.json").toFile());
        final JsonNode desc = index.get("manifests").get(0);
        assertThat(desc.get("annotations").get(ImageLayout.REF_NAME).asString()).isEqualTo("1.2.3");
        assertThat(desc.get("digest").asString()).isEqualTo(b.digest());
        final JsonNode manifest = JSON.readTree(verified(layout, desc));
        assertThat(manifest.get("mediaType").asString()).isEqualTo(ImageLayout.MANIFEST);
        final JsonNode config = JSON.readTree(verified(layout, manifest.get("config")));
        final List<String> diffIds = new ArrayList<>();
        config.get("rootfs").get("diff_ids").forEach(d -> diffIds.add(d.asString()));
        assertThat(manifest.get("layers")).hasSize(4).hasSameSizeAs(diffIds);
        for (final JsonNode layer : manifest.get("layers")) {
            verified(layout, layer);
        }
        assertThat(config.get("history")).hasSize(4);
        assertThat(config.get("created").asString()).isEqualTo("2023-11-14T22:13:20Z");
        final JsonNode c = config.get("config");
        assertThat(c.get("User").asString()).isEqualTo("10001:10001");
        assertThat(c.get("WorkingDir").asString()).isEqualTo("/var/jtick");
        assertThat(JSON.writeValueAsString(c.get("Entrypoint"))).isEqualTo("[\"/opt/java/bin/java\","
            + "\"--add-opens=java.base/java.nio=ALL-UNNAMED\",\"-Dchronicle.analytics.disable=true\",\"-cp\",\"@/opt/jtick/classpath\","
            + "\"io.x.App\"]");
        assertThat(JSON.writeValueAsString(c.get("Env"))).contains("\"SERVER_PORT=8010\"", "\"SERVER_ADDRESS=0.0.0.0\"",
            "\"TICK_TP_HOST=0.0.0.0\"");
        assertThat(c.get("ExposedPorts").has("8010/tcp")).isTrue();
        assertThat(c.get("ExposedPorts").has("5010/tcp")).isTrue();
        assertThat(c.get("Healthcheck").get("Test").get(1).asString()).isEqualTo(ImageCommand.HEALTHCHECK);
        assertThat(c.get("Labels").get("io.jtick.image.base.packages").asString()).isEqualTo("libc6=2.36");

        final List<ImageCommand.Built> again = ImageCommand.build(ImageCommand.parse(args(tmp.resolve("out2"))),
            new PrintStream(new ByteArrayOutputStream()));
        assertThat(again.get(0).digest()).as("same inputs, same digest").isEqualTo(b.digest());
        assertThat(again.get(0).compressedBytes()).isEqualTo(b.compressedBytes());
    }

    /** The blob a descriptor names, after checking its size and digest. */
    private static byte[] verified(final Path layout, final JsonNode descriptor) throws Exception {
        final String digest = descriptor.get("digest").asString();
        final byte[] bytes = Files.readAllBytes(layout.resolve("blobs/sha256").resolve(digest.substring(7)));
        assertThat((long) bytes.length).isEqualTo(descriptor.get("size").asLong());
        assertThat("sha256:" + ImageLayout.hex(MessageDigest.getInstance("SHA-256").digest(bytes))).isEqualTo(digest);
        return bytes;
    }
}
