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
 */
public abstract class EncodingWriter implements ResultSink {
    /** Buffer size: results smaller than this go out in one write. */
    public static final int DEFAULT_BUFFER = 64 * 1024;

    private final OutputStream out;
    private final long maxBytes;
    protected byte[] buf;
    protected int pos;
    private long flushed;
    protected List<ValueType> types = List.of();
    protected int column;
    protected long rows;
    private boolean ended;

    protected EncodingWriter(final OutputStream out, final long maxBytes, final int bufferSize) {
        this(out, maxBytes, new byte[Math.max(bufferSize, 256)]);
    }

    /** Encodes into {@code buffer} (at least 256 bytes), which a caller may reuse once this writer is done. */
    protected EncodingWriter(final OutputStream out, final long maxBytes, final byte[] buffer) {
        if (buffer.length < 256) {
            throw new IllegalArgumentException("buffer below 256 bytes [length=" + buffer.length + "]");
        }
        this.out = out;
        this.maxBytes = maxBytes;
        this.buf = buffer;
    }

    /** True once bytes have gone to the stream (an HTTP status can no longer change). */
    public boolean committed() {
        return flushed > 0;
    }

    /** Bytes written so far, buffered or not. */
    public long bytes() {
        return flushed + pos;
    }

    /** Room for {@code n} more bytes in the buffer. */
    protected final void ensure(final int n) {
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
    protected final void checkLimit() {
        if (flushed + pos > maxBytes) {
            throw QueryException.tooLarge("result over the byte limit [bytes>" + maxBytes + ", maxBytes=" + maxBytes
                + ", rows=" + rows + "]: narrow the query, add a limit or raise tick.query.max-bytes");
        }
    }

    protected final void ascii(final String s) {
        ensure(s.length());
        for (int i = 0; i < s.length(); i++) {
            buf[pos++] = (byte) s.charAt(i);
        }
    }

    protected final void utf8(final String s) {
        final byte[] b = s.getBytes(StandardCharsets.UTF_8);
        ensure(b.length);
        System.arraycopy(b, 0, buf, pos, b.length);
        pos += b.length;
    }

    protected final void decimal(final long v) {
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
    protected final void floating(final double v, final boolean asFloat) {
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

    protected final void timestamp(final long nanos) {
        ensure(40);
        pos = TimeFormat.timestamp(nanos, buf, pos);
    }

    protected final void date(final long day) {
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
    protected final void finish() {
        drain();
        ended = true;
    }

    protected final ValueType type() {
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

    protected abstract void writeAbort(String message);
}
