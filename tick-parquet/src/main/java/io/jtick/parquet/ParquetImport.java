package io.jtick.parquet;

import io.jtick.core.bulk.HdbImport;
import io.jtick.core.hdb.ops.TierPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySegment;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.impl.ColumnReaderImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.Lock;
import java.util.stream.Stream;

/**
 * Loads Parquet files written by other tools (pyarrow, DuckDB, polars, Spark) into HDB partitions by
 * each row's own date, as the other imports do: the file's columns are checked against the table's
 * schema first, by name (every mismatch listed: a missing column, a type jtick cannot hold, a null,
 * a column the table lacks), then the rows are read row group by row group and each date is
 * written by the partition writer (sorted by sym then time, atomically) in the tier its age puts it.
 * Timestamps in any unit become nanoseconds; narrower integers and float32 widen.
 */
public final class ParquetImport {
    private static final PrimitiveConverter NO_CONVERTER = new PrimitiveConverter() {
    };

    /** The file's schema does not fit the table's: every problem, one per column. */
    public static final class SchemaMismatchException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;
        private final transient List<String> mismatches;

        SchemaMismatchException(final Path file, final String table, final List<String> mismatches) {
            super("the Parquet file does not fit table " + table + " [file=" + file + "]: " + String.join("; ", mismatches));
            this.mismatches = List.copyOf(mismatches);
        }

