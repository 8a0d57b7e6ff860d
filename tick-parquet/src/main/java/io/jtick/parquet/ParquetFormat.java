package io.jtick.parquet;

import io.jtick.core.hdb.format.StoredTable;
import io.jtick.core.hdb.format.TableFormat;
import io.jtick.core.hdb.store.PartitionStore;

import org.apache.parquet.io.InputFile;

import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Apache Parquet as an HDB table format ({@code parquet/zstd}, {@code parquet/snappy},
 * {@code parquet/lz4} in tier rules): {@code <root>/<date>/<table>/<table>.parquet} beside a
 * {@code .format} file naming the format, written last. Found by tick-core through
 * {@link java.util.ServiceLoader}.
 */
public final class ParquetFormat implements TableFormat {
    /** The format's name in tier rules and in {@code .format} files. */
    public static final String NAME = "parquet";

    /** The Parquet file of a table directory. */
    public static String fileName(final String table) {
        return table + ".parquet";
    }

    /**
     * Opens a Parquet table read through {@code input} rather than a local file (the cold tier's ranged
     * GETs): the footer is read now, {@code onClose} runs when the table's last reader releases it.
     *
     * @param directory    where the table would sit under the root ({@link StoredTable#directory()})
     * @param file         names the file in errors
     * @param formatPrefix before {@code parquet/zstd} in {@link StoredTable#format()} ({@code s3:})
     */
    public static StoredTable open(final Path directory, final Path file, final InputFile input, final Closeable onClose,
                                   final String formatPrefix) throws IOException {
        return ParquetTable.open(directory, file, input, onClose, formatPrefix);
    }

    /** The Parquet file of a table of this format, or null when {@code table} is stored otherwise. */
    public static Path fileOf(final StoredTable table) {
        return table instanceof ParquetTable p && p.format().startsWith(NAME) ? p.file() : null;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public StoredTable open(final Path tableDir) throws IOException {
        return ParquetTable.open(tableDir);
    }

    @Override
    public void write(final StoredTable source, final String compression, final Path tableDir) throws IOException {
        Files.createDirectories(tableDir);
        final Path file = tableDir.resolve(fileName(source.name()));
        ParquetTableWriter.write(source, ParquetTableWriter.codec(compression), file);
        PartitionStore.fsyncFile(file);
        final Path marker = tableDir.resolve(FORMAT_FILE);
        Files.writeString(marker, NAME + "\n", StandardCharsets.US_ASCII);
        PartitionStore.fsyncFile(marker);
        PartitionStore.fsync(tableDir);
    }

    @Override
    public void checkCompression(final String compression) {
        ParquetTableWriter.codec(compression);
    }
}
