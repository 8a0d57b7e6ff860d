package io.jtick.parquet;

import io.jtick.core.hdb.format.CorruptPartitionException;
import io.jtick.core.hdb.format.DecodedBlockCache;
import io.jtick.core.schema.ColumnType;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.DataPageHeaderV2;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Util;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.internal.hadoop.metadata.IndexReference;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.zip.CRC32;

/**
 * Reads the data pages of one column chunk that hold a range of rows, found from the chunk's offset
 * index (read once per chunk and kept), in one ranged read of just those pages, and decodes each
 * page whole into an array of the column's values: dictionary ids and DELTA_BINARY_PACKED integers
 * in bulk ({@link BulkDecoding}), plain fixed-width values copied straight from the page, other
 * encodings through parquet-java's {@link ValuesReader}; a dictionary is decoded once per chunk into
 * an array its ids index. Decoded pages go to the process's bounded {@link DecodedBlockCache}, so a
 * repeated query decodes nothing. Columns are required and flat, so there are no repetition or
 * definition levels to decode and no record assembly. Page checksums are verified when the writer
 * set them. Thread-safe: the cached indexes are published through atomic arrays; every read has its
 * own stream and buffers; cached pages are never written after they are added.
 */
final class ColumnPages {
    private final InputFile input;
    private final String file;
    private final List<BlockMetaData> blocks;
    private final ColumnDescriptor[] descriptors;
    private final int columns;
    private final AtomicReferenceArray<OffsetIndex> offsets;
    private final AtomicReferenceArray<ColumnIndex> indexes;
    private final AtomicReferenceArray<Object> dictionaries;
    private final AtomicReferenceArray<long[]> maxima;
    /** Column {@code c}'s pages are {@code -(idBase + c)} in the decoded block cache. */
    private final long idBase;
    private static final AtomicLong IDS = new AtomicLong(1);

    /** {@link #read}: look pages up in the decoded block cache and add the ones decoded. */
    static final int KEEP = 2;
    /** {@link #read}: look pages up in the decoded block cache, add none (a scan). */
    static final int LOOK_UP = 1;
    /** {@link #read}: neither (every page decoded from its bytes, none kept). */
    static final int VERIFY = 0;

    /** Decoded rows of one column: {@code count} values from row {@code first} of the row group. */
    record Span(int first, int count, Object values, boolean shared) {
    }

    ColumnPages(final InputFile input, final String file, final List<BlockMetaData> blocks, final ColumnDescriptor[] descriptors) {
        this.input = input;
        this.file = file;
        this.blocks = blocks;
        this.descriptors = descriptors;
        this.columns = descriptors.length;
        this.offsets = new AtomicReferenceArray<>(blocks.size() * columns);
        this.indexes = new AtomicReferenceArray<>(blocks.size() * columns);
        this.dictionaries = new AtomicReferenceArray<>(blocks.size() * columns);
        this.maxima = new AtomicReferenceArray<>(blocks.size() * columns);
        this.idBase = IDS.getAndAdd(columns) + 1;
    }

    /**
     * The dictionary of a column chunk as an array of the column's values (ints for the narrow
     * integer types, a char's byte), read and decoded on first use; null when the chunk has none.
     */
    private Object dictionary(final int g, final int c, final ColumnType type) throws IOException {
        final int k = g * columns + c;
        Object values = dictionaries.get(k);
        if (values == null) {
            final ColumnChunkMetaData m = chunk(g, c);
            if (!m.hasDictionaryPage()) {
                return null;
            }
            final long start = m.getDictionaryPageOffset();
            final byte[] bytes = readBytes(start, Math.toIntExact(m.getFirstDataPageOffset() - start));
            final ByteArrayInputStream in = new ByteArrayInputStream(bytes);
            final PageHeader h = Util.readPageHeader(in);
            if (h.getType() != PageType.DICTIONARY_PAGE) {
                throw new IOException("not a dictionary page [type=" + h.getType() + ", column=" + descriptors[c].getPath()[0] + "]");
            }
            final int payload = bytes.length - in.available();
            checkCrc(h, bytes, payload, c);
            final byte[] raw = m.getCodec() == CompressionCodecName.UNCOMPRESSED ? slice(bytes, payload, h.getCompressed_page_size())
                : PageCodecs.decompress(m.getCodec(), slice(bytes, payload, h.getCompressed_page_size()), h.getUncompressed_page_size());
            final DictionaryPage page = new DictionaryPage(BytesInput.from(raw), h.getDictionary_page_header().getNum_values(),
                Encoding.valueOf(h.getDictionary_page_header().getEncoding().name()));
            final Dictionary d = page.getEncoding().initDictionary(descriptors[c], page);
            final int n = d.getMaxId() + 1;
            values = switch (type) {
                case TIMESTAMP, INT64 -> {
                    final long[] a = new long[n];
                    for (int i = 0; i < n; i++) {
                        a[i] = d.decodeToLong(i);
                    }
                    yield a;
                }
                case INT32, INT16, BYTE -> {
                    final int[] a = new int[n];
                    for (int i = 0; i < n; i++) {
                        a[i] = d.decodeToInt(i);
                    }
                    yield a;
                }
                case FLOAT64 -> {
                    final double[] a = new double[n];
                    for (int i = 0; i < n; i++) {
                        a[i] = d.decodeToDouble(i);
                    }
                    yield a;
                }
                case FLOAT32 -> {
                    final float[] a = new float[n];
                    for (int i = 0; i < n; i++) {
                        a[i] = d.decodeToFloat(i);
                    }
                    yield a;
                }
                case CHAR -> {
                    final byte[] a = new byte[n];
                    for (int i = 0; i < n; i++) {
                        a[i] = d.decodeToBinary(i).getBytesUnsafe()[0];
                    }
                    yield a;
                }
                default -> throw new IOException("a dictionary where none is read [type=" + type + "]");
            };
            dictionaries.set(k, values);
        }
        return values;
    }

