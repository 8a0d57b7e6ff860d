package io.jtick.lab.storage;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.format.ColumnFile;
import io.jtick.core.hdb.format.ColumnFileWriter;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.schema.ColumnType;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Single operations on jtick's column files for a machine check (KX's io.q run on jtick's own
 * storage; the lab times them): write a plain int64 column, open and close it, read all of it, read
 * its first bytes. Each goes through the classes the HDB and the write-down use
 * ({@link ColumnFileWriter}, {@link ColumnFile}); nothing here is timed or cached.
 */
public final class StorageProbe {
    private StorageProbe() {
    }

    /**
     * Writes {@code file} (replacing it) as a plain int64 column of {@code rows} values, in blocks
     * of {@link PartitionWriter#DEFAULT_BLOCK_BYTES}; forced to disk when {@code sync}. Returns the
     * file's bytes.
     */
    public static long writeColumn(final Path file, final int rows, final boolean sync) throws IOException {
        Files.deleteIfExists(file);
        final int blockRows = PartitionWriter.DEFAULT_BLOCK_BYTES / 8;
        try (ColumnFileWriter w = new ColumnFileWriter(file, ColumnType.INT64, ColumnEncoding.PLAIN, blockRows, rows, sync)) {
            final UnsafeBuffer block = w.block();
            long v = 2;
            for (int at = 0; at < rows;) {
                final int n = Math.min(blockRows, rows - at);
                for (int i = 0; i < n; i++) {
                    block.putLong(i << 3, v, java.nio.ByteOrder.LITTLE_ENDIAN);
                    v = v * 6364136223846793005L + 1442695040888963407L;
                }
                w.writeBlock(n);
                at += n;
            }
            w.finish();
            return w.fileBytes();
        }
    }

    /** Opens the int64 column {@code file} of {@code rows} rows as the HDB does (header, index, checksums, map) and closes it. */
    public static void openClose(final Path file, final int rows) throws IOException {
        ColumnFile.open(file, ColumnType.INT64, rows).close();
    }

    /**
     * Opens the int64 column {@code file}, reads every value (block by block into one buffer,
     * checksums verified as a query would) and closes it (unmapped). Returns the values' sum, so
     * that the reads are not optimised away.
     */
    public static long readColumn(final Path file, final int rows) throws IOException {
        try (ColumnFile f = ColumnFile.open(file, ColumnType.INT64, rows)) {
            final long[] buf = new long[Math.min(rows, Math.max(1, f.blockRows()))];
            long sum = 0;
            for (int at = 0; at < rows;) {
                final int n = Math.min(buf.length, rows - at);
                f.read(at, n, buf, 0);
                for (int i = 0; i < n; i++) {
                    sum += buf[i];
                }
                at += n;
            }
            return sum;
        }
    }

    /** Reads the first {@code bytes} bytes of {@code file} (a column file's header is 64) and closes it; returns the bytes read. */
    public static int readFirstBytes(final Path file, final int bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            final ByteBuffer b = ByteBuffer.allocate(bytes);
            int got = 0;
            while (b.hasRemaining()) {
                final int n = ch.read(b);
                if (n < 0) {
                    break;
                }
                got += n;
            }
            return got;
        }
    }
}
