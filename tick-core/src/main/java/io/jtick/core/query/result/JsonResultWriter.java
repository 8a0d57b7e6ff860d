package io.jtick.core.query.result;

import io.jtick.core.query.model.ValueType;
import java.io.OutputStream;
import java.util.List;

/**
 * Streams a result as JSON: {@code {"columns":[...],"types":[...],"rows":[[...],...],"rowCount":n,
 * "rowsScanned":m,"segments":s,"elapsedMicros":t}}. Timestamps are ISO-8601 strings with up to
 * nanoseconds (epoch-ns longs exceed what JavaScript numbers hold exactly), dates
 * {@code "2026-11-21"}, symbols and chars strings, bools true/false, nulls, NaN and infinities {@code null}.
 */
public final class JsonResultWriter extends EncodingWriter {
    private boolean firstRow = true;

    public JsonResultWriter(final OutputStream out, final long maxBytes) {
        this(out, maxBytes, DEFAULT_BUFFER);
    }

    public JsonResultWriter(final OutputStream out, final long maxBytes, final int bufferSize) {
        this(out, maxBytes, buffer(bufferSize));
    }

    /** Encodes into a caller's reusable buffer (see {@link EncodingWriter}). */
    public JsonResultWriter(final OutputStream out, final long maxBytes, final byte[] buffer) {
        super(out, maxBytes, buffer, true, true);
    }

    @Override
    public void begin(final List<String> columns, final List<ValueType> columnTypes) {
        types = columnTypes;
        ascii("{\"columns\":[");
        for (int i = 0; i < columns.size(); i++) {
            if (i > 0) {
                ascii(",");
            }
            string(columns.get(i));
        }
        ascii("],\"types\":[");
        for (int i = 0; i < columnTypes.size(); i++) {
            if (i > 0) {
                ascii(",");
            }
            ascii("\"" + columnTypes.get(i).typeName() + "\"");
        }
        ascii("],\"rows\":[");
    }

    @Override
    void separator() {
        ensure(3);
        if (column == 0) {
            if (!firstRow) {
                buf[pos++] = ',';
            }
            buf[pos++] = '\n';
            buf[pos++] = '[';
        } else {
            buf[pos++] = ',';
        }
    }

    @Override
    void text(final String s) {
        string(s);
    }

    @Override
    void nullCell() {
        ascii("null");
    }

    @Override
    public void endRow() {
        ensure(1);
        buf[pos++] = ']';
        column = 0;
        firstRow = false;
        rows++;
        checkLimit();
    }

    @Override
    public void end(final ResultStats stats) {
        ascii("],\"rowCount\":");
        decimal(stats.rows());
        ascii(",\"rowsScanned\":");
        decimal(stats.rowsScanned());
        ascii(",\"segments\":");
        decimal(stats.segments());
        ascii(",\"elapsedMicros\":");
        decimal(stats.elapsedNanos() / 1000);
        ascii("}");
        finish();
    }

    @Override
    void writeAbort(final String message) {
        if (column > 0) {
            ascii("]");
        }
        ascii("],\"error\":");
        string(message);
        ascii(",\"truncated\":true}");
    }

    private void string(final String s) {
        ensure(s.length() + 2);
        buf[pos++] = '"';
        for (int i = 0; i < s.length(); i++) {
            final char c = s.charAt(i);
            if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
                ensure(1);
                buf[pos++] = (byte) c;
            } else if (c == '"' || c == '\\') {
                ensure(2);
                buf[pos++] = '\\';
                buf[pos++] = (byte) c;
            } else if (c < 0x20) {
                ascii(String.format("\\u%04x", (int) c));
            } else {
                utf8(String.valueOf(c));
            }
        }
        ensure(1);
        buf[pos++] = '"';
    }
}
