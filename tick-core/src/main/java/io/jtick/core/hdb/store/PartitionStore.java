package io.jtick.core.hdb.store;

import io.jtick.core.hdb.format.TableMeta;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The directory layout of an HDB root, {@code <root>/<yyyy-MM-dd>/<table>/} table directories, and
 * the one way anything lands in it: a {@link Staging} directory {@code <root>/.tmp-<date>-<id>/}
 * whose files and directories are forced to disk ({@link #fsyncFile}, {@link #fsync}), then either
 * renamed to {@code <root>/<date>} in one atomic rename ({@link Staging#publish}) or, when the date
 * exists, swapped in table by table ({@link Staging#swapIn}: the old table renamed to
 * {@code <date>/.old-<table>-<id>}, the new one renamed into place, the old one deleted). The
 * partition writer, the tiering rewrite and the partition archive all stage this way;
 * {@link #recover} finishes or undoes a swap a crash interrupted and drops staging directories.
 */
public final class PartitionStore {
    /** A table directory in another format than jtick's column files holds this file, naming the format ({@code parquet}). */
    public static final String FORMAT_FILE = ".format";
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

    /** Date directories under {@code root} with their table directories (those holding a {@code .meta} or a {@code .format}), by date. */
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
                        if (!t.getFileName().toString().startsWith(".")
                            && (Files.isRegularFile(t.resolve(TableMeta.FILE)) || Files.isRegularFile(t.resolve(FORMAT_FILE)))) {
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

    /** Forces a directory's entries (renames, new files) to disk. */
    public static void fsync(final Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /** Forces a file's contents to disk. */
    public static void fsyncFile(final Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
    }

    /**
     * Starts staging (part of) partition {@code date} under {@code root} (created when missing): an
     * empty {@code <root>/.tmp-<date>-<id>/}, invisible to readers until published or swapped in.
     */
    public static Staging stage(final Path root, final LocalDate date) throws IOException {
        Files.createDirectories(root);
        final String id = UUID.randomUUID().toString().substring(0, 8);
        final Path tmp = root.resolve(TMP_PREFIX + date + "-" + id);
        Files.createDirectory(tmp);
        return new Staging(root, date, tmp, id);
    }

    /**
     * A staging directory of one date's tables ({@link #stage}). Closing it deletes what is left of
     * it: nothing after {@link #publish}, the emptied directory after the swaps, everything after a
     * failure (so a failed write leaves what was visible as it was).
     */
    public static final class Staging implements AutoCloseable {
        private final Path root;
        private final LocalDate date;
        private final Path dir;
        private final String id;

        private Staging(final Path root, final LocalDate date, final Path dir, final String id) {
            this.root = root;
            this.date = date;
            this.dir = dir;
            this.id = id;
        }

        /** The staging directory itself. */
        public Path directory() {
            return dir;
        }

        /** Where table {@code table} is staged. */
        public Path table(final String table) {
            return dir.resolve(table);
        }

        /** Where the date's tables are visible: {@code <root>/<date>}. */
        public Path target() {
            return root.resolve(date.toString());
        }

        /** Forces each staged table's directory, then the staging directory, to disk (their files are forced already). */
        public void force(final Collection<String> tables) throws IOException {
            for (final String t : tables) {
                fsync(dir.resolve(t));
            }
            fsync(dir);
        }

        /**
         * Renames the staging directory to {@code <root>/<date>} in one atomic rename and forces the
         * root, when the date does not exist; false, and nothing moved, when it does (or appeared
         * meanwhile): then {@link #swapIn} each table.
         */
        public boolean publish() throws IOException {
            final Path target = target();
            if (Files.exists(target)) {
                return false;
            }
            try {
                Files.move(dir, target, StandardCopyOption.ATOMIC_MOVE);
                fsync(root);
                return true;
            } catch (final FileAlreadyExistsException | java.nio.file.DirectoryNotEmptyException raced) {
                return false;
            }
        }

        /**
         * Swaps staged table {@code table} in as {@code <root>/<date>/<table>}: an existing one is renamed
         * aside ({@code .old-<table>-<id>}), the staged one renamed into place, the date directory
         * forced, the old one deleted. {@link #recover} finishes a swap a crash cut between the renames.
         */
        public void swapIn(final String table) throws IOException {
            final Path dateDir = target();
            Files.createDirectories(dateDir);
            final Path live = dateDir.resolve(table);
            final Path old = dateDir.resolve(OLD_PREFIX + table + "-" + id);
            final boolean replacing = Files.exists(live);
            if (replacing) {
                Files.move(live, old, StandardCopyOption.ATOMIC_MOVE);
            }
            Files.move(dir.resolve(table), live, StandardCopyOption.ATOMIC_MOVE);
            fsync(dateDir);
            if (replacing) {
                deleteRecursively(old);
            }
        }

        /** Deletes what is left of the staging directory (nothing once it was published). */
        @Override
        public void close() throws IOException {
            deleteRecursively(dir);
        }
    }

    private static void deleteIfPresent(final Path p) throws IOException {
        try {
            Files.delete(p);
        } catch (final NoSuchFileException e) {
            // already gone
        }
    }
}
