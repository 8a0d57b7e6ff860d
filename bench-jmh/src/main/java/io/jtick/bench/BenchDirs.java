package io.jtick.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where benchmarks write their data: {@code -Djtick.bench.dir} (default {@code var} under the working directory). */
public final class BenchDirs {
    private BenchDirs() {
    }

    /** A new directory named {@code prefix...} under the benchmarks' directory, made first if missing (a fresh clone has no var). */
    public static Path temp(final String prefix) throws IOException {
        final Path dir = Files.createDirectories(Path.of(System.getProperty("jtick.bench.dir", "var")).toAbsolutePath());
        return Files.createTempDirectory(dir, prefix);
    }
}
