package io.jtick.image;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * An image unpacked by {@code umoci unpack} (its root file system and the runtime configuration
 * umoci derives from the image config: arguments, environment, user, working directory), and a way
 * to run a command from it as a container runtime would, without one: in a private mount namespace
 * with {@code /proc} and {@code /dev} mounted, then {@code chroot(2)} into the root file system with
 * the image's working directory, user and group ({@code unshare --root --wd --setuid --setgid};
 * GNU {@code chroot} cannot set the working directory). Needs root.
 */
final class ImageRootfs {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String MOUNT_AND_CHROOT = "R=\"$1\"; W=\"$2\"; U=\"$3\"; G=\"$4\"; shift 4; "
        + "mount -t proc proc \"$R/proc\" && mount --rbind /dev \"$R/dev\" && "
        + "exec unshare --root=\"$R\" --wd=\"$W\" --setuid \"$U\" --setgid \"$G\" -- \"$@\"";

    private final Path bundle;
    private final List<String> args;
    private final Map<String, String> env;
    private final String cwd;
    private final int uid;
    private final int gid;
    private final JsonNode imageConfig;

    private ImageRootfs(final Path bundle, final JsonNode runtimeConfig, final JsonNode imageConfig) {
        this.bundle = bundle;
        final JsonNode process = runtimeConfig.get("process");
        this.args = new ArrayList<>();
        process.get("args").forEach(a -> args.add(a.asString()));
        this.env = new LinkedHashMap<>();
        process.get("env").forEach(e -> {
            final String kv = e.asString();
            env.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
        });
        this.cwd = process.get("cwd").asString();
        this.uid = process.get("user").get("uid").asInt();
        this.gid = process.get("user").get("gid").asInt();
        this.imageConfig = imageConfig;
    }

    /** {@code umoci unpack --image <layout>:<ref> <bundle>}, then reads what it wrote and the image's own config. */
    static ImageRootfs unpack(final Path layout, final String ref, final Path bundle) throws IOException, InterruptedException {
        final Process p = new ProcessBuilder("umoci", "unpack", "--image", layout + ":" + ref, bundle.toString()).redirectErrorStream(true)
            .start();
        final String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IOException("umoci unpack failed [image=" + layout + ":" + ref + "]: " + out);
        }
        final JsonNode index = JSON.readTree(layout.resolve("index.json").toFile());
        JsonNode manifest = null;
        for (final JsonNode m : index.get("manifests")) {
            if (ref.equals(m.get("annotations").get(ImageLayout.REF_NAME).asString())) {
                manifest = JSON.readTree(blob(layout, m.get("digest").asString()).toFile());
            }
        }
        if (manifest == null) {
            throw new IOException("no image " + ref + " in " + layout);
        }
        final JsonNode config = JSON.readTree(blob(layout, manifest.get("config").get("digest").asString()).toFile());
        return new ImageRootfs(bundle, JSON.readTree(bundle.resolve("config.json").toFile()), config);
    }

    private static Path blob(final Path layout, final String digest) {
        return layout.resolve("blobs").resolve("sha256").resolve(digest.substring("sha256:".length()));
    }

    Path rootfs() {
        return bundle.resolve("rootfs");
    }

    /** The image's entrypoint and command as umoci set them for the runtime. */
    List<String> args() {
        return args;
    }

    Map<String, String> env() {
        return env;
    }

    int uid() {
        return uid;
    }

    /** The image config ({@code config} object of the OCI image configuration). */
    JsonNode imageConfig() {
        return imageConfig.get("config");
    }

    /**
     * Starts {@code command} inside the image with the image's environment plus {@code overrides},
     * its working directory, user and group. The returned process is the command itself (each step execs).
     */
    Process start(final List<String> command, final Map<String, String> overrides, final Path log) throws IOException {
        final List<String> cmd = new ArrayList<>(List.of("unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
            MOUNT_AND_CHROOT, "sh", rootfs().toString(), cwd, Integer.toString(uid), Integer.toString(gid)));
        cmd.addAll(command);
        final ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        pb.environment().putAll(overrides);
        return pb.start();
    }

    /** Runs {@code command} inside the image to the end; returns its exit status. */
    int run(final List<String> command, final Map<String, String> overrides, final Path log) throws IOException, InterruptedException {
        final Process p = start(command, overrides, log);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("still running after 60s: " + command);
        }
        return p.exitValue();
    }

    /** The user id a running process has ({@code Uid:} of /proc/pid/status). */
    static int uidOf(final long pid) throws IOException {
        for (final String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("Uid:")) {
                return Integer.parseInt(line.substring(4).strip().split("\\s+")[0]);
            }
        }
        throw new IOException("no Uid in /proc/" + pid + "/status");
    }
}
