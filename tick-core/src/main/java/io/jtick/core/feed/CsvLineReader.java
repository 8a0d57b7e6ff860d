package io.jtick.core.feed;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * Reads comma-separated lines from a stream into one reusable byte array and parses fields in
 * place: no String per line or per field. Handles LF and CRLF and a last line without a newline.
 */
final class CsvLineReader implements AutoCloseable {
    private static final int MAX_FIELDS = 64;
    private static final long[] POW10 = new long[19];

    static {
        POW10[0] = 1;
        for (int i = 1; i < POW10.length; i++) {
            POW10[i] = POW10[i - 1] * 10;
        }
    }

    private final InputStream in;
    private final String name;
    private byte[] buf = new byte[1 << 16];
    private int pos;
    private int limit;
    private boolean eof;
    private final int[] start = new int[MAX_FIELDS];
    private final int[] end = new int[MAX_FIELDS];
    private int fields;
    private long lineNumber;

    CsvLineReader(final InputStream in, final String name) {
        this.in = in;
        this.name = name;
    }

    /** Advances to the next non-empty line; false at end of input. */
    boolean next() {
        while (true) {
            int nl = indexOfNewline(pos);
            while (nl < 0 && !eof) {
                fill();
                nl = indexOfNewline(pos);
            }
            if (nl < 0) {
                nl = limit;
                if (pos >= limit) {
                    return false;
                }
            }
            int lineEnd = nl;
            if (lineEnd > pos && buf[lineEnd - 1] == '\r') {
                lineEnd--;
            }
            final int lineStart = pos;
            pos = nl < limit ? nl + 1 : limit;
            lineNumber++;
            if (lineEnd > lineStart) {
                split(lineStart, lineEnd);
                return true;
            }
        }
    }

    /** Line number of the current line, 1-based. */
    long lineNumber() {
        return lineNumber;
    }

    String name() {
        return name;
    }

    int fieldCount() {
        return fields;
    }

    int length(final int field) {
        return end[field] - start[field];
    }

    /** First byte of the field, or {@code dflt} when the field is empty. */
    int firstChar(final int field, final int dflt) {
        return end[field] > start[field] ? buf[start[field]] : dflt;
    }

    boolean fieldEquals(final int field, final byte[] value) {
        final int len = end[field] - start[field];
        if (len != value.length) {
            return false;
        }
        for (int i = 0; i < len; i++) {
            if (buf[start[field] + i] != value[i]) {
                return false;
            }
        }
        return true;
    }

    byte[] fieldBytes(final int field) {
        return java.util.Arrays.copyOfRange(buf, start[field], end[field]);
    }

    String fieldString(final int field) {
        return new String(buf, start[field], end[field] - start[field], java.nio.charset.StandardCharsets.US_ASCII);
    }

    long parseLong(final int field) {
        int i = start[field];
        final int e = end[field];
        boolean neg = false;
        if (i < e && (buf[i] == '-' || buf[i] == '+')) {
            neg = buf[i] == '-';
            i++;
        }
        if (i >= e) {
            throw bad(field, "integer");
        }
        long v = 0;
        for (; i < e; i++) {
            final int d = buf[i] - '0';
            if (d < 0 || d > 9) {
                throw bad(field, "integer");
            }
            v = v * 10 + d;
        }
        return neg ? -v : v;
    }

