package io.jtick.image;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The JVM flags of {@code jvm.options} (one per line, {@code #} starts a comment), as {@code ./jtick}
 * reads them, plus the flags Java 24 and newer need: what every jtick JVM starts with, in the image too.
 */
final class JvmOptions {
    /** What {@code ./jtick} adds when the java is 24 or newer. */
    static final List<String> JAVA_24_FLAGS = List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow");

    private JvmOptions() {
    }

    static List<String> read(final Path file, final int javaMajor) throws IOException {
        final List<String> flags = new ArrayList<>();
        for (final String line : Files.readAllLines(file)) {
            final int hash = line.indexOf('#');
            final String flag = (hash < 0 ? line : line.substring(0, hash)).strip();
            if (!flag.isEmpty()) {
                flags.add(flag);
            }
        }
        if (flags.isEmpty()) {
            throw new IOException("no flags in " + file);
        }
        if (javaMajor >= 24) {
            flags.addAll(JAVA_24_FLAGS);
        }
        return flags;
    }

    /** The major version of the runtime image under {@code runtime} ({@code JAVA_VERSION="17.0.15"} in its {@code release} file). */
    static int runtimeMajor(final Path runtime) throws IOException {
        final Path release = runtime.resolve("release");
        for (final String line : Files.readAllLines(release)) {
            if (line.startsWith("JAVA_VERSION=")) {
                final String v = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                final String major = v.startsWith("1.") ? v.substring(2) : v;
                return Integer.parseInt(major.split("[.+-]")[0]);
            }
        }
        throw new IOException("no JAVA_VERSION in " + release);
    }
}
