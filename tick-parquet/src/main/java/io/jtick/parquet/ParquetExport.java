package io.jtick.parquet;

import io.jtick.core.hdb.format.StoredTable;
import io.jtick.core.hdb.format.TableFormats;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.store.PartitionStore;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Writes HDB days as self-contained Parquet files for other tools: {@code <out>/date=YYYY-MM-DD/<table>.parquet}
 * (Hive-style partition folders, so DuckDB's {@code read_parquet('<out>/*&#47;*.parquet', hive_partitioning=true)},
 * pyarrow datasets, polars and Spark see a {@code date} column), one file per table and date, each
 * written to a temporary name and renamed into place. The files are the Parquet tier's own (sorted by sym
 * then time, row groups by sym range, statistics), whatever tier the day is stored in.
 */
public final class ParquetExport {
    /** One file written. */
    public record FileWritten(LocalDate date, String table, String path, int rows, long bytes) {
    }

    private ParquetExport() {
    }

    /**
     * Exports {@code [from, to]} of the HDB root {@code root} as it stands on disk, opening each table
     * without loading the HDB (no recovery: a running HDB's writes in progress are left alone).
     */
    public static List<FileWritten> export(final Path root, final LocalDate from, final LocalDate to, final List<String> tables,
                                           final String compression, final Path out) throws IOException {
        if (from == null || to == null || to.isBefore(from)) {
            throw new IllegalArgumentException("a date range is required, its end not before its start [from=" + from + ", to=" + to + "]");
        }
        final var codec = ParquetTableWriter.codec(compression);
        final Set<String> wanted = new LinkedHashSet<>(tables == null ? List.of() : tables);
        final List<FileWritten> written = new ArrayList<>();
        for (final var e : PartitionStore.scan(root).subMap(from, true, to, true).entrySet()) {
            for (final Path dir : e.getValue()) {
                if (wanted.isEmpty() || wanted.contains(dir.getFileName().toString())) {
                    try (StoredTable t = TableFormats.open(dir)) {
                        written.add(write(t, codec, out));
                    }
                }
            }
        }
        return written;
    }

    /**
     * Exports {@code [from, to]}; {@code tables} empty = every table of each date.
     *
     * @param compression zstd (also null or empty), snappy, lz4 or none
     */
    public static List<FileWritten> export(final HistoricalDatabase hdb, final LocalDate from, final LocalDate to,
                                           final List<String> tables, final String compression, final Path out) throws IOException {
        if (from == null || to == null || to.isBefore(from)) {
            throw new IllegalArgumentException("a date range is required, its end not before its start [from=" + from + ", to=" + to + "]");
        }
        final var codec = ParquetTableWriter.codec(compression);
        final Set<String> names = new LinkedHashSet<>(tables == null ? List.of() : tables);
        if (names.isEmpty()) {
            for (final HistoricalDatabase.PartitionInfo p : hdb.partitions()) {
                if (!p.date().isBefore(from) && !p.date().isAfter(to)) {
                    p.tables().forEach(t -> names.add(t.table()));
                }
            }
        }
        final List<FileWritten> written = new ArrayList<>();
        for (final String table : names) {
            final List<StoredTable> parts = hdb.acquire(table, from, to);
            try {
                for (final StoredTable t : parts) {
                    written.add(write(t, codec, out));
                }
            } finally {
                parts.forEach(StoredTable::release);
            }
        }
        return written;
    }

    private static FileWritten write(final StoredTable t, final CompressionCodecName codec, final Path out) throws IOException {
        final Path dir = out.resolve("date=" + t.date());
        Files.createDirectories(dir);
        final Path file = dir.resolve(ParquetFormat.fileName(t.name()));
        final Path tmp = dir.resolve("." + ParquetFormat.fileName(t.name()) + ".tmp");
        Files.deleteIfExists(tmp);
        try {
            final long bytes = ParquetTableWriter.write(t, codec, tmp);
            PartitionStore.fsyncFile(tmp);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return new FileWritten(t.date(), t.name(), file.toString(), t.rowCount(), bytes);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
