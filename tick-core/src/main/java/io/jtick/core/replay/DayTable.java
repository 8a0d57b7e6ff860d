package io.jtick.core.replay;

import io.jtick.core.hdb.format.StoredTable;
import io.jtick.core.hdb.format.SymRanges;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import org.agrona.IoUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One table of one date as a replay reads it: the partition's selected syms in sym order, each
 * narrowed to the request's time-of-day window (row range {@code [lo, hi)}), and where to read
 * their columns. Plain columns are read in place from the partition's memory map. A compressed
 * column is decoded once, while some reader of the stream is inside this date ({@link #enter}),
 * into a scratch file of the column's raw values at the partition's row numbers: a sparse file
 * (only the selected ranges are written, so only the blocks holding them are decoded),
 * memory-mapped, its name unlinked at once, so the page cache holds it and nothing is left on disk
 * after {@link #leave} or a crash. Readers of every consumer of the stream share it.
 */
final class DayTable {
    private static final AtomicLong SCRATCH_IDS = new AtomicLong();
    private static final int TRANSCODE_ROWS = 65_536;
    private static final boolean NATIVE_LE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    final int tableIndex;
    final StoredTable partition;
    final TableSchema schema;
    /** Partition sym code of each selected sym that has rows in the window, ascending. */
    final int[] codes;
    final int[] lo;
    final int[] hi;
    final long rows;
    /** ASCII bytes of each sym by partition code (null for syms not selected). */
    final byte[][] symBytes;
    private final boolean[] compressed;
    private volatile UnsafeBuffer[] scratch;
    private MappedByteBuffer[] maps;
    private int users;

    private DayTable(final int tableIndex, final StoredTable partition, final int[] codes, final int[] lo, final int[] hi) {
        this.tableIndex = tableIndex;
        this.partition = partition;
        this.schema = partition.schema();
        this.codes = codes;
        this.lo = lo;
        this.hi = hi;
        long n = 0;
        for (int k = 0; k < codes.length; k++) {
            n += hi[k] - lo[k];
        }
        this.rows = n;
        final SymRanges ranges = partition.syms();
        this.symBytes = new byte[ranges.count()][];
        for (final int c : codes) {
            symBytes[c] = ranges.name(c).getBytes(StandardCharsets.US_ASCII);
        }
        this.compressed = new boolean[schema.columnCount()];
        for (int c = 0; c < compressed.length; c++) {
            compressed[c] = !partition.mapped(c) && partition.rowCount() > 0;
        }
    }

    /**
     * The selected syms of {@code partition} ({@code syms} null = all), each narrowed to rows with
     * {@code fromNanos <= time < toNanos} by binary search on its time range.
     */
    static DayTable open(final int tableIndex, final StoredTable partition, final Set<String> syms, final long fromNanos,
                         final long toNanos) {
        final SymRanges ranges = partition.syms();
        int[] selected;
        if (syms == null) {
            selected = new int[ranges.count()];
            for (int k = 0; k < selected.length; k++) {
                selected[k] = k;
            }
        } else {
            selected = new int[syms.size()];
            int n = 0;
            for (final String s : syms) {
                final int code = ranges.code(s);
                if (code >= 0) {
                    selected[n++] = code;
                }
            }
            selected = Arrays.copyOf(selected, n);
            Arrays.sort(selected);
        }
        final int[] codes = new int[selected.length];
        final int[] lo = new int[selected.length];
        final int[] hi = new int[selected.length];
        int n = 0;
        for (final int code : selected) {
            int a = ranges.from(code);
            int b = ranges.to(code);
            if (fromNanos != Long.MIN_VALUE) {
                a = partition.lowerBound(a, b, fromNanos);
            }
            if (toNanos != Long.MAX_VALUE) {
                b = partition.lowerBound(a, b, toNanos);
            }
            if (b > a) {
                codes[n] = code;
                lo[n] = a;
                hi[n] = b;
                n++;
            }
        }
        return new DayTable(tableIndex, partition, Arrays.copyOf(codes, n), Arrays.copyOf(lo, n), Arrays.copyOf(hi, n));
    }

    LocalDate date() {
        return partition.date();
    }

    /** True when some column is compressed and is decoded to scratch while a reader is in this date. */
    boolean decodes() {
        for (final boolean c : compressed) {
            if (c) {
                return true;
            }
        }
        return false;
    }

    /** A reader starts reading this date: the first one decodes the compressed columns' selected ranges. */
    synchronized void enter(final Path scratchDir) {
        if (users++ > 0 || !decodes() || rows == 0) {
            return;
        }
        final UnsafeBuffer[] views = new UnsafeBuffer[compressed.length];
        final MappedByteBuffer[] mapped = new MappedByteBuffer[compressed.length];
        try {
            Files.createDirectories(scratchDir);
            for (int c = 0; c < compressed.length; c++) {
                if (compressed[c]) {
                    mapped[c] = transcode(scratchDir, c);
                    views[c] = new UnsafeBuffer(mapped[c]);
                }
            }
        } catch (final IOException | RuntimeException e) {
            users--;
            for (final MappedByteBuffer m : mapped) {
                if (m != null) {
                    IoUtil.unmap(m);
                }
            }
            if (e instanceof IOException io) {
                throw new UncheckedIOException("cannot decode to the replay scratch [dir=" + scratchDir + ", table="
                    + schema.name() + ", date=" + date() + "]: " + io.getMessage(), io);
            }
            throw (RuntimeException) e;
        }
        maps = mapped;
        scratch = views;
    }

    /** A reader is done with this date: the last one drops the decoded columns. */
    synchronized void leave() {
        if (users == 0 || --users > 0 || maps == null) {
            return;
        }
        scratch = null;
        for (final MappedByteBuffer m : maps) {
            if (m != null) {
                IoUtil.unmap(m);
            }
        }
        maps = null;
    }

    /** Bytes of decoded scratch this date holds now. */
    synchronized long scratchBytes() {
        long n = 0;
        if (maps != null) {
            for (final MappedByteBuffer m : maps) {
                n += m == null ? 0 : m.capacity();
            }
        }
        return n;
    }

    private MappedByteBuffer transcode(final Path dir, final int column) throws IOException {
        final ColumnType type = schema.type(column);
        final int width = type.width();
        final long bytes = (long) partition.rowCount() * width;
        if (bytes > Integer.MAX_VALUE) {
            throw new IOException("column too large to decode for replay (limit 2 GiB) [table=" + partition.directory() + ", column="
                + schema.column(column).name() + ", bytes=" + bytes + "]");
        }
        final Path file = dir.resolve("scratch-" + SCRATCH_IDS.incrementAndGet() + "-" + date() + "-" + schema.name() + "-"
            + schema.column(column).name());
        final MappedByteBuffer map;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE,
            StandardOpenOption.SPARSE)) {
            map = ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes);
        } finally {
            Files.deleteIfExists(file);
        }
        try {
            final long address = new UnsafeBuffer(map).addressOffset();
            final Object chunk = type.newArray(TRANSCODE_ROWS);
            final long base = UnsafeApi.arrayBaseOffset(chunk.getClass());
            for (int k = 0; k < codes.length; k++) {
                for (int at = lo[k]; at < hi[k];) {
                    final int n = Math.min(TRANSCODE_ROWS, hi[k] - at);
                    partition.copyRows(column, at, n, chunk, 0);
                    UnsafeApi.copyMemory(chunk, base, null, address + (long) at * width, (long) n * width);
                    at += n;
                }
            }
            return map;
        } catch (final RuntimeException e) {
            IoUtil.unmap(map);
            throw e;
        }
    }

    /** Time of a row (a reader inside this date). */
    long time(final int row) {
        final UnsafeBuffer[] s = scratch;
        if (s != null && s[TableSchema.TIME] != null) {
            return s[TableSchema.TIME].getLong(row << 3, ByteOrder.LITTLE_ENDIAN);
        }
        return partition.time(row);
    }

    /** Copies rows {@code [from, from + count)} of a column into {@code dst} (as {@link StoredTable#copyRows}) at {@code dstIndex}. */
    void read(final int column, final int from, final int count, final Object dst, final int dstIndex) {
        final UnsafeBuffer[] s = scratch;
        if (s != null && s[column] != null && NATIVE_LE) {
            final int width = schema.type(column).width();
            UnsafeApi.copyMemory(null, s[column].addressOffset() + (long) from * width, dst,
                UnsafeApi.arrayBaseOffset(dst.getClass()) + (long) dstIndex * width, (long) count * width);
            return;
        }
        partition.copyRows(column, from, count, dst, dstIndex);
    }

    ColumnType type(final int column) {
        return schema.type(column);
    }
}
