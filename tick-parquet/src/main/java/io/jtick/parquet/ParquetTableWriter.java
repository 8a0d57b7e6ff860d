package io.jtick.parquet;

import io.jtick.core.hdb.format.StoredTable;
import io.jtick.core.hdb.format.SymRanges;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes one stored table (sorted by sym then time) as one Parquet file with parquet-java's own
 * column writers, one row group at a time: each row group holds whole syms up to
 * {@link #GROUP_ROWS} rows (a larger sym gets row groups of its own), so a query of a few syms
 * reads only their row groups; min/max statistics and column indexes per column chunk and page;
 * {@code sym} dictionary-encoded; timestamps and integers delta-encoded, floats byte-stream-split
 * (Parquet v2 data pages); pages compressed zstd, snappy or lz4 (LZ4_RAW). The footer carries
 * the table, date, jtick schema and each sym's row range, so the HDB opens the file without a scan.
 */
final class ParquetTableWriter {
    /** Target rows per row group (whole syms up to this many). */
    static final int GROUP_ROWS = 32_768;
    private static final int PIECE = 16_384;
    private static final int PAGE_BYTES = 1 << 20;

    private ParquetTableWriter() {
    }

    /** The codec of a tier rule's compression name: zstd (also empty), snappy, lz4, none. */
    static CompressionCodecName codec(final String compression) {
        return switch (compression == null ? "" : compression.trim().toLowerCase(Locale.ROOT)) {
            case "", "zstd" -> CompressionCodecName.ZSTD;
            case "snappy" -> CompressionCodecName.SNAPPY;
            case "lz4", "lz4_raw" -> CompressionCodecName.LZ4_RAW;
            case "none", "uncompressed" -> CompressionCodecName.UNCOMPRESSED;
            default -> throw new IllegalArgumentException("unknown Parquet compression [compression=" + compression
                + ", known=zstd,snappy,lz4,none]");
        };
    }

    /**
     * The row groups as cuts: the first row of each, then the row count. A group closes before the
     * sym that would take it past {@code groupRows}; a sym larger than that is split.
     */
    static int[] groups(final SymRanges syms, final int rows, final int groupRows) {
        final int[] cuts = new int[rows / groupRows + syms.count() + 2];
        int n = 0;
        cuts[n++] = 0;
        int start = 0;
        for (int k = 0; k < syms.count(); k++) {
            final int from = syms.from(k);
            final int to = syms.to(k);
            if (to - start > groupRows && from > start) {
                cuts[n++] = from;
                start = from;
            }
            while (to - start > groupRows) {
                start += groupRows;
                cuts[n++] = start;
            }
        }
        if (cuts[n - 1] != rows) {
            cuts[n++] = rows;
        }
        return Arrays.copyOf(cuts, n);
    }

    /** Writes {@code source} to {@code file} (which must not exist) and returns the file's size. */
    static long write(final StoredTable source, final CompressionCodecName codec, final Path file) throws IOException {
        return write(source, codec, file, GROUP_ROWS);
    }

    /** As {@link #write(StoredTable, CompressionCodecName, Path)} with row groups of up to {@code groupRows} rows. */
    static long write(final StoredTable source, final CompressionCodecName codec, final Path file, final int groupRows) throws IOException {
        final TableSchema schema = source.schema();
        final MessageType type = ParquetSchemas.of(schema);
        final ParquetProperties props = ParquetProperties.builder()
            .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_2_0)
            .withDictionaryEncoding(false)
            .withDictionaryEncoding(schema.column(TableSchema.SYM).name(), true)
            .withByteStreamSplitEncoding(true)
            .withPageSize(PAGE_BYTES)
            .build();
        final SymRanges syms = source.syms();
        final int rows = source.rowCount();
        final int[] cuts = groups(syms, rows, groupRows);
        final LocalOutputFile out = new LocalOutputFile(file);
        try (ParquetFileWriter writer = new ParquetFileWriter(out, type, ParquetFileWriter.Mode.CREATE, 128L << 20, 0, null, props)) {
            writer.start();
            final CompressionCodecFactory.BytesInputCompressor compressor = PageCodecs.INSTANCE.getCompressor(codec);
            final Binary[] symValues = new Binary[syms.count()];
            for (int k = 0; k < symValues.length; k++) {
                symValues[k] = Binary.fromConstantByteArray(syms.name(k).getBytes(StandardCharsets.UTF_8));
            }
            final Binary[] chars = new Binary[256];
            for (int b = 0; b < 256; b++) {
                chars[b] = Binary.fromConstantByteArray(new byte[] {(byte) b});
            }
            final ColumnChunk[] chunks = new ColumnChunk[schema.columnCount()];
            for (int c = 0; c < chunks.length; c++) {
                chunks[c] = new ColumnChunk();
            }
            for (int g = 0; g + 1 < cuts.length; g++) {
                final ColumnChunkPageWriteStore pages = new ColumnChunkPageWriteStore(compressor, type, props.getAllocator(),
                    props.getColumnIndexTruncateLength(), props.getPageWriteChecksumEnabled());
                final ColumnWriteStore store = props.newColumnWriteStore(type, pages, pages);
                final List<ColumnDescriptor> descriptors = type.getColumns();
                final ColumnWriter[] writers = new ColumnWriter[descriptors.size()];
                for (int c = 0; c < writers.length; c++) {
                    writers[c] = store.getColumnWriter(descriptors.get(c));
                }
                for (int at = cuts[g]; at < cuts[g + 1]; at += PIECE) {
                    final int n = Math.min(PIECE, cuts[g + 1] - at);
                    for (int c = 0; c < chunks.length; c++) {
                        source.read(c, at, n, chunks[c]);
                    }
                    writeRows(schema, writers, chunks, n, symValues, chars, store);
                }
                store.flush();
                writer.startBlock(cuts[g + 1] - cuts[g]);
                pages.flushToFileWriter(writer);
                writer.endBlock();
                store.close();
                pages.close();
            }
            writer.end(metadata(source));
        }
        return Files.size(file);
    }

    private static void writeRows(final TableSchema schema, final ColumnWriter[] writers, final ColumnChunk[] chunks, final int n,
                                  final Binary[] syms, final Binary[] chars, final ColumnWriteStore store) {
        final int cols = writers.length;
        for (int i = 0; i < n; i++) {
            for (int c = 0; c < cols; c++) {
                final ColumnChunk k = chunks[c];
                final int at = k.offset() + i;
                final ColumnWriter w = writers[c];
                final ColumnType t = schema.type(c);
                switch (t) {
                    case TIMESTAMP, INT64 -> w.write(k.longs()[at], 0, 0);
                    case SYMBOL -> w.write(syms[k.ints()[at]], 0, 0);
                    case INT32 -> w.write(k.ints()[at], 0, 0);
                    case FLOAT64 -> w.write(k.doubles()[at], 0, 0);
                    case FLOAT32 -> w.write(k.floats()[at], 0, 0);
                    case INT16 -> w.write((int) k.shorts()[at], 0, 0);
                    case BYTE -> w.write((int) k.bytes()[at], 0, 0);
                    case BOOL -> w.write(k.bytes()[at] != 0, 0, 0);
                    case CHAR -> w.write(chars[k.bytes()[at] & 0xFF], 0, 0);
                    default -> throw new IllegalStateException("unhandled column type [type=" + t + "]");
                }
            }
            store.endRecord();
        }
    }

    private static Map<String, String> metadata(final StoredTable source) {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put(ParquetSchemas.KEY_TABLE, source.name());
        m.put(ParquetSchemas.KEY_DATE, source.date().toString());
        m.put(ParquetSchemas.KEY_SCHEMA, source.schema().toSchemaString());
        m.put(ParquetSchemas.KEY_SYMS, ParquetSchemas.symsText(source.syms()));
        return m;
    }
}
