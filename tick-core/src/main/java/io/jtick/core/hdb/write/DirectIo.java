package io.jtick.core.hdb.write;

import org.agrona.BufferUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether a partition's column files are written with direct I/O ({@code O_DIRECT}: from aligned
 * buffers straight to the device, without the kernel's copy into the page cache) — the RDB's
 * setting {@code tick.rdb.hdb.direct-io}: {@code auto} (direct where the file system accepts it, the
 * buffered writer elsewhere), {@code on} (direct, a write fails where it is refused), {@code off}
 * (buffered). Whether a directory's file system accepts it is probed once per directory (a file
 * of one block written, forced and deleted) and remembered; a refusal under {@code auto} is
 * logged and counted ({@link #fallbacks}).
 */
public enum DirectIo {
    AUTO, ON, OFF;

    private static final Logger LOG = LoggerFactory.getLogger(DirectIo.class);
    /** Directory → its block size if it takes direct I/O, 0 if it refuses it. */
    private static final Map<Path, Integer> PROBED = new ConcurrentHashMap<>();
    private static final AtomicLong FALLBACKS = new AtomicLong();

    /** {@code auto}, {@code on} or {@code off} (any case). */
    public static DirectIo parse(final String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (final IllegalArgumentException e) {
            throw new IllegalArgumentException("direct I/O must be auto, on or off [value=" + value + "]", e);
        }
    }

    /** Writes that wanted direct I/O ({@code auto}) and went buffered because the file system refused it. */
    public static long fallbacks() {
        return FALLBACKS.get();
    }

    /**
     * The alignment for direct writes into {@code dir} (its file system's block size), or 0 to
     * write buffered: 0 for {@code off}, and for {@code auto} where the file system refuses direct
     * I/O (logged once per directory, counted per write). {@code on} fails there.
     */
    int alignment(final Path dir) throws IOException {
        if (this == OFF) {
            return 0;
        }
        final Path key = dir.toAbsolutePath().normalize();
        if (!Files.isDirectory(key)) {
            throw new IOException("no such directory [dir=" + key + "]");
        }
        final int align = PROBED.computeIfAbsent(key, DirectIo::probe);
        if (align > 0) {
            return align;
        }
        if (this == ON) {
            throw new IOException("direct I/O refused by the file system; set direct-io (tick.rdb.hdb.direct-io) to auto or off [dir="
                + key + "]");
        }
        FALLBACKS.incrementAndGet();
        return 0;
    }

    /** Tests: takes {@code dir}'s file system to accept direct I/O with blocks of {@code align} bytes (0: to refuse it). */
    static void remember(final Path dir, final int align) {
        PROBED.put(dir.toAbsolutePath().normalize(), align);
    }

    /** Writes, forces and deletes a one-block file in {@code dir} with {@code O_DIRECT}; its block size, or 0 if refused. */
    private static int probe(final Path dir) {
        Path file = null;
        ByteBuffer allocated = null;
        try {
            final int align = (int) Math.max(512, Files.getFileStore(dir).getBlockSize());
            if (Integer.bitCount(align) != 1 || align > (1 << 20)) {
                LOG.warn("direct I/O off: the file system's block size is not a power of two up to 1 MiB [dir={}, blockSize={}]",
                    dir, align);
                return 0;
            }
            allocated = ByteBuffer.allocateDirect(2 * align);
            final ByteBuffer block = allocated.alignedSlice(align).limit(align);
            file = Files.createTempFile(dir, ".direct-io-probe", ".tmp");
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, com.sun.nio.file.ExtendedOpenOption.DIRECT)) {
                while (block.hasRemaining()) {
                    ch.write(block, block.position());
                }
                ch.force(true);
            }
            LOG.info("direct I/O on for partition writes [dir={}, blockSize={}, fileStore={}]", dir, align,
                Files.getFileStore(dir).type());
            return align;
        } catch (final IOException | UnsupportedOperationException e) {
            LOG.warn("direct I/O refused by the file system, partition files are written buffered [dir={}, error={}]", dir, e.toString());
            return 0;
        } finally {
            if (allocated != null) {
                BufferUtil.free(allocated);
            }
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (final IOException e) {
                    LOG.warn("could not delete the direct I/O probe [file={}]", file, e);
                }
            }
        }
    }
}
