package io.jtick.core.query.result;

import io.jtick.core.query.model.QueryException;
import io.jtick.core.query.model.ValueType;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Base of the streaming writers: encodes into its own buffer and hands full buffers to the output
 * stream as rows come, so a large result never sits in memory. Counts every byte; past
 * {@code maxBytes} it throws {@link QueryException} ({@code TOO_LARGE}). Nothing reaches the stream
 * before the buffer first fills ({@link #committed()} false), so a service can still answer an
 * error status then; later, {@link #abort(String)} ends the document with the error instead.
 * I/O errors surface as {@link UncheckedIOException} (the client went away).
 *
 * <p>Values are encoded here, one switch over the column types for every format: a format only
 * says how cells are separated ({@link #separator()}), how text is quoted ({@link #text(String)}),
 * how a null is written ({@link #nullCell()}), and, through its constructor, whether timestamps
 * and dates are quoted and infinities written as null.
 */
public abstract sealed class EncodingWriter implements ResultSink permits JsonResultWriter, CsvResultWriter {
    /** Buffer size: results smaller than this go out in one write. */
    public static final int DEFAULT_BUFFER = 64 * 1024;

    private final OutputStream out;
    private final long maxBytes;
    /** Byte around timestamps and dates ({@code "} in JSON), 0 for none. */
    private final byte timeQuote;
    /** Bytes the quotes around a timestamp or date take: 2 or 0. */
    private final int timeQuotes;
    /** Infinities are written as nulls (JSON has no literal for them). */
    private final boolean infinityAsNull;
    byte[] buf;
    int pos;
    private long flushed;
    List<ValueType> types = List.of();
    int column;
    long rows;
    private boolean ended;

    /**
     * Encodes into {@code buffer} (at least 256 bytes), which a caller may reuse once this writer is done.
     *
     * @param quoteTimes     timestamps and dates are written as quoted strings
     * @param infinityAsNull infinite floats are written as nulls
     */
    EncodingWriter(final OutputStream out, final long maxBytes, final byte[] buffer, final boolean quoteTimes,
                   final boolean infinityAsNull) {
        if (buffer.length < 256) {
            throw new IllegalArgumentException("buffer below 256 bytes [length=" + buffer.length + "]");
        }
        this.out = out;
        this.maxBytes = maxBytes;
        this.buf = buffer;
        this.timeQuote = quoteTimes ? (byte) '"' : 0;
        this.timeQuotes = quoteTimes ? 2 : 0;
        this.infinityAsNull = infinityAsNull;
    }

    /** A buffer of {@code bufferSize} bytes, at least 256. */
    static byte[] buffer(final int bufferSize) {
        return new byte[Math.max(bufferSize, 256)];
    }

    // ---- values: one switch for every format ----------------------------------------------------

    @Override
    public final void value(final long v) {
        separator();
        switch (type()) {
            case TIMESTAMP:
                ensure(40 + timeQuotes);
                quoteTime();
                timestamp(v);
                quoteTime();
                break;
            case DATE:
                ensure(12 + timeQuotes);
                quoteTime();
                date(v);
                quoteTime();
                break;
            case BOOL:
                ascii(v != 0 ? "true" : "false");
                break;
            case CHAR:
                text(String.valueOf((char) (v & 0xff)));
                break;
            default:
                decimal(v);
                break;
        }
        column++;
    }

    @Override
    public final void value(final double v) {
        separator();
        if (Double.isNaN(v) || infinityAsNull && Double.isInfinite(v)) {
            nullCell();
        } else {
            floating(v, type() == ValueType.FLOAT32);
        }
        column++;
    }

    @Override
    public final void symbol(final String s) {
        separator();
        text(s);
        column++;
    }

    @Override
    public final void nullValue() {
        separator();
        nullCell();
        column++;
    }

    /** Before each cell: what comes between cells (and, for the first cell, what opens a row). */
    abstract void separator();

    /** A symbol or char as the format writes text. */
    abstract void text(String s);

    /** A null cell. */
    abstract void nullCell();

    private void quoteTime() {
        if (timeQuote != 0) {
            ensure(1);
            buf[pos++] = timeQuote;
        }
    }

    /** True once bytes have gone to the stream (an HTTP status can no longer change). */
    public boolean committed() {
        return flushed > 0;
    }

    /** Room for {@code n} more bytes in the buffer. */
    final void ensure(final int n) {
        if (pos + n > buf.length) {
            drain();
            if (n > buf.length) {
                buf = new byte[n];
            }
        }
    }

    private void drain() {
        if (pos == 0) {
            return;
        }
        try {
            out.write(buf, 0, pos);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
        flushed += pos;
        pos = 0;
    }

    /** Checks the byte limit (once per row). */
    final void checkLimit() {
        if (flushed + pos > maxBytes) {
            throw QueryException.tooLarge("result over the byte limit [bytes>" + maxBytes + ", maxBytes=" + maxBytes
                + ", rows=" + rows + "]: narrow the query, add a limit or raise tick.query.max-bytes");
        }
    }

    final void ascii(final String s) {
        ensure(s.length());
        for (int i = 0; i < s.length(); i++) {
            buf[pos++] = (byte) s.charAt(i);
        }
    }

    final void utf8(final String s) {
        final byte[] b = s.getBytes(StandardCharsets.UTF_8);
        ensure(b.length);
        System.arraycopy(b, 0, buf, pos, b.length);
        pos += b.length;
    }

    final void decimal(final long v) {
        ensure(20);
        if (v == Long.MIN_VALUE) {
            ascii("-9223372036854775808");
            return;
        }
        long x = v;
        if (x < 0) {
            buf[pos++] = '-';
            x = -x;
        }
        int digits = 1;
        for (long t = x; t >= 10; t /= 10) {
            digits++;
        }
        for (int i = digits - 1; i >= 0; i--) {
            buf[pos + i] = (byte) ('0' + x % 10);
            x /= 10;
        }
        pos += digits;
    }

    private static final double[] POW10 = {1, 10, 100, 1e3, 1e4, 1e5, 1e6};

    /**
     * A float64 (or float32) as JSON/CSV text. Prices and the like (up to six decimals, below
     * 10^12) are written from integer digits without allocating, and only when that decimal
     * parses back to exactly the same double; anything else goes through {@link Double#toString}.
     */
    final void floating(final double v, final boolean asFloat) {
        if (asFloat) {
            ascii(Float.toString((float) v));
            return;
        }
        final double a = Math.abs(v);
        if (a < 1e12 && v == v) {
            for (int k = 0; k < POW10.length; k++) {
                final double p = POW10[k];
                final double m = Math.rint(v * p);
                if (m / p == v) {
                    final long digits = (long) Math.abs(m);
                    final long unit = (long) p;
                    ensure(32);
                    if (v < 0 || m == 0 && 1 / v < 0) {
                        buf[pos++] = '-';
                    }
                    decimal(digits / unit);
                    buf[pos++] = '.';
                    if (k == 0) {
                        buf[pos++] = '0';
                    } else {
                        long frac = digits % unit;
                        for (int i = k - 1; i >= 0; i--) {
                            buf[pos + i] = (byte) ('0' + frac % 10);
                            frac /= 10;
                        }
                        pos += k;
                    }
                    return;
                }
            }
        }
        ascii(Double.toString(v));
    }

    final void timestamp(final long nanos) {
        ensure(40);
        pos = TimeFormat.timestamp(nanos, buf, pos);
    }

    final void date(final long day) {
        ensure(12);
        final int p = TimeFormat.date(day, buf, pos);
        if (p < 0) {
            ascii(TimeFormat.dateSlow(day));
        } else {
            pos = p;
        }
    }

    /**
     * Writes what is buffered. The stream is not flushed: a servlet container then still knows the
     * whole length of a small answer and sends it with a Content-Length in one write.
     */
    final void finish() {
        drain();
        ended = true;
    }

    final ValueType type() {
        return types.get(column);
    }

    /**
     * Ends a document already partly sent with an error the client can see (JSON: an
     * {@code error} field; CSV: a last line {@code #error: ...}). Safe to call once, after a
     * failure in the middle of a result.
     */
    public final void abort(final String message) {
        if (ended) {
            return;
        }
        writeAbort(message);
        finish();
    }

    abstract void writeAbort(String message);
}
