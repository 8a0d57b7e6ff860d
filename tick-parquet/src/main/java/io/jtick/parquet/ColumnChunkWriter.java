package io.jtick.parquet;

import io.jtick.core.schema.ColumnType;
import io.jtick.core.table.ColumnChunk;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageWriter;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.delta.DeltaBinaryPackingValuesWriterForInteger;
import org.apache.parquet.column.values.delta.DeltaBinaryPackingValuesWriterForLong;
import org.apache.parquet.column.values.deltastrings.DeltaByteArrayWriter;
import org.apache.parquet.column.values.plain.PlainValuesWriter;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.apache.parquet.io.api.Binary;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Writes one column chunk (one column of one row group) as Parquet v2 pages through parquet-java's
 * page writer, taking the group's values in bulk instead of one {@code ValuesWriter} call per value
 * through a dictionary writer that hashes boxed keys and {@link Binary}s.
 *
 * <p>The dictionary is the chunk's distinct values in order of first appearance, found with a
 * primitive open-addressing table keyed by the value's bits ({@link DistinctValues}); for {@code sym} it is the partition's
 * own sym codes (no string is hashed) and for {@code char} a 256-entry table. It is kept by
 * parquet-java's own rule (its {@code DictionaryValuesWriter} and fallback writer), applied to the
 * whole chunk instead of its first page: the dictionary page within the properties' dictionary page
 * size, and the encoded ids plus the dictionary smaller than the plain values. Ids go through
 * parquet-java's RLE/bit-packing hybrid encoder, the dictionary page through its plain values
 * writer. Without a dictionary, integers and timestamps go through its delta-binary-packing writers,
 * floats are PLAIN (their little-endian bytes, copied in bulk), strings through its delta byte-array
 * writer and booleans through the writer the properties pick. Page statistics: min and max found
 * over each page's primitives and given to parquet-java's statistics once (value by value on a page
 * holding a NaN, so its NaN count stays parquet-java's).
 *
 * <p>One instance per encoding thread: its tables are reused from chunk to chunk. Not thread-safe.
 */
final class ColumnChunkWriter {
    private static final Binary[] CHARS = new Binary[256];
    private static final int SLAB = 64 << 10;

    static {
        for (int b = 0; b < 256; b++) {
            CHARS[b] = Binary.fromConstantByteArray(new byte[] {(byte) b});
        }
    }

    /** The values writers' slabs, kept from page to page. */
    private final SlabPool allocator = new SlabPool();
    /** The chunk a row group's column is read into, its arrays reused from column to column. */
    private final ColumnChunk chunk = new ColumnChunk();
    /** The id pages of the chunk, one after the other, until the dictionary is kept or dropped. */
    private final PageBytes idPages = new PageBytes();
    /** The chunk's values as bits (a double's raw long bits, an int widened), one per row. */
    private long[] bits = new long[0];
    /** Each row's dictionary id. */
    private int[] ids = new int[0];
    /** The chunk's dictionary: its distinct values and the table that finds them. */
    private final DistinctValues dict = new DistinctValues();
    /** Sym code to id for the current chunk, valid where its stamp is the chunk's {@link #stamp}. */
    private int stamp;
    private int[] symId = new int[0];
    private int[] symStamp = new int[0];
    private final boolean[] seenChar = new boolean[256];

    /**
     * Writes rows {@code [0, n)} of {@code values} (from its offset) as pages of {@code pageRows} rows.
     *
     * @param dictionary whether the column may be dictionary-encoded (the properties say so)
     * @param syms       each sym code's UTF-8 name (the {@code sym} column's values are codes)
     */
    void write(final ColumnDescriptor d, final ColumnType type, final boolean dictionary, final ColumnChunk values, final int n,
               final int pageRows, final ParquetProperties props, final PageWriter pw, final Binary[] syms) throws IOException {
        if (n == 0) {
            return;
        }
        if (type == ColumnType.BOOL) {
            perValue(d, type, values, n, pageRows, props.newValuesWriter(d), pw, syms);
            return;
        }
        if (dictionary) {
            toBits(type, values, n);
        }
        if (dictionary && dictionaryIds(type, n, props.getDictionaryPageSizeThreshold(), syms)) {
            final int width = BytesUtils.getWidthFromMaxInt(dict.size() - 1);
            final int[] ends = new int[(n + pageRows - 1) / pageRows];
            idPages.reset();
            try (RunLengthBitPackingHybridEncoder e = new RunLengthBitPackingHybridEncoder(width,
                Math.max(64, Math.min(n, pageRows) * width / 8 + 64), props.getPageSizeThreshold(), allocator)) {
                for (int p = 0, at = 0; at < n; p++, at += pageRows) {
                    idPage(e, width, at, Math.min(n, at + pageRows));
                    ends[p] = idPages.size();
                }
            }
            final long dictionaryBytes = dictionaryBytes(type, syms);
            if (idPages.size() + dictionaryBytes < plainBytes(type, n, syms)) {
                // the page writer compresses (copies) each page before the next is handed over
                for (int p = 0, at = 0; at < n; p++, at += pageRows) {
                    final int rows = Math.min(pageRows, n - at);
                    final int start = p == 0 ? 0 : ends[p - 1];
                    pw.writePageV2(rows, 0, rows, BytesInput.empty(), BytesInput.empty(), Encoding.RLE_DICTIONARY,
                        BytesInput.from(idPages.array(), start, ends[p] - start), stats(d, type, values, at, rows, syms));
                }
                writeDictionary(type, syms, props, pw);
                return;
            }
        }
        switch (type) {
            case FLOAT64, FLOAT32 -> plain(d, type, values, n, pageRows, pw);
            case TIMESTAMP, INT64 -> perValue(d, type, values, n, pageRows, new DeltaBinaryPackingValuesWriterForLong(SLAB,
                props.getPageSizeThreshold(), allocator), pw, syms);
            case INT32, INT16, BYTE -> perValue(d, type, values, n, pageRows, new DeltaBinaryPackingValuesWriterForInteger(SLAB,
                props.getPageSizeThreshold(), allocator), pw, syms);
            default -> perValue(d, type, values, n, pageRows, new DeltaByteArrayWriter(SLAB, props.getPageSizeThreshold(), allocator),
                pw, syms);
        }
    }

    /** The chunk's values as bits, one long per row. */
    private void toBits(final ColumnType type, final ColumnChunk k, final int n) {
        if (bits.length < n) {
            bits = new long[n];
            ids = new int[n];
        }
        final int o = k.offset();
        final long[] b = bits;
        switch (type) {
            case TIMESTAMP, INT64 -> System.arraycopy(k.longs(), o, b, 0, n);
            case SYMBOL, INT32 -> {
                final int[] a = k.ints();
                for (int i = 0; i < n; i++) {
                    b[i] = a[o + i];
                }
            }
            case FLOAT64 -> {
                final double[] a = k.doubles();
                for (int i = 0; i < n; i++) {
                    b[i] = Double.doubleToRawLongBits(a[o + i]);
                }
            }
            case FLOAT32 -> {
                final float[] a = k.floats();
                for (int i = 0; i < n; i++) {
                    b[i] = Float.floatToRawIntBits(a[o + i]);
                }
            }
            case INT16 -> {
                final short[] a = k.shorts();
                for (int i = 0; i < n; i++) {
                    b[i] = a[o + i];
                }
            }
            case BYTE, CHAR -> {
                final byte[] a = k.bytes();
                for (int i = 0; i < n; i++) {
                    b[i] = a[o + i];
                }
            }
            default -> throw new IllegalStateException("unhandled column type [type=" + type + "]");
        }
    }

    /**
     * Assigns each row its dictionary id; false as soon as the dictionary would pass {@code maxBytes}
     * (parquet-java's fallback rule).
     */
    private boolean dictionaryIds(final ColumnType type, final int n, final int maxBytes, final Binary[] syms) {
        dict.clear();
        if (++stamp == 0) {
            Arrays.fill(symStamp, 0);
            stamp = 1;
        }
        final long[] b = bits;
        final int[] id = ids;
        if (type == ColumnType.SYMBOL) {
            if (symId.length < syms.length) {
                symId = new int[syms.length];
                symStamp = new int[syms.length];
            }
            long bytes = 0;
            for (int i = 0; i < n; i++) {
                if (i > 0 && b[i] == b[i - 1]) {
                    id[i] = id[i - 1];
                    continue;
                }
                final int code = (int) b[i];
                if (symStamp[code] != stamp) {
                    symStamp[code] = stamp;
                    symId[code] = dict.add(b[i]);
                    bytes += 4 + syms[code].length();
                    if (bytes > maxBytes) {
                        return false;
                    }
                }
                id[i] = symId[code];
            }
            return true;
        }
        return dict.ids(b, id, n, Math.min(n, maxBytes / plainWidth(type)));
    }

    /** One data page of ids {@code [from, to)} appended to {@link #idPages}: the bit width, then parquet-java's RLE/bit-packed runs. */
    private void idPage(final RunLengthBitPackingHybridEncoder e, final int width, final int from, final int to) throws IOException {
        e.reset();
        final int[] id = ids;
        for (int i = from; i < to; i++) {
            e.writeInt(id[i]);
        }
        idPages.write(width);
        e.toBytes().writeAllTo(idPages);
    }

    /** The chunk a row group's column is read into before {@link #write}: this writer's, reused. */
    ColumnChunk chunk() {
        return chunk;
    }

    /** A growing byte array written page after page (kept from chunk to chunk). */
    private static final class PageBytes extends ByteArrayOutputStream {
        PageBytes() {
            super(1 << 16);
        }

        byte[] array() {
            return buf;
        }
    }

    private long dictionaryBytes(final ColumnType type, final Binary[] syms) {
        if (type == ColumnType.SYMBOL) {
            long bytes = 0;
            final long[] v = dict.values();
            for (int k = 0; k < dict.size(); k++) {
                bytes += 4 + syms[(int) v[k]].length();
            }
            return bytes;
        }
        return (long) dict.size() * plainWidth(type);
    }

    /** Bytes of the values PLAIN-encoded: what a dictionary must beat. */
    private long plainBytes(final ColumnType type, final int n, final Binary[] syms) {
        if (type != ColumnType.SYMBOL) {
            return (long) n * plainWidth(type);
        }
        long bytes = 0;
        for (int i = 0; i < n; i++) {
            bytes += 4 + syms[(int) bits[i]].length();
        }
        return bytes;
    }

    /** Bytes of one value PLAIN-encoded (a char: its length word and byte); syms are counted by name. */
    private static int plainWidth(final ColumnType type) {
        return switch (type) {
            case TIMESTAMP, INT64, FLOAT64 -> 8;
            case INT32, INT16, BYTE, FLOAT32 -> 4;
            case CHAR -> 5;
            default -> throw new IllegalStateException("no dictionary for [type=" + type + "]");
        };
    }

    /** The dictionary page: the distinct values PLAIN-encoded by parquet-java's writer (the page writer compresses and copies them). */
    private void writeDictionary(final ColumnType type, final Binary[] syms, final ParquetProperties props, final PageWriter pw)
        throws IOException {
        final PlainValuesWriter w = new PlainValuesWriter(Math.max(64, dict.size() * 8), props.getDictionaryPageSizeThreshold(),
            allocator);
        try {
            final long[] v = dict.values();
            for (int k = 0; k < dict.size(); k++) {
                switch (type) {
                    case TIMESTAMP, INT64 -> w.writeLong(v[k]);
                    case INT32, INT16, BYTE -> w.writeInteger((int) v[k]);
                    case FLOAT64 -> w.writeDouble(Double.longBitsToDouble(v[k]));
                    case FLOAT32 -> w.writeFloat(Float.intBitsToFloat((int) v[k]));
                    case SYMBOL -> w.writeBytes(syms[(int) v[k]]);
                    case CHAR -> w.writeBytes(CHARS[(int) v[k] & 0xFF]);
                    default -> throw new IllegalStateException("no dictionary for [type=" + type + "]");
                }
            }
            pw.writeDictionaryPage(new DictionaryPage(w.getBytes(), dict.size(), Encoding.PLAIN));
        } finally {
            w.close();
        }
    }

    /** Floats without a dictionary: PLAIN pages, each the page's values as little-endian bytes. */
    private void plain(final ColumnDescriptor d, final ColumnType type, final ColumnChunk k, final int n, final int pageRows,
                       final PageWriter pw) throws IOException {
        final int o = k.offset();
        for (int at = 0; at < n; at += pageRows) {
            final int rows = Math.min(pageRows, n - at);
            final byte[] page = new byte[rows * (type == ColumnType.FLOAT64 ? 8 : 4)];
            final ByteBuffer buf = ByteBuffer.wrap(page).order(ByteOrder.LITTLE_ENDIAN);
            if (type == ColumnType.FLOAT64) {
                buf.asDoubleBuffer().put(k.doubles(), o + at, rows);
            } else {
                buf.asFloatBuffer().put(k.floats(), o + at, rows);
            }
            pw.writePageV2(rows, 0, rows, BytesInput.empty(), BytesInput.empty(), Encoding.PLAIN, BytesInput.from(page),
                stats(d, type, k, at, rows, null));
        }
    }

    /** Pages through a parquet-java values writer, one call per value. */
    private void perValue(final ColumnDescriptor d, final ColumnType type, final ColumnChunk k, final int n, final int pageRows,
                          final ValuesWriter w, final PageWriter pw, final Binary[] syms) throws IOException {
        try {
            for (int at = 0; at < n; at += pageRows) {
                final int rows = Math.min(pageRows, n - at);
                values(type, k, k.offset() + at, rows, w, syms);
                pw.writePageV2(rows, 0, rows, BytesInput.empty(), BytesInput.empty(), w.getEncoding(), w.getBytes(),
                    stats(d, type, k, at, rows, syms));
                w.reset();
            }
        } finally {
            w.close();
        }
    }

    private static void values(final ColumnType type, final ColumnChunk k, final int from, final int rows, final ValuesWriter w,
                               final Binary[] syms) {
        final int to = from + rows;
        switch (type) {
            case TIMESTAMP, INT64 -> {
                final long[] a = k.longs();
                for (int i = from; i < to; i++) {
                    w.writeLong(a[i]);
                }
            }
            case INT32 -> {
                final int[] a = k.ints();
                for (int i = from; i < to; i++) {
                    w.writeInteger(a[i]);
                }
            }
            case INT16 -> {
                final short[] a = k.shorts();
                for (int i = from; i < to; i++) {
                    w.writeInteger(a[i]);
                }
            }
            case BYTE -> {
                final byte[] a = k.bytes();
                for (int i = from; i < to; i++) {
                    w.writeInteger(a[i]);
                }
            }
            case BOOL -> {
                final byte[] a = k.bytes();
                for (int i = from; i < to; i++) {
                    w.writeBoolean(a[i] != 0);
                }
            }
            case CHAR -> {
                final byte[] a = k.bytes();
                for (int i = from; i < to; i++) {
                    w.writeBytes(CHARS[a[i] & 0xFF]);
                }
            }
            case SYMBOL -> {
                final int[] a = k.ints();
                for (int i = from; i < to; i++) {
                    w.writeBytes(syms[a[i]]);
                }
            }
            default -> throw new IllegalStateException("unhandled column type [type=" + type + "]");
        }
    }

    /** Statistics of rows {@code [at, at + rows)}: min and max over the primitives, given once. */
    private Statistics<?> stats(final ColumnDescriptor d, final ColumnType type, final ColumnChunk k, final int at, final int rows,
                                final Binary[] syms) {
        final Statistics<?> s = Statistics.createStats(d.getPrimitiveType());
        final int from = k.offset() + at;
        final int to = from + rows;
        switch (type) {
            case TIMESTAMP, INT64 -> {
                final long[] a = k.longs();
                long min = a[from];
                long max = min;
                for (int i = from + 1; i < to; i++) {
                    min = Math.min(min, a[i]);
                    max = Math.max(max, a[i]);
                }
                s.updateStats(min);
                s.updateStats(max);
            }
            case INT32 -> {
                final int[] a = k.ints();
                int min = a[from];
                int max = min;
                for (int i = from + 1; i < to; i++) {
                    min = Math.min(min, a[i]);
                    max = Math.max(max, a[i]);
                }
                s.updateStats(min);
                s.updateStats(max);
            }
            case INT16 -> {
                final short[] a = k.shorts();
                int min = a[from];
                int max = min;
                for (int i = from + 1; i < to; i++) {
                    min = Math.min(min, a[i]);
                    max = Math.max(max, a[i]);
                }
                s.updateStats(min);
                s.updateStats(max);
            }
            case BYTE -> {
                final byte[] a = k.bytes();
                int min = a[from];
                int max = min;
                for (int i = from + 1; i < to; i++) {
                    min = Math.min(min, a[i]);
                    max = Math.max(max, a[i]);
                }
                s.updateStats(min);
                s.updateStats(max);
            }
            case FLOAT64 -> {
                final double[] a = k.doubles();
                double min = Double.POSITIVE_INFINITY;
                double max = Double.NEGATIVE_INFINITY;
                boolean nan = false;
                for (int i = from; i < to; i++) {
                    final double v = a[i];
                    nan |= v != v;
                    min = v < min ? v : min;
                    max = v > max ? v : max;
                }
                if (nan) {
                    for (int i = from; i < to; i++) {
                        s.updateStats(a[i]);
                    }
                } else {
                    s.updateStats(min);
                    s.updateStats(max);
                }
            }
            case FLOAT32 -> {
                final float[] a = k.floats();
                float min = Float.POSITIVE_INFINITY;
                float max = Float.NEGATIVE_INFINITY;
                boolean nan = false;
                for (int i = from; i < to; i++) {
                    final float v = a[i];
                    nan |= v != v;
                    min = v < min ? v : min;
                    max = v > max ? v : max;
                }
                if (nan) {
                    for (int i = from; i < to; i++) {
                        s.updateStats(a[i]);
                    }
                } else {
                    s.updateStats(min);
                    s.updateStats(max);
                }
            }
            case BOOL -> {
                final byte[] a = k.bytes();
                boolean t = false;
                boolean f = false;
                for (int i = from; i < to; i++) {
                    t |= a[i] != 0;
                    f |= a[i] == 0;
                }
                if (f) {
                    s.updateStats(false);
                }
                if (t) {
                    s.updateStats(true);
                }
            }
            case CHAR -> {
                final byte[] a = k.bytes();
                final boolean[] seen = seenChar;
                Arrays.fill(seen, false);
                for (int i = from; i < to; i++) {
                    seen[a[i] & 0xFF] = true;
                }
                for (int b = 0; b < 256; b++) {
                    if (seen[b]) {
                        s.updateStats(CHARS[b]);
                    }
                }
            }
            case SYMBOL -> {
                final int[] a = k.ints();
                for (int i = from; i < to; i++) {
                    if (i == from || a[i] != a[i - 1]) {
                        s.updateStats(syms[a[i]]);
                    }
                }
            }
            default -> throw new IllegalStateException("unhandled column type [type=" + type + "]");
        }
        return s;
    }
}
