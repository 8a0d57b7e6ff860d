package io.jtick.core.hdb.ops;

import io.jtick.core.hdb.format.CorruptPartitionException;
import io.jtick.core.hdb.format.PartitionTable;
import io.jtick.core.hdb.format.TableMeta;
import io.jtick.core.hdb.store.PartitionStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.zip.Deflater;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * A partition's tables as one zip stream, for an RDB and an HDB that share no directory (the Helm
 * chart's default): the RDB's end of day writes the day locally and {@link #write}s it to the HDB,
 * which {@link #install}s it as {@code <root>/<date>}; an operator can import a day the same way.
 * Entries are {@code <table>/<file>} (column files as they are on disk, in their own encoding, not
 * compressed again), each with its CRC-32, which the reader checks.
 *
 * <p>Installing is as safe as a write-down: the files land in a {@link PartitionStore.Staging}
 * directory under the root (which {@link PartitionStore#recover} removes after a crash), are
 * fsynced, each table is opened and every block verified, its metadata must name the date and the
 * table it arrives as; only then is each table swapped in ({@link PartitionStore.Staging#swapIn}:
 * one atomic rename per table, an existing table replaced, as the partition writer swaps). A bad
 * archive leaves the root as it was. An archive cut short at an entry boundary cannot be told from
 * a smaller one: the HTTP transfer's own framing catches that.
 */
public final class PartitionArchive {
    /** A table or file name inside the archive: no separators, no {@code .} or {@code ..}. */
    private static final Pattern TABLE = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_-]*");
    private static final Pattern FILE = Pattern.compile("[A-Za-z0-9_.-]+");

    /** What an install put in place. */
    public record Installed(LocalDate date, Path directory, List<String> tables, long rows, long bytes) {
    }

    private PartitionArchive() {
    }

    /**
     * Writes tables {@code tables} of the partition directory {@code dateDir} to {@code out} (left
     * open); returns the bytes of the archive.
     */
    public static long write(final Path dateDir, final Collection<String> tables, final OutputStream out) throws IOException {
        try (InputStream in = stream(dateDir, tables)) {
            return in.transferTo(out);
        }
    }

    /**
     * The archive of tables {@code tables} of the partition directory {@code dateDir} as a stream
     * that builds it as it is read (64 KiB at a time), for an HTTP body; the files are listed (and a
     * bad table refused) now, read as the stream is.
     */
    public static InputStream stream(final Path dateDir, final Collection<String> tables) throws IOException {
        final List<Map.Entry<String, Path>> files = new ArrayList<>();
        for (final String table : tables) {
            final Path dir = dateDir.resolve(table);
            if (!TABLE.matcher(table).matches() || !Files.isRegularFile(dir.resolve(TableMeta.FILE))) {
                throw new IOException("not a table of the partition [dir=" + dir + "]");
            }
            final List<Path> inTable = new ArrayList<>();
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
                ds.forEach(inTable::add);
            }
            inTable.sort(null);
            for (final Path f : inTable) {
                if (!Files.isRegularFile(f)) {
                    throw new IOException("a table directory holds only files [path=" + f + "]");
                }
                files.add(Map.entry(table + "/" + f.getFileName(), f));
            }
        }
        return new ArchiveStream(files);
    }

    /** Zip bytes made on demand: each read feeds the next chunk of the current file through a {@link ZipOutputStream}. */
    private static final class ArchiveStream extends InputStream {
        private final Iterator<Map.Entry<String, Path>> files;
        private final Chunk out = new Chunk();
        private final ZipOutputStream zip = new ZipOutputStream(out);
        private final byte[] chunk = new byte[1 << 16];
        private InputStream current;
        private boolean finished;
        private int pos;

        ArchiveStream(final List<Map.Entry<String, Path>> files) {
            this.files = files.iterator();
            zip.setLevel(Deflater.NO_COMPRESSION);
        }

        @Override
        public int read() throws IOException {
            final byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(final byte[] b, final int off, final int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            while (pos >= out.size()) {
                if (finished) {
                    return -1;
                }
                out.reset();
                pos = 0;
                fill();
            }
            final int n = Math.min(len, out.size() - pos);
            System.arraycopy(out.bytes(), pos, b, off, n);
            pos += n;
            return n;
        }

        private void fill() throws IOException {
            if (current == null) {
                if (!files.hasNext()) {
                    zip.finish();
                    finished = true;
                    return;
                }
                final Map.Entry<String, Path> f = files.next();
                zip.putNextEntry(new ZipEntry(f.getKey()));
                current = Files.newInputStream(f.getValue());
            }
            final int n = current.read(chunk);
            if (n < 0) {
                current.close();
                current = null;
                zip.closeEntry();
            } else {
                zip.write(chunk, 0, n);
            }
        }

        @Override
        public void close() throws IOException {
            finished = true;
            if (current != null) {
                current.close();
                current = null;
            }
        }
    }

    /** A byte buffer whose array the stream reads from without a copy. */
    private static final class Chunk extends java.io.ByteArrayOutputStream {
        byte[] bytes() {
            return buf;
        }
    }

    /**
     * Reads an archive from {@code in} and installs its tables as partition {@code date} under
     * {@code root}: {@link #receive} then {@link Received#install}.
     */
    public static Installed install(final InputStream in, final Path root, final LocalDate date, final long maxBytes) throws IOException {
        try (Received r = receive(in, root, date, maxBytes)) {
            return r.install();
        }
    }

    /**
     * Reads an archive from {@code in} into a temporary directory under {@code root}, fsyncs it and
     * opens and verifies each table, but makes nothing visible yet (see the class comment). More than
     * {@code maxBytes} of file content, a bad entry name, a CRC mismatch, a truncated archive, a table
     * that does not open or verify, or one whose metadata names another date or table:
     * {@link IllegalArgumentException} naming it, and nothing changes under the root.
     */
    public static Received receive(final InputStream in, final Path root, final LocalDate date, final long maxBytes) throws IOException {
        final PartitionStore.Staging stage = PartitionStore.stage(root, date);
        final Path tmp = stage.directory();
        try {
            final TreeMap<String, List<Path>> tables = unpack(in, tmp, maxBytes);
            if (tables.isEmpty()) {
                throw new IllegalArgumentException("the archive holds no table [date=" + date + "]");
            }
            long rows = 0;
            long bytes = 0;
            for (final var e : tables.entrySet()) {
                final Path dir = tmp.resolve(e.getKey());
                for (final Path f : e.getValue()) {
                    PartitionStore.fsyncFile(f);
                    bytes += Files.size(f);
                }
                PartitionStore.fsync(dir);
                rows += verified(dir, date, e.getKey());
            }
            PartitionStore.fsync(tmp);
            return new Received(root, stage, date, List.copyOf(tables.keySet()), rows, bytes);
        } catch (final IOException | RuntimeException | Error e) {
            try {
                stage.close();
            } catch (final IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** Rows of the table at {@code dir} once it opens, verifies, and names {@code date}/{@code table}. */
    private static long verified(final Path dir, final LocalDate date, final String table) throws IOException {
        try (PartitionTable t = PartitionTable.open(dir)) {
            if (!t.date().equals(date) || !t.name().equals(table)) {
                throw new IllegalArgumentException("the table's metadata names another partition [arrived-as=" + date + "/" + table
                    + ", metadata=" + t.date() + "/" + t.name() + "]");
            }
            t.verify();
            return t.rowCount();
        } catch (final CorruptPartitionException | java.nio.file.NoSuchFileException bad) {
            throw new IllegalArgumentException("a table of the archive does not verify [table=" + table + "]: " + bad.getMessage(), bad);
        }
    }

    /** A received archive, verified and not yet visible; closing it deletes what {@link #install} did not move. */
    public static final class Received implements AutoCloseable {
        private final Path root;
        private final PartitionStore.Staging stage;
        private final LocalDate date;
        private final List<String> tables;
        private final long rows;
        private final long bytes;

        private Received(final Path root, final PartitionStore.Staging stage, final LocalDate date, final List<String> tables,
                         final long rows, final long bytes) {
            this.root = root;
            this.stage = stage;
            this.date = date;
            this.tables = tables;
            this.rows = rows;
            this.bytes = bytes;
        }

        /** Swaps each table in as {@code <root>/<date>/<table>} (replacing one that is there). */
        public Installed install() throws IOException {
            for (final String table : tables) {
                stage.swapIn(table);
            }
            PartitionStore.fsync(root);
            return new Installed(date, stage.target(), tables, rows, bytes);
        }

        @Override
        public void close() throws IOException {
            stage.close();
        }
    }

    /** Unpacks the entries under {@code tmp}; table → its files. */
    private static TreeMap<String, List<Path>> unpack(final InputStream in, final Path tmp, final long maxBytes) throws IOException {
        final TreeMap<String, List<Path>> tables = new TreeMap<>();
        long total = 0;
        final byte[] buf = new byte[1 << 16];
        try (ZipInputStream zip = new ZipInputStream(in)) {
            ZipEntry e;
            while ((e = zip.getNextEntry()) != null) {
                final String name = e.getName();
                final int slash = name.indexOf('/');
                final String table = slash < 0 ? name : name.substring(0, slash);
                final String file = slash < 0 ? "" : name.substring(slash + 1);
                if (!TABLE.matcher(table).matches()) {
                    throw new IllegalArgumentException("bad table name in the archive [entry=" + name + "]");
                }
                if (e.isDirectory() && (file.isEmpty() || file.equals("/"))) {
                    continue;
                }
                if (!FILE.matcher(file).matches() || file.equals(".") || file.equals("..")) {
                    throw new IllegalArgumentException("bad entry in the archive: expected <table>/<file> [entry=" + name + "]");
                }
                final Path dir = tmp.resolve(table);
                final Path target = dir.resolve(file);
                if (Files.exists(target)) {
                    throw new IllegalArgumentException("entry given twice in the archive [entry=" + name + "]");
                }
                Files.createDirectories(dir);
                try (OutputStream out = Files.newOutputStream(target)) {
                    for (int n; (n = zip.read(buf)) > 0; ) {
                        total += n;
                        if (total > maxBytes) {
                            throw new IllegalArgumentException("the archive is larger than allowed [maxBytes=" + maxBytes + "]");
                        }
                        out.write(buf, 0, n);
                    }
                } catch (final ZipException | java.io.EOFException bad) {
                    throw new IllegalArgumentException("the archive is damaged or ends early [entry=" + name + "]: " + bad, bad);
                }
                tables.computeIfAbsent(table, t -> new ArrayList<>()).add(target);
            }
        } catch (final ZipException | java.io.EOFException bad) {
            throw new IllegalArgumentException("not a whole zip archive of a partition: " + bad, bad);
        }
        return tables;
    }
}
