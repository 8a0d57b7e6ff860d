package io.jtick.parquet;

import io.jtick.core.hdb.format.StoredTable;
import io.jtick.core.hdb.ops.TierPolicy;
import io.jtick.core.hdb.ops.TieringJob;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.testing.LeakCheck;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bulk column chunk writer: every column type, with and without a dictionary, read back value for
 * value by parquet-java's own column readers and by jtick's reader, page statistics as parquet-java
 * keeps them, each column encoded as parquet-java's rule picks, and the file read by DuckDB.
 */
@ExtendWith(LeakCheck.class)
class ColumnChunkWriterTest {
    private static final LocalDate DAY = LocalDate.of(2026, 9, 2);
    private static final int ROWS = 70_000;
    private static final int SYMS = 7;

    @TempDir
    Path root;

    private HistoricalDatabase hdb;

    @AfterEach
    void close() {
        if (hdb != null) {
            hdb.close();
        }
    }

    /** Columns of every type; {@code few*} repeat (dictionary pays), {@code many*} hardly (it does not), {@code one} is constant. */
    private static MemorySegment day() {
        final TableSchema schema = TableSchema.of("every", new ColumnDef("fewf64", ColumnType.FLOAT64),
            new ColumnDef("manyf64", ColumnType.FLOAT64), new ColumnDef("f32", ColumnType.FLOAT32),
            new ColumnDef("manyf32", ColumnType.FLOAT32), new ColumnDef("fewi64", ColumnType.INT64),
            new ColumnDef("manyi64", ColumnType.INT64), new ColumnDef("i32", ColumnType.INT32), new ColumnDef("manyi32", ColumnType.INT32),
            new ColumnDef("i16", ColumnType.INT16), new ColumnDef("b", ColumnType.BYTE), new ColumnDef("flag", ColumnType.BOOL),
            new ColumnDef("c", ColumnType.CHAR), new ColumnDef("one", ColumnType.INT64), new ColumnDef("ts", ColumnType.TIMESTAMP));
        final MemorySegment.Builder b = MemorySegment.builder(schema, (int) DAY.toEpochDay());
        final SplittableRandom r = new SplittableRandom(42);
        final long t0 = DAY.toEpochDay() * 86_400_000_000_000L;
        for (int i = 0; i < ROWS; i++) {
            final int k = r.nextInt(SYMS);
            // a NaN, both zeros and infinities among the repeating doubles
            final double few = switch (r.nextInt(40)) {
                case 0 -> Double.NaN;
                case 1 -> -0.0;
                case 2 -> 0.0;
                case 3 -> Double.NEGATIVE_INFINITY;
                default -> 100 + r.nextInt(200) / 100.0;
            };
            b.value(t0 + i * 1_000L + r.nextInt(1000)).symbol("S" + (char) ('A' + k) + (k == 3 ? "\u00e9" : ""))
                .value(few).value(r.nextDouble()).value(k == 5 && r.nextInt(100) == 0 ? Float.NaN : (float) (r.nextInt(50) / 4.0))
                .value(r.nextDouble() * 1e6).value((long) r.nextInt(30) - 10).value(r.nextLong()).value((long) r.nextInt(500))
                .value((long) r.nextInt()).value((long) (short) r.nextInt()).value((long) (byte) r.nextInt())
                .value(r.nextInt(3) == 0 ? 1L : 0L).value((long) "ABCxyz _".charAt(r.nextInt(8))).value(7L)
                .value(t0 + r.nextLong(86_400_000_000_000L)).endRow();
        }
        return b.buildParted();
    }