    long parseHex(final int field) {
        long v = 0;
        if (end[field] == start[field]) {
            throw bad(field, "hex integer");
        }
        for (int i = start[field]; i < end[field]; i++) {
            final int c = buf[i];
            final int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0) {
                throw bad(field, "hex integer");
            }
            v = (v << 4) | d;
        }
        return v;
    }

    /** Parses a plain decimal ({@code -12.345}) exactly as mantissa / 10^scale, correctly rounded. */
    double parseDouble(final int field) {
        int i = start[field];
        final int e = end[field];
        boolean neg = false;
        if (i < e && (buf[i] == '-' || buf[i] == '+')) {
            neg = buf[i] == '-';
            i++;
        }
        long mantissa = 0;
        int scale = -1;
        int digits = 0;
        for (; i < e; i++) {
            final int c = buf[i];
            if (c == '.' && scale < 0) {
                scale = 0;
                continue;
            }
            final int d = c - '0';
            if (d < 0 || d > 9 || digits >= 18) {
                return slowDouble(field);
            }
            mantissa = mantissa * 10 + d;
            digits++;
            if (scale >= 0) {
                scale++;
            }
        }
        if (digits == 0) {
            throw bad(field, "number");
        }
        final double v = scale <= 0 ? (double) mantissa : (double) mantissa / POW10[scale];
        return neg ? -v : v;
    }

    /**
     * Parses decimal seconds ({@code 34200.01746}) into nanoseconds exactly (digits past 9 decimals
     * are dropped).
     */
    long parseSecondsAsNanos(final int field) {
        int i = start[field];
        final int e = end[field];
        long seconds = 0;
        for (; i < e && buf[i] != '.'; i++) {
            final int d = buf[i] - '0';
            if (d < 0 || d > 9) {
                throw bad(field, "seconds");
            }
            seconds = seconds * 10 + d;
        }
        long nanos = 0;
        int scale = 0;
        if (i < e) {
            for (i++; i < e; i++) {
                final int d = buf[i] - '0';
                if (d < 0 || d > 9) {
                    throw bad(field, "seconds");
                }
                if (scale < 9) {
                    nanos = nanos * 10 + d;
                    scale++;
                }
            }
        }
        return seconds * 1_000_000_000L + nanos * POW10[9 - scale];
    }

    /** Parses {@code 2018-01-02T10:01:21.479Z} (UTC, 0..9 fraction digits) into epoch nanoseconds. */
    long parseIsoUtcNanos(final int field) {
        final int s = start[field];
        final int e = end[field];
        if (e - s < 19 || buf[s + 4] != '-' || buf[s + 7] != '-' || (buf[s + 10] != 'T' && buf[s + 10] != ' ')
            || buf[s + 13] != ':' || buf[s + 16] != ':') {
            throw bad(field, "ISO-8601 UTC timestamp");
        }
        final long days = daysFromCivil(digits(s, 4, field), digits(s + 5, 2, field), digits(s + 8, 2, field));
        final long secs = days * 86_400L + digits(s + 11, 2, field) * 3600L + digits(s + 14, 2, field) * 60L + digits(s + 17, 2, field);
        long nanos = 0;
        int i = s + 19;
        if (i < e && buf[i] == '.') {
            int scale = 0;
            for (i++; i < e && buf[i] >= '0' && buf[i] <= '9'; i++) {
                if (scale < 9) {
                    nanos = nanos * 10 + (buf[i] - '0');
                    scale++;
                }
            }
            nanos *= POW10[9 - scale];
        }
        return secs * 1_000_000_000L + nanos;
    }

    /** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm). */
    static long daysFromCivil(final int year, final int month, final int day) {
        final int y = month <= 2 ? year - 1 : year;
        final int era = (y >= 0 ? y : y - 399) / 400;
        final int yoe = y - era * 400;
        final int doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
        final int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146_097L + doe - 719_468L;
    }

    private int digits(final int at, final int n, final int field) {
        int v = 0;
        for (int i = at; i < at + n; i++) {
            final int d = buf[i] - '0';
            if (d < 0 || d > 9) {
                throw bad(field, "ISO-8601 UTC timestamp");
            }
            v = v * 10 + d;
        }
        return v;
    }

    private double slowDouble(final int field) {
        try {
            return Double.parseDouble(fieldString(field));
        } catch (final NumberFormatException e) {
            throw bad(field, "number");
        }
    }

    /** Throws the bad-line error when the current line has fewer than {@code n} fields. */
    void require(final int n) {
        if (fields < n) {
            throw new IllegalArgumentException("not a valid line: " + fields + " fields, expected at least " + n + " [file=" + name
                + ", line=" + lineNumber + "]");
        }
    }

    IllegalArgumentException bad(final int field, final String what) {
        return new IllegalArgumentException("not a valid " + what + " [file=" + name + ", line=" + lineNumber
            + ", field=" + field + ", value=" + fieldString(field) + "]");
    }

    private void split(final int lineStart, final int lineEnd) {
        int f = 0;
        int s = lineStart;
        for (int i = lineStart; i < lineEnd; i++) {
            if (buf[i] == ',') {
                if (f < MAX_FIELDS) {
                    start[f] = s;
                    end[f] = i;
                    f++;
                }
                s = i + 1;
            }
        }
        if (f < MAX_FIELDS) {
            start[f] = s;
            end[f] = lineEnd;
            f++;
        }
        fields = f;
    }

    private int indexOfNewline(final int from) {
        for (int i = from; i < limit; i++) {
            if (buf[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private void fill() {
        if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, limit - pos);
            limit -= pos;
            pos = 0;
        }
        if (limit == buf.length) {
            buf = java.util.Arrays.copyOf(buf, buf.length * 2);
        }
        try {
            final int n = in.read(buf, limit, buf.length - limit);
            if (n < 0) {
                eof = true;
            } else {
                limit += n;
            }
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot read [file=" + name + "]", e);
        }
    }

    @Override
    public void close() {
        try {
            in.close();
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot close [file=" + name + "]", e);
        }
    }
}
