package io.jtick.core.query.result;

import io.jtick.core.query.model.ValueType;
import java.io.OutputStream;
import java.util.List;

/**
 * Streams a result as CSV (RFC 4180): a header line of column names, then one line per row.
 * Timestamps ISO-8601, dates {@code 2026-11-21}, bools true/false, nulls empty; fields with a
 * comma, quote or line break are quoted. Column types are not in the body: services send them in
 * an {@code X-Jtick-Types} header.
 */
public final class CsvResultWriter extends EncodingWriter {
    public CsvResultWriter(final OutputStream out, final long maxBytes) {
        this(out, maxBytes, DEFAULT_BUFFER);
    }

    public CsvResultWriter(final OutputStream out, final long maxBytes, final int bufferSize) {
        this(out, maxBytes, buffer(bufferSize));
    }

    /** Encodes into a caller's reusable buffer (see {@link EncodingWriter}). */
    public CsvResultWriter(final OutputStream out, final long maxBytes, final byte[] buffer) {
        super(out, maxBytes, buffer, false, false);
    }

    @Override
    public void begin(final List<String> columns, final List<ValueType> columnTypes) {
        types = columnTypes;
        for (int i = 0; i < columns.size(); i++) {
            if (i > 0) {
                ascii(",");
            }
            field(columns.get(i));
        }
        ascii("\n");
    }

    @Override
    void separator() {
        if (column > 0) {
            ensure(1);
            buf[pos++] = ',';
        }
    }

    @Override
    void text(final String s) {
        field(s);
    }

    @Override
    void nullCell() {
        // an empty field
    }

    @Override
    public void endRow() {
        ensure(1);
        buf[pos++] = '\n';
        column = 0;
        rows++;
        checkLimit();
    }

    @Override
    public void end(final ResultStats stats) {
        finish();
    }

    @Override
    void writeAbort(final String message) {
        if (column > 0) {
            ascii("\n");
        }
        ascii("#error: ");
        utf8(message.replace('\n', ' '));
        ascii("\n");
    }

    private void field(final String s) {
        boolean quote = s.isEmpty();
        for (int i = 0; i < s.length() && !quote; i++) {
            final char c = s.charAt(i);
            quote = c == ',' || c == '"' || c == '\n' || c == '\r';
        }
        if (!quote) {
            utf8(s);
            return;
        }
        utf8("\"" + s.replace("\"", "\"\"") + "\"");
    }
}