    private void checkCrc(final PageHeader h, final byte[] bytes, final int payload, final int c) throws IOException {
        if (h.isSetCrc()) {
            final CRC32 crc = new CRC32();
            crc.update(bytes, payload, h.getCompressed_page_size());
            if ((int) crc.getValue() != h.getCrc()) {
                throw new IOException("page checksum mismatch [column=" + descriptors[c].getPath()[0] + "]");
            }
        }
    }

    /** The offset index of a column chunk (page locations and first rows), read on first use. */
    OffsetIndex offsetIndex(final int g, final int c) throws IOException {
        final int k = g * columns + c;
        OffsetIndex o = offsets.get(k);
        if (o == null) {
            final IndexReference ref = chunk(g, c).getOffsetIndexReference();
            if (ref == null) {
                throw new CorruptPartitionException(java.nio.file.Path.of(file), g, "no offset index [column="
                    + descriptors[c].getPath()[0] + "]");
            }
            o = ParquetMetadataConverter.fromParquetOffsetIndex(Util.readOffsetIndex(new ByteArrayInputStream(
                readBytes(ref.getOffset(), ref.getLength()))));
            offsets.set(k, o);
        }
        return o;
    }

    /** The column index of a column chunk (each page's min and max), read on first use; null when the file has none. */
    ColumnIndex columnIndex(final int g, final int c) throws IOException {
        final int k = g * columns + c;
        ColumnIndex ci = indexes.get(k);
        if (ci == null) {
            final IndexReference ref = chunk(g, c).getColumnIndexReference();
            if (ref == null) {
                return null;
            }
            ci = ParquetMetadataConverter.fromParquetColumnIndex(descriptors[c].getPrimitiveType(), Util.readColumnIndex(
                new ByteArrayInputStream(readBytes(ref.getOffset(), ref.getLength()))));
            indexes.set(k, ci);
        }
        return ci;
    }

    /**
     * Where a search for the first value at or after {@code t} in rows {@code [from, to)} of row
     * group {@code g} (sorted on INT64 column {@code c}) must start: the first row at or after
     * {@code from} of the first page whose largest value (the column index's max) reaches {@code t};
     * {@code to} when none does. A page before it holds only values before {@code t}, whichever
     * rows of it are in the range. {@code from} itself when the file has no column index.
     */
    int firstPageReaching(final int g, final int c, final int from, final int to, final long t) throws IOException {
        final long[] max = pageMaxima(g, c);
        if (max == null) {
            return from;
        }
        final OffsetIndex o = offsetIndex(g, c);
        final int last = pageOf(o, Math.max(from, to - 1));
        for (int p = pageOf(o, from); p <= last; p++) {
            if (max[p] >= t) {
                return Math.max(from, (int) o.getFirstRowIndex(p));
            }
        }
        return to;
    }

    /** The row after the page holding row {@code row} of row group {@code g} (group-relative). */
    int pageEnd(final int g, final int c, final int row) throws IOException {
        final OffsetIndex o = offsetIndex(g, c);
        final int p = pageOf(o, row);
        return p + 1 < o.getPageCount() ? (int) o.getFirstRowIndex(p + 1) : Math.toIntExact(blocks.get(g).getRowCount());
    }

