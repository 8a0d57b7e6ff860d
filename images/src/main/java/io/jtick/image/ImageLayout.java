package io.jtick.image;

import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An OCI image layout directory (image-spec {@code image-layout.md}): {@code oci-layout},
 * {@code blobs/sha256/<digest>} and {@code index.json} naming each image by its
 * {@code org.opencontainers.image.ref.name}. What {@code skopeo copy oci:<dir>:<ref>} and
 * {@code umoci unpack --image <dir>:<ref>} read. JSON is written with a fixed key order so the same
 * content gives the same digests.
 */
final class ImageLayout {
    static final String LAYER_GZIP = "application/vnd.oci.image.layer.v1.tar+gzip";
    static final String CONFIG = "application/vnd.oci.image.config.v1+json";
    static final String MANIFEST = "application/vnd.oci.image.manifest.v1+json";
    static final String INDEX = "application/vnd.oci.image.index.v1+json";
    static final String REF_NAME = "org.opencontainers.image.ref.name";

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** A content descriptor: media type, {@code sha256:<hex>} digest, size in bytes. */
    record Descriptor(String mediaType, String digest, long size) {
        Map<String, Object> json() {
            final Map<String, Object> m = new LinkedHashMap<>();
            m.put("mediaType", mediaType);
            m.put("digest", digest);
            m.put("size", size);
            return m;
        }
    }

    /** Writes a blob's bytes to the stream it is given (and may close it). */
    @FunctionalInterface
    interface BlobWriter {
        void write(OutputStream out) throws IOException;
    }

    private final Path dir;
    private final Path blobs;

    ImageLayout(final Path dir) throws IOException {
        this.dir = dir;
        this.blobs = dir.resolve("blobs").resolve("sha256");
        Files.createDirectories(blobs);
        Files.writeString(dir.resolve("oci-layout"), "{\"imageLayoutVersion\":\"1.0.0\"}");
    }

    Path dir() {
        return dir;
    }

    /** The file holding blob {@code digest}. */
    Path blob(final String digest) {
        if (!digest.startsWith("sha256:")) {
            throw new IllegalArgumentException("only sha256 digests [digest=" + digest + "]");
        }
        return blobs.resolve(digest.substring("sha256:".length()));
    }

    /** Streams a blob into the layout under its digest (written to a temporary file, then renamed). */
    Descriptor writeBlob(final String mediaType, final BlobWriter writer) throws IOException {
        final Path tmp = Files.createTempFile(blobs, ".blob-", ".tmp");
        final MessageDigest digest = sha256();
        final long size;
        try {
            try (OutputStream file = Files.newOutputStream(tmp); DigestOutputStream out = new DigestOutputStream(file, digest)) {
                writer.write(new NoDoubleClose(out));
            }
            size = Files.size(tmp);
            final String d = "sha256:" + hex(digest.digest());
            Files.move(tmp, blob(d), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return new Descriptor(mediaType, d, size);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Writes a JSON document as a blob. */
    Descriptor writeJson(final String mediaType, final Map<String, Object> document) throws IOException {
        final byte[] bytes = JSON.writeValueAsBytes(document);
        return writeBlob(mediaType, out -> out.write(bytes));
    }

    /** Makes blob {@code d} of layout {@code from} part of this one (a hard link where the file system allows, else a copy). */
    void importBlob(final ImageLayout from, final Descriptor d) throws IOException {
        final Path target = blob(d.digest());
        if (Files.exists(target)) {
            return;
        }
        try {
            Files.createLink(target, from.blob(d.digest()));
        } catch (final FileAlreadyExistsException raced) {
            // written meanwhile: same digest, same bytes
        } catch (final IOException | UnsupportedOperationException e) {
            Files.copy(from.blob(d.digest()), target, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** Writes {@code index.json}: one manifest per reference name, in the given order. */
    void writeIndex(final List<Map.Entry<String, Descriptor>> manifests) throws IOException {
        final List<Map<String, Object>> list = manifests.stream().map(e -> {
            final Map<String, Object> m = e.getValue().json();
            m.put("annotations", Map.of(REF_NAME, e.getKey()));
            return m;
        }).toList();
        final Map<String, Object> index = new LinkedHashMap<>();
        index.put("schemaVersion", 2);
        index.put("mediaType", INDEX);
        index.put("manifests", list);
        Files.write(dir.resolve("index.json"), JSON.writeValueAsBytes(index));
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (final NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    static String hex(final byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    /** Lets a writer close what it was given (a tar or gzip stream closes its sink) without closing the file twice. */
    private static final class NoDoubleClose extends java.io.FilterOutputStream {
        private boolean closed;

        NoDoubleClose(final OutputStream out) {
            super(out);
        }

        @Override
        public void write(final byte[] b, final int off, final int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            if (!closed) {
                closed = true;
                out.flush();
            }
        }
    }
}
