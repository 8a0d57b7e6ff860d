package io.jtick.parquet;

import io.jtick.core.hdb.format.CorruptPartitionException;
import io.jtick.core.hdb.format.DecodedBlockCache;
import io.jtick.core.hdb.format.PartitionUnavailableException;
import io.jtick.core.hdb.format.StoredTable;
import io.jtick.core.hdb.format.SymRanges;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.RowSink;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.VersionParser;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.impl.ColumnReaderImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.api.PrimitiveConverter;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One table of one date partition stored as a Parquet file that {@link ParquetTableWriter} wrote,
 * read as a {@link StoredTable}: the footer (row groups, statistics, the jtick schema and sym
 * ranges) is read once at open; a read decodes only the column chunk of the row group holding
 * the rows asked for (a projection of one column, one ranged read of that chunk's bytes) into the
 * reading chunk's own buffer, kept as its attachment for the next, usually adjacent, read. The
 * {@code sym} column is never read: rows are sorted by sym and the footer gives each sym's range.
 * Nothing holds more than one column chunk of one row group per reader.
 *
 * <p>Lifetime as {@link StoredTable}: the file's channel closes with the last reference, so a
 * running query finishes on a file the tiering job has since replaced or deleted.
 */
final class ParquetTable implements StoredTable {
    private static final PrimitiveConverter NO_CONVERTER = new PrimitiveConverter() {
    };

    private final Path directory;
    private final Path file;
    private final Closeable channel;
    private final InputFile input;
    private final long length;
    private final ParquetMetadata footer;
    private final ParquetReadOptions options;
    private final VersionParser.ParsedVersion writer;
    private final TableSchema schema;
    private final LocalDate date;
    private final SymRanges syms;
    private final int[] symStarts;
    private final int[] groupStart;
    private final ColumnDescriptor[] descriptors;
    private final String format;
    private final ColumnChunk[] copyChunks;
    private final AtomicInteger refs = new AtomicInteger(1);
    private final AtomicLong decodes = new AtomicLong();

    private final ColumnPages pages;

    /**
     * Reads a reader makes of one column before it counts as a scan, whose pages are then looked up
     * in the decoded block cache but not added to it (unless the whole column fits a quarter of the
     * cache), so that one scan of a large day does not evict every other query's pages: the plain
     * tier's rule for its encoded blocks ({@code DecodedBlock.SCAN_BLOCKS}).
     */
    static final int SCAN_READS = 8;

    private ParquetTable(final Path directory, final Path file, final Closeable channel, final InputFile input,
                         final ParquetMetadata footer, final String formatPrefix) throws IOException {
        this.directory = directory;
        this.file = file;
        this.channel = channel;
        this.input = input;
        this.length = input.getLength();
        this.footer = footer;
        this.options = ParquetReadOptions.builder(new PlainParquetConfiguration()).withCodecFactory(PageCodecs.INSTANCE)
            .usePageChecksumVerification(true).build();
        final Map<String, String> kv = footer.getFileMetaData().getKeyValueMetaData();
        final String table = kv.get(ParquetSchemas.KEY_TABLE);
        final String schemaString = kv.get(ParquetSchemas.KEY_SCHEMA);
        final String day = kv.get(ParquetSchemas.KEY_DATE);
        final String symText = kv.get(ParquetSchemas.KEY_SYMS);
        if (table == null || schemaString == null || day == null || symText == null) {
            throw new CorruptPartitionException(file, -1, "not a jtick partition: the footer lacks jtick.table, jtick.schema, jtick.date "
                + "or jtick.syms (load files written by other tools with ./jtick import parquet)");
        }
        this.schema = TableSchema.parse(table, schemaString);
        this.date = LocalDate.parse(day);
        this.syms = ParquetSchemas.parseSyms(file, symText);
        this.symStarts = new int[syms.count()];
        for (int k = 0; k < symStarts.length; k++) {
            symStarts[k] = syms.from(k);
        }
        final List<BlockMetaData> blocks = footer.getBlocks();
        this.groupStart = new int[blocks.size() + 1];
        for (int g = 0; g < blocks.size(); g++) {
            groupStart[g + 1] = groupStart[g] + Math.toIntExact(blocks.get(g).getRowCount());
        }
        final List<ColumnDescriptor> cols = footer.getFileMetaData().getSchema().getColumns();
        if (cols.size() != schema.columnCount()) {
            throw new CorruptPartitionException(file, -1, "the Parquet schema has " + cols.size() + " columns, jtick.schema "
                + schema.columnCount());
        }
        this.descriptors = cols.toArray(new ColumnDescriptor[0]);
        this.format = formatPrefix + "parquet/" + (blocks.isEmpty() ? "zstd" : codecName(blocks.get(0).getColumns().get(0)));
        VersionParser.ParsedVersion v;
        try {
            v = VersionParser.parse(footer.getFileMetaData().getCreatedBy());
        } catch (final RuntimeException | VersionParser.VersionParseException e) {
            v = null;
        }
        this.writer = v;
        this.pages = new ColumnPages(input, file.toString(), blocks, descriptors);
        this.copyChunks = new ColumnChunk[schema.columnCount()];
        for (int c = 0; c < copyChunks.length; c++) {
            copyChunks[c] = new ColumnChunk();
        }
    }

    /** Opens {@code <dir>/<table>.parquet}, reading its footer; throws {@link CorruptPartitionException} naming the file. */
    static ParquetTable open(final Path directory) throws IOException {
        final Path file = directory.resolve(ParquetFormat.fileName(directory.getFileName().toString()));
        final FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
        try {
            final ParquetMetadata footer;
            try (ParquetFileReader r = ParquetFileReader.open(new ChannelInputFile(ch),
                ParquetReadOptions.builder(new PlainParquetConfiguration()).withCodecFactory(PageCodecs.INSTANCE).build())) {
                footer = r.getFooter();
            } catch (final RuntimeException e) {
                throw new CorruptPartitionException(file, -1, "unreadable Parquet footer: " + e.getMessage(), e);
            }
            return new ParquetTable(directory, file, ch, new ChannelInputFile(ch), footer, "");
        } catch (final IOException | RuntimeException e) {
            ch.close();
            if (e instanceof IOException io && !(e instanceof CorruptPartitionException)) {
                throw new CorruptPartitionException(file, -1, "unreadable Parquet file: " + e.getMessage(), e);
            }
            throw e;
        }
    }

    /**
     * Opens a Parquet file read through {@code input} (the cold tier's ranged GETs): the footer is read
     * now; {@code onClose} runs with the last release. A {@link PartitionUnavailableException} from the
     * input passes through unchanged; {@code file} names the file in errors, {@code formatPrefix} goes
     * before {@code parquet/zstd} in {@link #format()}.
     */
    static ParquetTable open(final Path directory, final Path file, final InputFile input, final Closeable onClose,
                             final String formatPrefix) throws IOException {
        final ParquetMetadata footer;
        try (ParquetFileReader r = ParquetFileReader.open(input,
            ParquetReadOptions.builder(new PlainParquetConfiguration()).withCodecFactory(PageCodecs.INSTANCE).build())) {
            footer = r.getFooter();
        } catch (final PartitionUnavailableException e) {
            throw e;
        } catch (final RuntimeException e) {
            throw unavailableOr(e, () -> new CorruptPartitionException(file, -1, "unreadable Parquet footer: " + e.getMessage(), e));
        }
        return new ParquetTable(directory, file, onClose, input, footer, formatPrefix);
    }

    /** The store failure somewhere in {@code e}'s causes, or what {@code otherwise} makes. */
    private static <X extends Exception> RuntimeException unavailableOr(final Throwable e, final java.util.function.Supplier<X> otherwise)
        throws X {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof PartitionUnavailableException u) {
                return u;
            }
        }
        throw otherwise.get();
    }

    private static String codecName(final ColumnChunkMetaData c) {
        return switch (c.getCodec()) {
            case LZ4_RAW -> "lz4";
            case UNCOMPRESSED -> "none";
            default -> c.getCodec().name().toLowerCase(Locale.ROOT);
        };
    }

    @Override
    public Path directory() {
        return directory;
    }

    /** The Parquet file. */
    Path file() {
        return file;
    }

    /** Row groups in the file. */
    int groupCount() {
        return groupStart.length - 1;
    }

    /** First row of a row group (the row count for {@code groupCount()}). */
    int groupStart(final int g) {
        return groupStart[g];
    }

    @Override
    public LocalDate date() {
        return date;
    }

    @Override
    public String name() {
        return schema.name();
    }

    @Override
    public String format() {
        return format;
    }

    @Override
    public SymRanges syms() {
        return syms;
    }

    @Override
    public long bytesOnDisk() {
        return length;
    }

    @Override
    public List<StoredColumn> describe() {
        final List<StoredColumn> out = new ArrayList<>(descriptors.length);
        for (int c = 0; c < descriptors.length; c++) {
            long stored = 0;
            final TreeSet<String> encodings = new TreeSet<>();
            for (final BlockMetaData b : footer.getBlocks()) {
                final ColumnChunkMetaData m = b.getColumns().get(c);
                stored += m.getTotalSize();
                m.getEncodings().forEach(e -> encodings.add(e.name()));
            }
            out.add(new StoredColumn(schema.column(c).name(), schema.type(c).typeName(), format + " " + String.join("+", encodings),
                (long) rowCount() * schema.type(c).width(), stored));
        }
        return out;
    }

    @Override
    public boolean retain() {
        for (;;) {
            final int n = refs.get();
            if (n <= 0) {
                return false;
            }
            if (refs.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    @Override
    public void release() {
        if (refs.decrementAndGet() == 0) {
            try {
                channel.close();
            } catch (final IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Decodes every column chunk with page checksums verified. */
    @Override
    public void verify() throws IOException {
        for (int g = 0; g < groupCount(); g++) {
            final int rows = groupStart[g + 1] - groupStart[g];
            for (int c = 0; c < descriptors.length; c++) {
                if (c == TableSchema.SYM) {
                    verifySym(g);
                } else if (rows > 0) {
                    pages(g, c, 0, rows, null, ColumnPages.VERIFY);
                }
            }
        }
    }

    @Override
    public boolean mapped(final int column) {
        return false;
    }

    @Override
    public void copyRows(final int column, final int from, final int count, final Object dst, final int dstIndex) {
        final ColumnChunk chunk = copyChunks[column];
        synchronized (chunk) {
            for (int done = 0; done < count;) {
                final int n = Math.min(count - done, DEFAULT_CHUNK_ROWS);
                read(column, from + done, n, chunk);
                PageValues.copy(chunk, dst, dstIndex + done, n);
                done += n;
            }
        }
    }

    @Override
    public long time(final int row) {
        final ColumnChunk chunk = copyChunks[TableSchema.TIME];
        synchronized (chunk) {
            read(TableSchema.TIME, row, 1, chunk);
            return chunk.longs()[chunk.offset()];
        }
    }

    @Override
    public int lowerBound(final int from, final int to, final long t) {
        return lowerBound(TableSchema.TIME, from, to, t, new ColumnChunk());
    }

    /**
     * The first row of {@code [from, to)} (sorted on {@code column}) at or after {@code t}: a page at a
     * time, skipping the pages whose largest value (the column index's) is before {@code t} without
     * decoding them; the first page that reaches {@code t} is decoded into {@code probe} (kept for
     * the next search, usually the same or the next sym) and searched in memory.
     */
    @Override
    public int lowerBound(final int column, final int from, final int to, final long t, final ColumnChunk probe) {
        for (int a = from; a < to;) {
            final int g = groupOf(a);
            final int base = groupStart[g];
            final int b = Math.min(to, groupStart[g + 1]);
            final int s;
            final int e;
            try {
                s = base + pages.firstPageReaching(g, column, a - base, b - base, t);
                e = s < b ? Math.min(b, base + pages.pageEnd(g, column, s - base)) : b;
            } catch (final IOException | RuntimeException x) {
                throw unavailableOrCorrupt(x, g, column);
            }
            if (s < b) {
                read(column, s, e - s, probe);
                final long[] v = probe.longs();
                final int off = probe.offset();
                if (v[off + e - s - 1] >= t) {
                    int lo = off;
                    int hi = off + e - s;
                    while (lo < hi) {
                        final int mid = (lo + hi) >>> 1;
                        if (v[mid] < t) {
                            lo = mid + 1;
                        } else {
                            hi = mid;
                        }
                    }
                    return s + lo - off;
                }
            }
            a = e;
        }
        return to;
    }

    @Override
    public TableSchema schema() {
        return schema;
    }

    @Override
    public int epochDay() {
        return (int) date.toEpochDay();
    }

    @Override
    public int rowCount() {
        return groupStart[groupStart.length - 1];
    }

    @Override
    public boolean timeSorted() {
        return syms.count() <= 1;
    }

    @Override
    public boolean symParted() {
        return true;
    }

    @Override
    public int symId(final String sym) {
        return syms.code(sym);
    }

    @Override
    public String symName(final int symId) {
        return syms.name(symId);
    }

    @Override
    public int symIdLimit() {
        return syms.count();
    }

    @Override
    public void symRows(final int symId, final RowSink sink) {
        if (symId >= 0 && symId < syms.count()) {
            sink.range(syms.from(symId), syms.to(symId));
        }
    }

    /** Column chunks decoded so far (what a query cost in reads). */
    long decodes() {
        return decodes.get();
    }

    private void checkOpen() {
        if (refs.get() <= 0) {
            throw new IllegalStateException("table closed [file=" + file + "]");
        }
    }

    @Override
    public void read(final int column, final int from, final int length, final ColumnChunk chunk) {
        checkOpen();
        if (from < 0 || length < 0 || from + length > rowCount()) {
            throw new IndexOutOfBoundsException("rows outside table [file=" + file + ", from=" + from + ", length=" + length + "]");
        }
        final ColumnType type = schema.type(column);
        if (column == TableSchema.SYM) {
            final int[] ids = chunk.intBuffer(length);
            int k = symAt(from);
            for (int i = 0; i < length; i++) {
                while (from + i >= syms.to(k)) {
                    k++;
                }
                ids[i] = k;
            }
            chunk.wrap(ids, 0, length);
            return;
        }
        final DecodedPages held = held(chunk);
        if (length == 0) {
            chunk.wrap(type, chunk.buffer(type, 0), 0, 0);
            return;
        }
        if (!held.holds(column, from, from + length)) {
            final int g = groupOf(from);
            if (from + length <= groupStart[g + 1]) {
                decoded(held, g, column, from, from + length);
            } else {
                final Object buf = chunk.buffer(type, length);
                for (int done = 0; done < length;) {
                    final int row = from + done;
                    final int gg = groupOf(row);
                    final int n = Math.min(length - done, groupStart[gg + 1] - row);
                    decoded(held, gg, column, row, row + n);
                    System.arraycopy(held.values, row - held.first, buf, done, n);
                    done += n;
                }
                chunk.wrap(type, buf, 0, length);
                return;
            }
        }
        chunk.wrap(type, held.values, from - held.first, length);
    }

    @Override
    public void read(final int column, final int[] rows, final int at, final int length, final ColumnChunk chunk) {
        checkOpen();
        final ColumnType type = schema.type(column);
        final Object buf = chunk.buffer(type, length);
        if (column == TableSchema.SYM) {
            final int[] ids = (int[]) buf;
            for (int i = 0; i < length; i++) {
                ids[i] = symAt(rows[at + i]);
            }
            chunk.wrap(ids, 0, length);
            return;
        }
        final DecodedPages held = held(chunk);
        for (int i = 0; i < length; i++) {
            final int row = rows[at + i];
            if (row < 0 || row >= rowCount()) {
                throw new IndexOutOfBoundsException("row outside table [file=" + file + ", row=" + row + "]");
            }
            if (!held.holds(column, row, row + 1)) {
                // the pages up to the last of the following ascending rows in this row group, in one read
                final int g = groupOf(row);
                int last = row;
                for (int j = i + 1; j < length && rows[at + j] > last && rows[at + j] < groupStart[g + 1]; j++) {
                    last = rows[at + j];
                }
                decoded(held, g, column, row, last + 1);
            }
            System.arraycopy(held.values, row - held.first, buf, i, 1);
        }
        chunk.wrap(type, buf, 0, length);
    }

    private int symAt(final int row) {
        final int k = Arrays.binarySearch(symStarts, row);
        return k >= 0 ? k : -k - 2;
    }

    private int groupOf(final int row) {
        final int g = Arrays.binarySearch(groupStart, row);
        return g >= 0 ? Math.min(g, groupStart.length - 2) : -g - 2;
    }

    private DecodedPages held(final ColumnChunk chunk) {
        if (chunk.attachment instanceof DecodedPages d && d.table == this) {
            return d;
        }
        final DecodedPages d = new DecodedPages();
        d.table = this;
        chunk.attachment = d;
        return d;
    }

    /** Decodes into {@code held} the pages of {@code column} holding table rows {@code [from, to)}, all in row group {@code g}. */
    private void decoded(final DecodedPages held, final int g, final int column, final int from, final int to) {
        held.column = -1;
        if (held.readsColumn != column) {
            held.readsColumn = column;
            held.reads = 0;
        }
        held.reads++;
        final long columnBytes = (long) rowCount() * schema.type(column).width();
        final boolean keep = held.reads <= SCAN_READS || DecodedBlockCache.shared().keepsWhole(columnBytes);
        final ColumnPages.Span span = pages(g, column, from - groupStart[g], to - groupStart[g], held.owned,
            keep ? ColumnPages.KEEP : ColumnPages.LOOK_UP);
        held.values = span.values();
        if (!span.shared()) {
            held.owned = span.values();
        }
        held.first = groupStart[g] + span.first();
        held.count = span.count();
        held.column = column;
    }

    private ColumnPages.Span pages(final int g, final int column, final int from, final int to, final Object reuse, final int caching) {
        decodes.incrementAndGet();
        try {
            return pages.read(g, column, schema.type(column), from, to, reuse, caching);
        } catch (final PartitionUnavailableException e) {
            throw e;
        } catch (final CorruptPartitionException e) {
            throw new UncheckedIOException(e);
        } catch (final IOException | RuntimeException e) {
            throw unavailableOrCorrupt(e, g, column);
        }
    }

    private RuntimeException unavailableOrCorrupt(final Exception e, final int g, final int column) {
        try {
            return unavailableOr(e, () -> new CorruptPartitionException(file, g, "bad column chunk [column=" + schema.column(column).name()
                + "]: " + e.getMessage(), e));
        } catch (final CorruptPartitionException x) {
            return new UncheckedIOException(x);
        }
    }

    /** Decodes the sym column chunk of a row group through parquet-java's column reader, page checksums verified. */
    private void verifySym(final int g) throws IOException {
        final int n = groupStart[g + 1] - groupStart[g];
        final ColumnDescriptor d = descriptors[TableSchema.SYM];
        try (ParquetFileReader r = new ParquetFileReader(input, footer, options, input.newStream())) {
            r.setRequestedSchema(List.of(d));
            final PageReadStore store = r.readRowGroup(g);
            final ColumnReaderImpl cr = new ColumnReaderImpl(d, store.getPageReader(d), NO_CONVERTER, writer);
            for (int i = 0; i < n; i++) {
                cr.getBinary();
                cr.consume();
            }
        } catch (final PartitionUnavailableException e) {
            throw e;
        } catch (final RuntimeException e) {
            throw unavailableOr(e, () -> new CorruptPartitionException(file, g, "bad column chunk [column=" + schema.column(TableSchema.SYM)
                .name() + "]: " + e.getMessage(), e));
        }
    }
}
