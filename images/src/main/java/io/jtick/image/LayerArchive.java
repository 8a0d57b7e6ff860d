package io.jtick.image;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.GZIPOutputStream;

/**
 * One image layer: a tar of files, directories and symbolic links with one fixed modification time,
 * numeric owners and no owner names, in path order, gzip-compressed. The same files give the same
 * bytes, so the same digest: nothing of the build machine (times, user names, directory order) gets in.
 */
final class LayerArchive {
    /** Permission bits of a file ({@code 0755}), a type bit of tar's mode field ({@code 0100000} file). */
    private static final int FILE = 0100000;
    private static final int DIRECTORY = 040000;
    private static final int SYMLINK = 0120000;

    /** An entry: a file's bytes come from {@code source} or {@code content}; a link has a {@code target}. */
    private record Entry(int type, int mode, int owner, Path source, byte[] content, String target) {
    }

    /** A written layer: the compressed blob (digest, size) and the digest of the tar itself (the config's diff_id). */
    record Written(ImageLayout.Descriptor blob, String diffId, long tarBytes) {
    }

    private final TreeMap<String, Entry> entries = new TreeMap<>();

    /**
     * Adds the tree under {@code dir} at {@code prefix} (an absolute image path, {@code /} for the
     * root): regular files, directories and symbolic links with their permission bits, owned by
     * {@code owner}. Anything else (devices, sockets) stops the build naming the file.
     */
    LayerArchive addTree(final Path dir, final String prefix, final int owner) throws IOException {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException("not a directory [dir=" + dir + "]");
        }
        final String base = prefix.equals("/") ? "" : trim(prefix);
        if (!base.isEmpty()) {
            addParents(base);
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(final Path d, final BasicFileAttributes attrs) throws IOException {
                final String name = join(base, dir.relativize(d));
                if (!name.isEmpty()) {
                    entries.put(name, new Entry(DIRECTORY, permissions(d), owner, null, null, null));
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(final Path f, final BasicFileAttributes attrs) throws IOException {
                final String name = join(base, dir.relativize(f));
                if (attrs.isSymbolicLink()) {
                    entries.put(name, new Entry(SYMLINK, 0777, owner, null, null, Files.readSymbolicLink(f).toString()));
                } else if (attrs.isRegularFile()) {
                    entries.put(name, new Entry(FILE, permissions(f), owner, f, null, null));
                } else {
                    throw new IOException("only files, directories and symbolic links go into a layer [file=" + f + "]");
                }
                return FileVisitResult.CONTINUE;
            }
        });
        return this;
    }

    /** Adds a file with the given bytes and permission bits at {@code path}, with its parent directories. */
    LayerArchive addFile(final String path, final byte[] content, final int mode, final int owner) {
        final String name = trim(path);
        addParents(parent(name));
        entries.put(name, new Entry(FILE, mode, owner, null, content.clone(), null));
        return this;
    }

    /** Adds (or replaces) a directory entry, with its parents. */
    LayerArchive addDirectory(final String path, final int mode, final int owner) {
        final String name = trim(path);
        addParents(parent(name));
        entries.put(name, new Entry(DIRECTORY, mode, owner, null, null, null));
        return this;
    }

    /** Adds a symbolic link {@code path} → {@code target}, with its parents. */
    LayerArchive addSymlink(final String path, final String target, final int owner) {
        final String name = trim(path);
        addParents(parent(name));
        entries.put(name, new Entry(SYMLINK, 0777, owner, null, null, target));
        return this;
    }

    /** Paths this layer holds, without the leading {@code /} (directories too). */
    Set<String> paths() {
        return entries.keySet();
    }

    /**
     * Writes the layer into {@code layout} with every entry's modification time at
     * {@code epochSeconds}; returns its blob descriptor and diff_id.
     */
    Written writeTo(final ImageLayout layout, final long epochSeconds) throws IOException {
        final FileTime time = FileTime.fromMillis(epochSeconds * 1000);
        final MessageDigest tarDigest = ImageLayout.sha256();
        final long[] tarBytes = new long[1];
        final ImageLayout.Descriptor blob = layout.writeBlob(ImageLayout.LAYER_GZIP, out -> {
            final GZIPOutputStream gz = new GZIPOutputStream(out, 1 << 16);
            final CountingStream counted = new CountingStream(new DigestOutputStream(gz, tarDigest));
            try (TarArchiveOutputStream tar = new TarArchiveOutputStream(counted, "UTF-8")) {
                tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
                tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
                tar.setAddPaxHeadersForNonAsciiNames(true);
                for (final Map.Entry<String, Entry> e : entries.entrySet()) {
                    write(tar, e.getKey(), e.getValue(), time);
                }
                tar.finish();
                tarBytes[0] = counted.count;
            }
        });
        return new Written(blob, "sha256:" + ImageLayout.hex(tarDigest.digest()), tarBytes[0]);
    }

    private static void write(final TarArchiveOutputStream tar, final String name, final Entry e, final FileTime time) throws IOException {
        final TarArchiveEntry t;
        if (e.type() == SYMLINK) {
            t = new TarArchiveEntry(name, TarConstants.LF_SYMLINK);
            t.setLinkName(e.target());
        } else {
            t = new TarArchiveEntry(e.type() == DIRECTORY ? name + "/" : name);
        }
        t.setMode(e.type() | e.mode());
        t.setModTime(time);
        t.setIds(e.owner(), e.owner());
        t.setUserName("");
        t.setGroupName("");
        if (e.type() != FILE) {
            tar.putArchiveEntry(t);
            tar.closeArchiveEntry();
            return;
        }
        if (e.content() != null) {
            t.setSize(e.content().length);
            tar.putArchiveEntry(t);
            tar.write(e.content());
        } else {
            t.setSize(Files.size(e.source()));
            tar.putArchiveEntry(t);
            try (InputStream in = Files.newInputStream(e.source())) {
                in.transferTo(tar);
            }
        }
        tar.closeArchiveEntry();
    }

    private void addParents(final String dir) {
        String d = dir;
        while (!d.isEmpty()) {
            entries.putIfAbsent(d, new Entry(DIRECTORY, 0755, 0, null, null, null));
            d = parent(d);
        }
    }

    private static String parent(final String name) {
        final int slash = name.lastIndexOf('/');
        return slash < 0 ? "" : name.substring(0, slash);
    }

    private static String trim(final String path) {
        String p = path;
        while (p.startsWith("/")) {
            p = p.substring(1);
        }
        while (p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        if (p.isEmpty() || p.contains("//") || ("/" + p + "/").contains("/../") || ("/" + p + "/").contains("/./")) {
            throw new IllegalArgumentException("bad path in a layer [path=" + path + "]");
        }
        return p;
    }

    private static String join(final String base, final Path relative) {
        final String r = relative.toString().replace('\\', '/');
        if (r.isEmpty()) {
            return base;
        }
        return base.isEmpty() ? r : base + "/" + r;
    }

    /** Permission, setuid/setgid and sticky bits of a file or directory (not of a link's target). */
    private static int permissions(final Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
    }

    /** Counts the bytes of the uncompressed tar. */
    private static final class CountingStream extends java.io.FilterOutputStream {
        private long count;

        CountingStream(final OutputStream out) {
            super(out);
        }

        @Override
        public void write(final int b) throws IOException {
            out.write(b);
            count++;
        }

        @Override
        public void write(final byte[] b, final int off, final int len) throws IOException {
            out.write(b, off, len);
            count += len;
        }
    }
}