        /** {@code column price: missing}, ... */
        public List<String> mismatches() {
            return mismatches;
        }
    }

    private ParquetImport() {
    }

    /** The Parquet files under {@code path} (itself when a file): {@code <table>.parquet} when any is so named, else all. */
    public static List<Path> files(final Path path, final String table) throws IOException {
        if (Files.isRegularFile(path)) {
            return List.of(path);
        }
        if (!Files.isDirectory(path)) {
            throw new IllegalArgumentException("no such file or folder [path=" + path + "]");
        }
        final List<Path> all;
        try (Stream<Path> s = Files.walk(path)) {
            all = s.filter(p -> Files.isRegularFile(p) && p.getFileName().toString().endsWith(".parquet")
                && !p.getFileName().toString().startsWith(".")).sorted().toList();
        }
        final List<Path> named = all.stream().filter(p -> p.getFileName().toString().equals(ParquetFormat.fileName(table))).toList();
        if (all.isEmpty()) {
            throw new IllegalArgumentException("no .parquet files under the folder [path=" + path + "]");
        }
        return named.isEmpty() ? all : named;
    }

    /** Every mismatch between a file's schema and the table's (empty when it fits). */
    public static List<String> mismatches(final MessageType file, final TableSchema schema) {
        final List<String> out = new ArrayList<>();
        for (int c = 0; c < schema.columnCount(); c++) {
            final String name = schema.column(c).name();
            if (!file.containsField(name)) {
                out.add("column " + name + ": missing (table " + schema.name() + " has " + schema.type(c).typeName() + ")");
                continue;
            }
            final String why = ParquetSchemas.mismatch(file.getType(name), schema.type(c));
            if (why != null) {
                out.add("column " + name + ": " + why);
            }
        }
        for (final Type t : file.getFields()) {
            if (schema.indexOf(t.getName()) < 0 && !t.getName().startsWith("__index_level_")) {
                out.add("column " + t.getName() + ": not in table " + schema.name());
            }
        }
        return out;
    }

    /**
     * Reads {@code files} into days of {@code schema} (dates of {@code zone}) and writes each day;
     * nothing is written when any file's schema does not fit.
     */
    public static List<HdbImport.DateWritten> load(final List<Path> files, final TableSchema schema, final ZoneId zone,
                                                   final HdbImport.Settings settings) throws IOException {
        final ParquetReadOptions options = ParquetReadOptions.builder(new PlainParquetConfiguration()).withCodecFactory(PageCodecs.INSTANCE)
            .build();
        for (final Path f : files) {
            try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(f), options)) {
                final List<String> bad = mismatches(r.getFooter().getFileMetaData().getSchema(), schema);
                if (!bad.isEmpty()) {
                    throw new SchemaMismatchException(f, schema.name(), bad);
                }
            }
        }
        final TreeMap<LocalDate, MemorySegment.Builder> days = new TreeMap<>();
        for (final Path f : files) {
            try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(f), options)) {
                read(f, r, schema, zone, days);
            }
        }
        final List<HdbImport.DateWritten> out = new ArrayList<>();
        for (final Map.Entry<LocalDate, MemorySegment.Builder> e : days.entrySet()) {
            final TierPolicy.Tier tier = settings.tiers().tierFor(e.getKey(), settings.today());
            final MemorySegment day = e.getValue().build();
            final PartitionWriter writer = new PartitionWriter(settings.root(), tier.policy(), settings.blockBytes(), 2,
                PartitionWriter.WriteHook.NONE);
            final Lock lock = settings.writeLock();
            if (lock != null) {
                lock.lock();
            }
            try {
                final PartitionWriter.Written w = writer.write(e.getKey(), List.of(day));
                out.add(new HdbImport.DateWritten(e.getKey(), schema.name(), day.rowCount(), w.rawBytes(), w.storedBytes(),
                    "tier " + tier.name() + " (" + tier.encoding() + ")"));
            } finally {
                if (lock != null) {
                    lock.unlock();
                }
            }
        }
        return out;
    }

    private static void read(final Path file, final ParquetFileReader r, final TableSchema schema, final ZoneId zone,
                             final TreeMap<LocalDate, MemorySegment.Builder> days) throws IOException {
        final MessageType type = r.getFooter().getFileMetaData().getSchema();
        final ColumnDescriptor[] desc = new ColumnDescriptor[schema.columnCount()];
        final long[] scale = new long[desc.length];
        for (int c = 0; c < desc.length; c++) {
            desc[c] = type.getColumnDescription(new String[] {schema.column(c).name()});
            scale[c] = ParquetSchemas.nanosPerUnit((PrimitiveType) type.getType(schema.column(c).name()));
        }
        long rowBase = 0;
        PageReadStore pages;
        while ((pages = r.readNextRowGroup()) != null) {
            final int n = Math.toIntExact(pages.getRowCount());
            final Object[] cols = new Object[desc.length];
            for (int c = 0; c < desc.length; c++) {
                cols[c] = column(file, rowBase, pages, desc[c], schema.type(c), scale[c], n);
            }
            final long[] time = (long[]) cols[TableSchema.TIME];
            final String[] sym = (String[]) cols[TableSchema.SYM];
            LocalDate current = null;
            long dayEnd = Long.MIN_VALUE;
            long dayStart = Long.MAX_VALUE;
            MemorySegment.Builder b = null;
            for (int i = 0; i < n; i++) {
                if (b == null || time[i] < dayStart || time[i] >= dayEnd) {
                    current = Instant.ofEpochSecond(Math.floorDiv(time[i], 1_000_000_000L)).atZone(zone).toLocalDate();
                    dayStart = current.atStartOfDay(zone).toEpochSecond() * 1_000_000_000L;
                    dayEnd = current.plusDays(1).atStartOfDay(zone).toEpochSecond() * 1_000_000_000L;
                    final LocalDate d = current;
                    b = days.computeIfAbsent(d, x -> MemorySegment.builder(schema, (int) x.toEpochDay()));
                }
                for (int c = 0; c < cols.length; c++) {
                    switch (schema.type(c)) {
                        case SYMBOL -> b.symbol(sym[i]);
                        case FLOAT64, FLOAT32 -> b.value(((double[]) cols[c])[i]);
                        default -> b.value(((long[]) cols[c])[i]);
                    }
                }
                b.endRow();
            }
            rowBase += n;
        }
    }

    /** One column of one row group: long[] (integers, timestamps in ns, bool, char), double[] or String[] (symbol). */
    private static Object column(final Path file, final long rowBase, final PageReadStore pages, final ColumnDescriptor d,
                                 final ColumnType type, final long scale, final int n) throws IOException {
        final ColumnReaderImpl cr = new ColumnReaderImpl(d, pages.getPageReader(d), NO_CONVERTER, null);
        final int maxDef = d.getMaxDefinitionLevel();
        final PrimitiveType.PrimitiveTypeName physical = d.getPrimitiveType().getPrimitiveTypeName();
        final Object out = type == ColumnType.SYMBOL ? new String[n] : type == ColumnType.FLOAT64 || type == ColumnType.FLOAT32
            ? new double[n] : new long[n];
        for (int i = 0; i < n; i++) {
            if (cr.getCurrentDefinitionLevel() < maxDef) {
                throw new IOException("null value: jtick columns hold no nulls [file=" + file + ", column=" + d.getPath()[0] + ", row="
                    + (rowBase + i) + "]");
            }
            switch (type) {
                case SYMBOL -> ((String[]) out)[i] = cr.getBinary().toStringUsingUTF8();
                case FLOAT64, FLOAT32 -> ((double[]) out)[i] = physical == PrimitiveType.PrimitiveTypeName.FLOAT ? cr.getFloat()
                    : cr.getDouble();
                case TIMESTAMP -> ((long[]) out)[i] = Math.multiplyExact(cr.getLong(), scale);
                case INT64 -> ((long[]) out)[i] = physical == PrimitiveType.PrimitiveTypeName.INT32 ? cr.getInteger() : cr.getLong();
                case BOOL -> ((long[]) out)[i] = cr.getBoolean() ? 1 : 0;
                case CHAR -> {
                    final byte[] bytes = cr.getBinary().getBytes();
                    ((long[]) out)[i] = bytes.length == 0 ? ' ' : new String(bytes, StandardCharsets.UTF_8).charAt(0);
                }
                default -> ((long[]) out)[i] = cr.getInteger();
            }
            cr.consume();
        }
        return out;
    }
}