    @Test
    void shouldWriteEveryTypeAsParquetJavaReadsItBackWithItsStatisticsAndEncodings() throws Exception {
        final MemorySegment day = day();
        new PartitionWriter(root, EncodingPolicy.PLAIN, 65_536, 2, PartitionWriter.WriteHook.NONE).write(DAY, List.of(day));
        hdb = new HistoricalDatabase(root, new TickMetrics());
        hdb.reload();
        final List<StoredTable> plain = hdb.acquire("every", DAY, DAY);
        final Object[] want;
        final String[] symNames = new String[SYMS];
        try {
            want = columns(plain.get(0));
            for (int k = 0; k < SYMS; k++) {
                symNames[k] = plain.get(0).syms().name(k);
            }
        } finally {
            plain.forEach(StoredTable::release);
        }
        assertThat(new TieringJob(hdb, new TierPolicy(List.of(TierPolicy.Tier.parse("lake", -1, "parquet/zstd", Map.of(), Map.of()))),
            65_536).run(DAY.plusDays(1)).failed()).isEmpty();
        final List<StoredTable> lake = hdb.acquire("every", DAY, DAY);
        final TableSchema schema;
        try {
            assertThat(lake.get(0).format()).isEqualTo("parquet/zstd");
            schema = lake.get(0).schema();
            final Object[] got = columns(lake.get(0));
            for (int c = 0; c < want.length; c++) {
                assertThat(got[c]).as("jtick's reader, column %s", schema.column(c).name()).isEqualTo(want[c]);
            }
        } finally {
            lake.forEach(StoredTable::release);
        }
        final Path file = root.resolve(DAY + "/every/every.parquet");
        final Map<String, Encoding> expected = Map.of("time", Encoding.DELTA_BINARY_PACKED, "sym", Encoding.RLE_DICTIONARY,
            "fewf64", Encoding.RLE_DICTIONARY, "manyf64", Encoding.PLAIN, "manyf32", Encoding.PLAIN, "fewi64", Encoding.RLE_DICTIONARY,
            "manyi64", Encoding.DELTA_BINARY_PACKED, "manyi32", Encoding.DELTA_BINARY_PACKED, "c", Encoding.RLE_DICTIONARY,
            "one", Encoding.RLE_DICTIONARY);
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file),
            ParquetReadOptions.builder(new PlainParquetConfiguration()).withCodecFactory(PageCodecs.INSTANCE).build())) {
            final MessageType type = reader.getFooter().getFileMetaData().getSchema();
            final List<ColumnDescriptor> descriptors = type.getColumns();
            final List<BlockMetaData> blocks = reader.getFooter().getBlocks();
            assertThat(blocks.size()).as("row groups").isGreaterThan(1);
            int row = 0;
            for (final BlockMetaData block : blocks) {
                final PageReadStore pages = reader.readNextRowGroup();
                final ColumnReadStoreImpl store = new ColumnReadStoreImpl(pages, new GroupRecordConverter(type).getRootConverter(), type,
                    reader.getFooter().getFileMetaData().getCreatedBy());
                final int n = Math.toIntExact(block.getRowCount());
                for (int c = 0; c < descriptors.size(); c++) {
                    final ColumnReader cr = store.getColumnReader(descriptors.get(c));
                    final ColumnChunkMetaData meta = block.getColumns().get(c);
                    final String name = schema.column(c).name();
                    final Statistics<?> stats = meta.getStatistics();
                    for (int i = 0; i < n; i++) {
                        assertThat(value(schema.type(c), cr)).as("parquet-java's reader, column %s row %s", name, row + i)
                            .isEqualTo(element(want[c], row + i, schema.type(c), symNames));
                        cr.consume();
                    }
                    if (expected.containsKey(name)) {
                        assertThat(meta.getEncodings()).as("encodings of %s", name).contains(expected.get(name));
                    }
                    assertThat(stats.isEmpty()).as("statistics of %s", name).isFalse();
                    assertThat(stats.getNumNulls()).isZero();
                    if (schema.type(c) == ColumnType.FLOAT64 || schema.type(c) == ColumnType.FLOAT32) {
                        checkFloatStats(stats, want[c], row, n, name);
                    }
                }
                row += n;
            }
            assertThat(row).isEqualTo(ROWS);
        }
        try (Connection conn = DriverManager.getConnection("jdbc:duckdb:"); Statement s = conn.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*), sum(i32), sum(manyi64::HUGEINT)::VARCHAR,"
                 + " count(*) FILTER (WHERE isnan(fewf64)), sum(flag::INT), count(DISTINCT c), count(DISTINCT sym), min(one), max(one)"
                 + " FROM read_parquet('" + file + "')")) {
            assertThat(rs.next()).isTrue();
            final int[] i32 = (int[]) want[8];
            final long[] many = (long[]) want[7];
            final double[] few = (double[]) want[2];
            final byte[] flag = (byte[]) want[12];
            long sum = 0;
            java.math.BigInteger big = java.math.BigInteger.ZERO;
            int nans = 0;
            int flags = 0;
            for (int i = 0; i < ROWS; i++) {
                sum += i32[i];
                big = big.add(java.math.BigInteger.valueOf(many[i]));
                nans += Double.isNaN(few[i]) ? 1 : 0;
                flags += flag[i];
            }
            assertThat(rs.getLong(1)).isEqualTo(ROWS);
            assertThat(rs.getLong(2)).isEqualTo(sum);
            assertThat(rs.getString(3)).isEqualTo(big.toString());
            assertThat(rs.getLong(4)).isEqualTo(nans).isPositive();
            assertThat(rs.getLong(5)).isEqualTo(flags);
            assertThat(rs.getLong(6)).isEqualTo(8);
            assertThat(rs.getLong(7)).isEqualTo(SYMS);
            assertThat(rs.getLong(8)).isEqualTo(7);
            assertThat(rs.getLong(9)).isEqualTo(7);
        }
    }

    /** Min and max as parquet-java keeps them: NaN left out, -0.0 for a zero minimum, +0.0 for a zero maximum. */
    private static void checkFloatStats(final Statistics<?> stats, final Object column, final int from, final int n, final String name) {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (int i = from; i < from + n; i++) {
            final double v = column instanceof double[] d ? d[i] : ((float[]) column)[i];
            if (!Double.isNaN(v)) {
                min = Math.min(min, v);
                max = Math.max(max, v);
            }
        }
        min = min == 0 ? -0.0 : min;
        max = max == 0 ? 0.0 : max;
        assertThat(((Number) stats.genericGetMin()).doubleValue()).as("min of %s", name).isEqualTo(min);
        assertThat(((Number) stats.genericGetMax()).doubleValue()).as("max of %s", name).isEqualTo(max);
    }

    /** Every column of a table, whole, as its typed array. */
    private static Object[] columns(final StoredTable t) {
        final Object[] out = new Object[t.schema().columnCount()];
        final ColumnChunk chunk = new ColumnChunk();
        for (int c = 0; c < out.length; c++) {
            final ColumnType type = t.schema().type(c);
            out[c] = type.newArray(t.rowCount());
            if (c == TableSchema.SYM) {
                final int[] codes = (int[]) out[c];
                for (int k = 0; k < t.syms().count(); k++) {
                    java.util.Arrays.fill(codes, t.syms().from(k), t.syms().to(k), k);
                }
                continue;
            }
            for (int at = 0; at < t.rowCount(); at += 10_000) {
                final int n = Math.min(10_000, t.rowCount() - at);
                t.read(c, at, n, chunk);
                System.arraycopy(arrayOf(chunk, type), chunk.offset(), out[c], at, n);
            }
        }
        return out;
    }

    private static Object arrayOf(final ColumnChunk k, final ColumnType type) {
        return switch (type) {
            case TIMESTAMP, INT64 -> k.longs();
            case SYMBOL, INT32 -> k.ints();
            case FLOAT64 -> k.doubles();
            case FLOAT32 -> k.floats();
            case INT16 -> k.shorts();
            case BYTE, BOOL, CHAR -> k.bytes();
        };
    }

    /** One value as parquet-java's column reader gives it, in jtick's terms (floats as their bits, a sym as its name). */
    private static Object value(final ColumnType type, final ColumnReader r) {
        return switch (type) {
            case TIMESTAMP, INT64 -> r.getLong();
            case INT32 -> r.getInteger();
            case INT16 -> (short) r.getInteger();
            case BYTE -> (byte) r.getInteger();
            case BOOL -> r.getBoolean() ? (byte) 1 : (byte) 0;
            case FLOAT64 -> Double.doubleToRawLongBits(r.getDouble());
            case FLOAT32 -> Float.floatToRawIntBits(r.getFloat());
            case CHAR -> r.getBinary().getBytes()[0];
            case SYMBOL -> new String(r.getBinary().getBytes(), StandardCharsets.UTF_8);
        };
    }

    private static Object element(final Object column, final int i, final ColumnType type, final String[] symNames) {
        return switch (type) {
            case TIMESTAMP, INT64 -> ((long[]) column)[i];
            case INT32 -> ((int[]) column)[i];
            case INT16 -> ((short[]) column)[i];
            case BYTE, BOOL, CHAR -> ((byte[]) column)[i];
            case FLOAT64 -> Double.doubleToRawLongBits(((double[]) column)[i]);
            case FLOAT32 -> Float.floatToRawIntBits(((float[]) column)[i]);
            case SYMBOL -> symNames[((int[]) column)[i]];
        };
    }
}
