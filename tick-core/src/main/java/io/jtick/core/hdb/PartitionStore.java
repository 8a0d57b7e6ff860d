package io.jtick.core.hdb;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * The directory layout of an HDB root: {@code <root>/<yyyy-MM-dd>/<table>/} table directories,
 * plus the temporary and swap directories a {@link PartitionWriter} uses, which
 * {@link #recover} cleans up after a crash.
 */
public final class PartitionStore {
    static final String TMP_PREFIX = ".tmp-";
    static final String OLD_PREFIX = ".old-";

    private PartitionStore() {
    }

    /** What {@link #recover} did. */
    public record Recovery(List<Path> deleted, List<Path> restored) {
    }

    /**
     * Finishes or undoes interrupted writes: deletes {@code .tmp-*} directories (never renamed into
     * place, so never visible), and for each {@code <date>/.old-<table>-*} restores it when
     * {@code <table>} is missing (the crash fell between the two renames of a swap) or deletes it.
     */
    public static Recovery recover(final Path root) throws IOException {
        final List<Path> deleted = new ArrayList<>();
        final List<Path> restored = new ArrayList<>();
        if (!Files.isDirectory(root)) {
            return new Recovery(deleted, restored);
        }
        try (DirectoryStream<Path> top = Files.newDirectoryStream(root)) {
            for (final Path p : top) {
                final String name = p.getFileName().toString();
                if (name.startsWith(TMP_PREFIX)) {
                    deleteRecursively(p);
                    deleted.add(p);
                } else if (date(name) != null && Files.isDirectory(p)) {
                    try (DirectoryStream<Path> tables = Files.newDirectoryStream(p, OLD_PREFIX + "*")) {
                        for (final Path old : tables) {
                            final String rest = old.getFileName().toString().substring(OLD_PREFIX.length());
                            final int dash = rest.lastIndexOf('-');
                            final Path live = p.resolve(dash > 0 ? rest.substring(0, dash) : rest);
                            if (dash > 0 && !Files.exists(live)) {
                                Files.move(old, live, StandardCopyOption.ATOMIC_MOVE);
                                restored.add(live);
                            } else {
                                deleteRecursively(old);
                                deleted.add(old);
                            }
                        }
                    }
                }
            }
        }
        return new Recovery(List.copyOf(deleted), List.copyOf(restored));
    }

    /** Date directories under {@code root} with their table directories (those holding a {@code .meta}), by date. */
    public static TreeMap<LocalDate, List<Path>> scan(final Path root) throws IOException {
        final TreeMap<LocalDate, List<Path>> out = new TreeMap<>();
        if (!Files.isDirectory(root)) {
            return out;
        }
        try (DirectoryStream<Path> top = Files.newDirectoryStream(root)) {
            for (final Path p : top) {
                final LocalDate d = date(p.getFileName().toString());
                if (d == null || !Files.isDirectory(p)) {
                    continue;
                }
                final List<Path> tables = new ArrayList<>();
                try (DirectoryStream<Path> ts = Files.newDirectoryStream(p)) {
                    for (final Path t : ts) {
                        if (!t.getFileName().toString().startsWith(".") && Files.isRegularFile(t.resolve(TableMeta.FILE))) {
                            tables.add(t);
                        }
                    }
                }
                tables.sort(null);
                out.put(d, tables);
            }
        }
        return out;
    }

    /** The date a directory name stands for, or null. */
    public static LocalDate date(final String name) {
        if (name.length() != 10) {
            return null;
        }
        try {
            return LocalDate.parse(name);
        } catch (final DateTimeParseException e) {
            return null;
        }
    }

    /** Deletes a file tree; a missing tree is fine. */
    public static void deleteRecursively(final Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(final Path file, final BasicFileAttributes attrs) throws IOException {
                deleteIfPresent(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(final Path d, final IOException exc) throws IOException {
                if (exc != null) {
                    throw exc;
                }
                deleteIfPresent(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static void deleteIfPresent(final Path p) throws IOException {
        try {
            Files.delete(p);
        } catch (final NoSuchFileException e) {
            // already gone
        }
    }
}
