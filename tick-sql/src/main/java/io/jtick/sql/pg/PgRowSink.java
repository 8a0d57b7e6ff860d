package io.jtick.sql.pg;

import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.result.ResultSink;
import io.jtick.core.query.result.ResultStats;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;

/**
 * A statement's rows as DataRow messages, each value in its column's text or binary form, written
 * into the connection's buffer and handed on in batches of about {@link #BATCH} bytes (the
 * connection waits there while the client reads slowly, and stops a cancelled query). Counts rows
 * for CommandComplete.
 */
final class PgRowSink implements ResultSink {
    /** Bytes of DataRows gathered before they are handed to the socket. */
    static final int BATCH = 32 * 1024;

    /** Where the batches go. */
    interface Batches {
        /** The buffer rows are written into (a fresh one after each {@link #flush}). */
        ByteBuf buffer();

        /** Hands the buffer on; blocks while the socket is not writable; throws when the query was cancelled. */
        void flush();
    }

    private final Batches out;
    private final boolean[] binary;
    private ValueType[] types;
    private int column;
    private int rowStart;
    private long rows;

    PgRowSink(final Batches out, final boolean[] binary) {
        this.out = out;
        this.binary = binary;
    }

    long rows() {
        return rows;
    }

    @Override
    public void begin(final List<String> columns, final List<ValueType> columnTypes) {
        this.types = columnTypes.toArray(new ValueType[0]);
        startRow();
    }

    private void startRow() {
        final ByteBuf b = out.buffer();
        rowStart = b.writerIndex();
        b.writeByte('D');
        b.writeInt(0);
        b.writeShort(types.length);
        column = 0;
    }

    private boolean bin() {
        return binary != null && binary[column];
    }

    @Override
    public void value(final long v) {
        final ByteBuf b = out.buffer();
        final ValueType t = types[column];
        if (bin()) {
            switch (t) {
                case TIMESTAMP -> b.writeInt(8).writeLong(Math.floorDiv(v, 1000L) - PgTypes.PG_EPOCH_MICROS);
                case DATE -> b.writeInt(4).writeInt((int) (v - PgTypes.PG_EPOCH_DAY));
                case INT32 -> b.writeInt(4).writeInt((int) v);
                case INT16, BYTE -> b.writeInt(2).writeShort((int) v);
                case BOOL -> b.writeInt(1).writeByte(v != 0 ? 1 : 0);
                case CHAR -> b.writeInt(1).writeByte((int) v);
                default -> b.writeInt(8).writeLong(v);
            }
        } else {
            switch (t) {
                case TIMESTAMP -> text(b, timestamp(v));
                case DATE -> text(b, LocalDate.ofEpochDay(v).toString());
                case BOOL -> text(b, v != 0 ? "t" : "f");
                case CHAR -> text(b, String.valueOf((char) v));
                default -> text(b, Long.toString(v));
            }
        }
        column++;
    }

    @Override
    public void value(final double v) {
        final ByteBuf b = out.buffer();
        if (bin()) {
            if (types[column] == ValueType.FLOAT32) {
                b.writeInt(4).writeFloat((float) v);
            } else {
                b.writeInt(8).writeDouble(v);
            }
        } else {
            text(b, types[column] == ValueType.FLOAT32 ? Float.toString((float) v) : Double.toString(v));
        }
        column++;
    }

    @Override
    public void symbol(final String s) {
        text(out.buffer(), s);
        column++;
    }

    @Override
    public void nullValue() {
        out.buffer().writeInt(-1);
        column++;
    }

    @Override
    public void endRow() {
        final ByteBuf b = out.buffer();
        b.setInt(rowStart + 1, b.writerIndex() - rowStart - 1);
        rows++;
        if (b.readableBytes() >= BATCH) {
            out.flush();
        }
        startRow();
    }

    @Override
    public void end(final ResultStats stats) {
        // the row begun after the last one is not sent
        out.buffer().writerIndex(rowStart);
    }

    private static void text(final ByteBuf b, final String s) {
        final int at = b.writerIndex();
        b.writeInt(0);
        final int n = b.writeCharSequence(s, StandardCharsets.UTF_8);
        b.setInt(at, n);
    }

    /**
     * PostgreSQL's text form of a timestamptz in UTC, to the microsecond as PostgreSQL writes it
     * ({@code 2026-11-21 09:30:00.123456+00}; nanoseconds cut toward the past, as in binary results):
     * clients parse at most six digits (psycopg reads {@code .000000123} as 123 microseconds).
     */
    static String timestamp(final long epochNanos) {
        final long sec = Math.floorDiv(epochNanos, 1_000_000_000L);
        final int micros = (int) (Math.floorMod(epochNanos, 1_000_000_000L) / 1_000);
        final LocalDateTime t = LocalDateTime.ofEpochSecond(sec, 0, ZoneOffset.UTC);
        final StringBuilder sb = new StringBuilder(32);
        sb.append(t.toLocalDate()).append(' ');
        two(sb, t.getHour()).append(':');
        two(sb, t.getMinute()).append(':');
        two(sb, t.getSecond());
        if (micros != 0) {
            final String f = Integer.toString(1_000_000 + micros).substring(1);
            int end = f.length();
            while (f.charAt(end - 1) == '0') {
                end--;
            }
            sb.append('.').append(f, 0, end);
        }
        return sb.append("+00").toString();
    }

    private static StringBuilder two(final StringBuilder sb, final int v) {
        if (v < 10) {
            sb.append('0');
        }
        return sb.append(v);
    }
}
