package io.jtick.core.feed;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Base of the file sources, recorded days read from files (TAQ, AlgoSeek, LOBSTER; opened by
 * {@link FileSources}): one row of look-ahead ({@link #readRow} fills {@link #rowTime},
 * {@link #rowSym} and {@link #row}), staged into a {@link RowStage} and encoded per update.
 */
public abstract class FileSource implements TickSource {
    protected final TableSchema schema;
    protected final long[] row;
    protected long rowTime;
    protected int rowSym;
    private byte[][] syms = new byte[0][];
    private RowStage stage;
    private boolean pending;
    private boolean ended;
    private long rowsRead;
    private java.util.function.Consumer<String> badLines;

    FileSource(final TableSchema schema) {
        this.schema = schema;
        this.row = new long[schema.columnCount()];
    }

    /** Reads the next row into {@link #rowTime}, {@link #rowSym}, {@link #row}; false at end of data. */
    protected abstract boolean readRow();

    /** Closes the files. */
    protected abstract void closeFiles();

    @Override
    public final TableSchema schema() {
        return schema;
    }

    @Override
    public final long nextEventTime() {
        return lookAhead() ? rowTime : END;
    }

    @Override
    public final int encodeUpdate(final UpdateEncoder encoder, final ByteBuf buffer, final int maxRows, final long dueBefore,
                                  final long nowNanos) {
        if (stage == null || stage.capacity() < maxRows) {
            stage = new RowStage(schema, maxRows);
        }
        int n = 0;
        while (n < maxRows && lookAhead() && rowTime < dueBefore) {
            stage.copyRow(n++, rowTime, rowSym, row);
            pending = false;
        }
        if (n > 0) {
            stage.encode(encoder, buffer, n, syms, nowNanos);
            rowsRead += n;
        }
        return n;
    }

    @Override
    public final long rowsRead() {
        return rowsRead;
    }

    /**
     * Skips lines that do not parse instead of failing: each is reported to {@code handler} with its
     * file and line ({@code not a valid integer [file=..., line=..., field=..., value=...]}). Without a
     * handler the first bad line ends the source with that error.
     */
    public final void onBadLine(final java.util.function.Consumer<String> handler) {
        this.badLines = handler;
    }

    /** A line did not parse: rethrown, or reported and skipped when a handler is set. */
    protected final void skip(final IllegalArgumentException e) {
        if (badLines == null) {
            throw e;
        }
        badLines.accept(e.getMessage());
    }

    @Override
    public final void close() {
        ended = true;
        pending = false;
        closeFiles();
    }

    private boolean lookAhead() {
        if (!pending && !ended) {
            pending = readRow();
            ended = !pending;
        }
        return pending;
    }

    /** The id of a sym, adding it on first sight (the sym table is small: a linear scan). */
    protected final int internSym(final String sym) {
        return internSym(sym.getBytes(StandardCharsets.US_ASCII));
    }

    protected final int internSym(final byte[] sym) {
        for (int i = 0; i < syms.length; i++) {
            if (Arrays.equals(syms[i], sym)) {
                return i;
            }
        }
        syms = Arrays.copyOf(syms, syms.length + 1);
        syms[syms.length - 1] = sym;
        return syms.length - 1;
    }

    /** The id of the sym in a CSV field, allocating only for a sym not seen before. */
    protected final int internSym(final CsvLineReader in, final int field) {
        for (int i = 0; i < syms.length; i++) {
            if (in.fieldEquals(field, syms[i])) {
                return i;
            }
        }
        if (in.length(field) == 0) {
            throw in.bad(field, "symbol");
        }
        return internSym(in.fieldBytes(field));
    }

    protected static long bits(final double v) {
        return Double.doubleToRawLongBits(v);
    }
}