    /** Each page's largest value of an INT64 column chunk, from its column index; null when there is none. */
    private long[] pageMaxima(final int g, final int c) throws IOException {
        final int k = g * columns + c;
        long[] max = maxima.get(k);
        if (max == null) {
            final ColumnIndex ci = columnIndex(g, c);
            if (ci == null || descriptors[c].getPrimitiveType().getPrimitiveTypeName()
                != org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT64) {
                return null;
            }
            final List<ByteBuffer> values = ci.getMaxValues();
            final List<Boolean> nulls = ci.getNullPages();
            max = new long[values.size()];
            for (int p = 0; p < max.length; p++) {
                final ByteBuffer v = values.get(p);
                max[p] = nulls.get(p) || v.remaining() < Long.BYTES ? Long.MAX_VALUE
                    : v.duplicate().order(ByteOrder.LITTLE_ENDIAN).getLong(v.position());
            }
            maxima.set(k, max);
        }
        return max;
    }

    /** The page of a column chunk holding row {@code row} of the row group. */
    static int pageOf(final OffsetIndex o, final long row) {
        int lo = 0;
        int hi = o.getPageCount() - 1;
        while (lo < hi) {
            final int mid = (lo + hi + 1) >>> 1;
            if (o.getFirstRowIndex(mid) <= row) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    private ColumnChunkMetaData chunk(final int g, final int c) {
        return blocks.get(g).getColumns().get(c);
    }

    /**
     * Decodes the pages of column {@code c} in row group {@code g} that hold rows {@code [from, to)}
     * of the group (whole pages, so the span may start before {@code from} and end after {@code to}).
     * Each page is looked up first in the process's {@link DecodedBlockCache} and, when decoded, added
     * to it, as {@code caching} says: {@link #KEEP} both, {@link #LOOK_UP} only the lookup (a scan),
     * {@link #VERIFY} neither (the verify pass decodes every byte and keeps nothing). A
     * span of one page is the cached array itself ({@link Span#shared}: read only); a span of several
     * is copied into {@code reuse} when it is of the type and large enough, else a new array.
     */
    Span read(final int g, final int c, final ColumnType type, final int from, final int to, final Object reuse, final int caching)
        throws IOException {
        final OffsetIndex o = offsetIndex(g, c);
        final int groupRows = Math.toIntExact(blocks.get(g).getRowCount());
        final int p0 = pageOf(o, from);
        final int p1 = pageOf(o, Math.max(from, to - 1));
        final int first = (int) o.getFirstRowIndex(p0);
        final int end = p1 + 1 < o.getPageCount() ? (int) o.getFirstRowIndex(p1 + 1) : groupRows;
        final int n = end - first;
        final DecodedBlockCache cache = DecodedBlockCache.shared();
        final boolean lookUp = caching != VERIFY && g < 1 << 15 && p1 < 1 << 16 && cache.capacityBytes() > 0;
        final boolean keep = lookUp && caching == KEEP;
        final long id = fileId(c);
        final Object[] pageValues = new Object[p1 - p0 + 1];
        int missFrom = -1;
        int missTo = -1;
        for (int p = p0; p <= p1; p++) {
            final DecodedBlockCache.Entry e = lookUp ? cache.find(id, g << 16 | p) : null;
            if (e != null) {
                pageValues[p - p0] = e.values();
            } else {
                missFrom = missFrom < 0 ? p : missFrom;
                missTo = p;
            }
        }
        if (missFrom >= 0) {
            final long start = o.getOffset(missFrom);
            final byte[] bytes = readBytes(start, Math.toIntExact(o.getOffset(missTo) + o.getCompressedPageSize(missTo) - start));
            final ByteArrayInputStream in = new ByteArrayInputStream(bytes);
            for (int p = missFrom; p <= missTo; p++) {
                if (pageValues[p - p0] != null) {
                    continue;
                }
                final int rows = (p + 1 < o.getPageCount() ? (int) o.getFirstRowIndex(p + 1) : groupRows) - (int) o.getFirstRowIndex(p);
                in.reset();
                in.skip(Math.toIntExact(o.getOffset(p) - start));
                final PageHeader h = Util.readPageHeader(in);
                final Object values = type.newArray(Math.max(rows, 1));
                final int got = decodePage(g, c, type, h, bytes, bytes.length - in.available(), values, 0);
                if (got != rows) {
                    throw new CorruptPartitionException(java.nio.file.Path.of(file), g, "page " + p + " holds " + got
                        + " values, the offset index " + rows + " [column=" + descriptors[c].getPath()[0] + "]");
                }
                pageValues[p - p0] = keep ? cache.add(new DecodedBlockCache.Entry(id, g << 16 | p, (int) o.getFirstRowIndex(p), values,
                    rows * type.width())).values() : values;
            }
        }
        if (pageValues.length == 1) {
            return new Span(first, n, pageValues[0], true);
        }
        final Object out = reuse != null && reuse.getClass() == type.newArray(0).getClass() && java.lang.reflect.Array.getLength(reuse) >= n
            ? reuse : type.newArray(Math.max(n, 1));
        int at = 0;
        for (int p = p0; p <= p1; p++) {
            final int rows = (p + 1 < o.getPageCount() ? (int) o.getFirstRowIndex(p + 1) : groupRows) - (int) o.getFirstRowIndex(p);
            System.arraycopy(pageValues[p - p0], 0, out, at, rows);
            at += rows;
        }
        return new Span(first, n, out, false);
    }

    /** This table's key for column {@code c} in the decoded block cache (negative: see {@link DecodedBlockCache}). */
    private long fileId(final int c) {
        return -(idBase + c);
    }

    /** Decodes one data page at {@code payload} in {@code bytes} into {@code out} from {@code at}; returns its value count. */
    private int decodePage(final int g, final int c, final ColumnType type, final PageHeader h, final byte[] bytes, final int payload,
                           final Object out, final int at) throws IOException {
        final int size = h.getCompressed_page_size();
        checkCrc(h, bytes, payload, c);
        final CompressionCodecName codec = chunk(g, c).getCodec();
        final int n;
        final Encoding encoding;
        final byte[] data;
        final int from;
        final int length;
        if (h.getType() == PageType.DATA_PAGE_V2) {
            final DataPageHeaderV2 v2 = h.getData_page_header_v2();
            n = v2.getNum_values();
            encoding = Encoding.valueOf(v2.getEncoding().name());
            final int levels = v2.getRepetition_levels_byte_length() + v2.getDefinition_levels_byte_length();
            final int stored = size - levels;
            final boolean compressed = !v2.isSetIs_compressed() || v2.isIs_compressed();
            final int raw = h.getUncompressed_page_size() - levels;
            if (compressed && codec != CompressionCodecName.UNCOMPRESSED) {
                data = PageCodecs.decompress(codec, slice(bytes, payload + levels, stored), raw);
                from = 0;
                length = raw;
            } else {
                data = bytes;
                from = payload + levels;
                length = stored;
            }
        } else if (h.getType() == PageType.DATA_PAGE) {
            final DataPageHeader v1 = h.getData_page_header();
            n = v1.getNum_values();
            encoding = Encoding.valueOf(v1.getEncoding().name());
            if (codec != CompressionCodecName.UNCOMPRESSED) {
                data = PageCodecs.decompress(codec, slice(bytes, payload, size), h.getUncompressed_page_size());
                from = 0;
                length = data.length;
            } else {
                data = bytes;
                from = payload;
                length = size;
            }
        } else {
            throw new IOException("not a data page [type=" + h.getType() + ", column=" + descriptors[c].getPath()[0] + "]");
        }
        if (encoding.usesDictionary()) {
            final Object dictionary = dictionary(g, c, type);
            if (dictionary == null) {
                throw new IOException("a dictionary-encoded page without a dictionary [column=" + descriptors[c].getPath()[0] + "]");
            }
            final int[] ids = type == ColumnType.INT32 ? (int[]) out : PageValues.scratchInts(n);
            final int idsAt = type == ColumnType.INT32 ? at : 0;
            BulkDecoding.dictionaryIds(data, from, from + length, n, ids, idsAt);
            PageValues.lookUp(type, dictionary, ids, idsAt, n, out, at);
        } else if (encoding == Encoding.DELTA_BINARY_PACKED && type != ColumnType.BOOL && type != ColumnType.CHAR
            && type != ColumnType.FLOAT64 && type != ColumnType.FLOAT32) {
            PageValues.deltas(type, data, from, from + length, n, out, at);
        } else {
            PageValues.decodeValues(descriptors[c], type, encoding, n, ByteBuffer.wrap(data, from, length).slice(), out, at);
        }
        return n;
    }

    private static byte[] slice(final byte[] bytes, final int from, final int length) {
        return from == 0 && length == bytes.length ? bytes : java.util.Arrays.copyOfRange(bytes, from, from + length);
    }

    private byte[] readBytes(final long offset, final int length) throws IOException {
        final byte[] b = new byte[length];
        try (SeekableInputStream s = input.newStream()) {
            s.seek(offset);
            s.readFully(b);
        }
        return b;
    }
}
