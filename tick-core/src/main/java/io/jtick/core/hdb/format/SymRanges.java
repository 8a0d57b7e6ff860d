package io.jtick.core.hdb.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The sym → row-range index of a sym-sorted table (kdb's {@code p#}): syms in ascending order,
 * code {@code k} holds rows {@code [from(k), to(k))}, ranges back to back from row 0. Stored as
 * the table's {@code .sym} file:
 * <pre>
 * magic "JTICKSYM" 8 | version 4 | count 4 | per sym: from 4, to 4, name length 2, name (UTF-8) | CRC32C 4
 * </pre>
 */
public final class SymRanges {
    public static final String FILE = ".sym";
    private static final byte[] MAGIC = "JTICKSYM".getBytes(StandardCharsets.US_ASCII);
    private static final int VERSION = 1;

    private final String[] names;
    private final int[] from;
    private final int[] to;
    private final Map<String, Integer> codes;

    public SymRanges(final String[] names, final int[] from, final int[] to) {
        this.names = names;
        this.from = from;
        this.to = to;
        this.codes = new HashMap<>(names.length * 2);
        for (int k = 0; k < names.length; k++) {
            codes.put(names[k], k);
        }
    }

    /** Number of syms. */
    public int count() {
        return names.length;
    }

    /** Name of sym code {@code k}. */
    public String name(final int k) {
        return names[k];
    }

    /** First row of sym code {@code k}. */
    public int from(final int k) {
        return from[k];
    }

    /** One past the last row of sym code {@code k}. */
    public int to(final int k) {
        return to[k];
    }

    /** Code of a sym, or -1 when the table has no rows of it. */
    public int code(final String sym) {
        final Integer k = codes.get(sym);
        return k == null ? -1 : k;
    }

    public void write(final Path file) throws IOException {
        final byte[][] bytes = new byte[names.length][];
        int length = 8 + 4 + 4 + 4;
        for (int k = 0; k < names.length; k++) {
            bytes[k] = names[k].getBytes(StandardCharsets.UTF_8);
            length += 10 + bytes[k].length;
        }
        final ByteBuffer buf = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        buf.put(MAGIC).putInt(VERSION).putInt(names.length);
        for (int k = 0; k < names.length; k++) {
            buf.putInt(from[k]).putInt(to[k]).putShort((short) bytes[k].length).put(bytes[k]);
        }
        final CRC32C crc = new CRC32C();
        crc.update(buf.array(), 0, buf.position());
        buf.putInt((int) crc.getValue());
        Files.write(file, buf.array(), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    }

    static SymRanges read(final Path file, final int rowCount) throws IOException {
        final byte[] all = Files.readAllBytes(file);
        if (all.length < 20 || !Arrays.equals(Arrays.copyOf(all, 8), MAGIC)) {
            throw new CorruptPartitionException(file, -1, "not a jtick sym index (bad magic or too short)");
        }
        final CRC32C crc = new CRC32C();
        crc.update(all, 0, all.length - 4);
        final ByteBuffer buf = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
        if ((int) crc.getValue() != buf.getInt(all.length - 4)) {
            throw new CorruptPartitionException(file, -1, "sym index checksum mismatch");
        }
        buf.position(8);
        final int version = buf.getInt();
        if (version != VERSION) {
            throw new CorruptPartitionException(file, -1, "unsupported sym index version [version=" + version + "]");
        }
        final int count = buf.getInt();
        if (count < 0 || count > (all.length - 20) / 10) {
            throw new CorruptPartitionException(file, -1, "bad sym count [count=" + count + "]");
        }
        final String[] names = new String[count];
        final int[] from = new int[count];
        final int[] to = new int[count];
        int expected = 0;
        for (int k = 0; k < count; k++) {
            from[k] = buf.getInt();
            to[k] = buf.getInt();
            final int len = buf.getShort() & 0xffff;
            if (from[k] != expected || to[k] <= from[k] || to[k] > rowCount || len > buf.remaining() - 4) {
                throw new CorruptPartitionException(file, -1, "sym range out of place [sym=" + k + ", from=" + from[k]
                    + ", to=" + to[k] + "]");
            }
            expected = to[k];
            names[k] = new String(all, buf.position(), len, StandardCharsets.UTF_8);
            buf.position(buf.position() + len);
            if (k > 0 && names[k - 1].compareTo(names[k]) >= 0) {
                throw new CorruptPartitionException(file, -1, "syms not in ascending order [sym=" + names[k] + "]");
            }
        }
        if (expected != rowCount) {
            throw new CorruptPartitionException(file, -1, "sym ranges do not cover the table [rows=" + rowCount + ", covered="
                + expected + "]");
        }
        return new SymRanges(names, from, to);
    }
}
