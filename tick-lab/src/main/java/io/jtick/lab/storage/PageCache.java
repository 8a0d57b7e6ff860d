package io.jtick.lab.storage;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Takes files out of the OS page cache so that the next read comes from the disk, the one way
 * jtick does it: {@code posix_fadvise(POSIX_FADV_DONTNEED)} on the whole file, through
 * {@code dd if=FILE iflag=nocache count=0} (GNU coreutils), which needs no privilege (unlike
 * {@code /proc/sys/vm/drop_caches}) and touches no other file. The kernel drops only clean,
 * unmapped pages: force a file written to disk and unmap it first. {@link #resident} tells how
 * much of a file is still cached ({@code fincore} of util-linux), so a caller can say whether a
 * "cold" read really was.
 */
public final class PageCache {
    /** How pages are dropped, for reports. */
    public static final String METHOD = "posix_fadvise(DONTNEED) per file via 'dd iflag=nocache count=0'";

    private PageCache() {
    }

    /** Drops one file's pages; false when the tool is missing or fails. */
    public static boolean drop(final Path file) {
        return run("dd", "if=" + file, "iflag=nocache", "count=0", "status=none") != null;
    }

    /** Drops every file of a directory (not recursive); false when any drop failed. */
    public static boolean dropAll(final Path dir) {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (final Path f : files) {
                if (Files.isRegularFile(f) && !drop(f)) {
                    return false;
                }
            }
            return true;
        } catch (final IOException e) {
            return false;
        }
    }

    /** Bytes of {@code file} in the page cache now, or -1 when that cannot be told (no {@code fincore}). */
    public static long resident(final Path file) {
        final String out = run("fincore", "--bytes", "--noheadings", "--output", "RES", file.toString());
        if (out == null) {
            return -1;
        }
        try {
            return Long.parseLong(out.trim());
        } catch (final NumberFormatException e) {
            return -1;
        }
    }

    /** Runs a command; its output, or null when it could not run, failed or took over 10 s. */
    private static String run(final String... command) {
        try {
            final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            final String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return null;
            }
            return p.exitValue() == 0 ? out : null;
        } catch (final IOException e) {
            return null;
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
