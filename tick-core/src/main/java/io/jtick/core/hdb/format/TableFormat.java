package io.jtick.core.hdb.format;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A storage format of HDB tables other than jtick's own column files, found through
 * {@link java.util.ServiceLoader} (tick-parquet provides Apache Parquet), so that its library stays
 * out of tick-core and every service but the HDB. A format reads a table directory as a
 * {@link StoredTable} and writes one from any stored table, both under {@code <root>/<date>/<table>}
 * so that the partition store's staging, publication and swaps apply to it unchanged. Such a
 * directory names its format in a {@code .format} file ({@link #FORMAT_FILE}), which the writer
 * writes last.
 */
public interface TableFormat {
    /** The file naming a table directory's format (the partition store's {@code .format}). */
    String FORMAT_FILE = ".format";

    /** The format's name in tier rules ({@code parquet} in {@code parquet/zstd}). */
    String name();

    /** Opens a table directory; throws {@link CorruptPartitionException} naming the file at fault. */
    StoredTable open(Path tableDir) throws IOException;

    /**
     * Writes {@code source} into the empty directory {@code tableDir} with the given compression
     * (the part after the slash in {@code parquet/zstd}; empty for the format's default), files
     * forced to disk.
     */
    void write(StoredTable source, String compression, Path tableDir) throws IOException;

    /** Checks a compression name when a tier rule is read: throws {@link IllegalArgumentException} naming what it accepts. */
    void checkCompression(String compression);
}
