package io.jtick.core.wire;

import io.jtick.core.schema.TableSchema;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.jtick.core.wire.FrameDescriptor.HEADER_LENGTH;
import static io.jtick.core.wire.FrameDescriptor.LENGTH_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.TYPE_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.VERSION;

/**
 * Encoders and decoders of the control frames (everything but UPDATE). These run once per
 * connection or per day, so they use plain objects. Bodies (after the 8-byte header):
 * <pre>
 * HELLO          uint8 role (1 feed, 2 subscriber), uint16 protocolVersion, str8 name,
 *                protocol 2 and later: uint8 flags ({@link FrameDescriptor#HELLO_FLAG_NUMBERED}), str8 token
 *                (the API token, empty for none; a protocol 2 HELLO that ends after its flags has none)
 * SUBSCRIBE      int64 fromSequence (-1 live only, 0 start of today's journal, n: after n),
 *                uint16 tableCount, str8 tables..., int32 symCount, str8 syms...   (0 = all)
 * SUBSCRIBED     int64 sequence, int64 journalSequence, int32 epochDay, uint16 tableCount,
 *                (str8 table, str16 schema)...
 * CATCH_UP_DONE  int64 sequence
 * END_OF_DAY     int32 epochDay (the day that ended), int64 sequence
 * ERROR          int32 code, str16 message (UTF-8)
 * HEARTBEAT      int64 epochNanos
 * FEED_ACK       int64 feedSequence (the feed's last update number journalled)
 * REPLAY         int32 fromDay, int32 toDay, int64 startNanos, int64 endNanos, uint8 pace, float64 speed,
 *                int32 rowsPerUpdate, str8 zone, uint16 tableCount, str8 tables..., int32 symCount, str8 syms...
 * REPLAY_DONE    uint8 status, int64 rows, int64 frames, int64 bytes, uint16 tableCount, (str8 table, int64 rows)...,
 *                str16 message
 * </pre>
 * str8 is uint8 length + ASCII bytes, str16 is uint16 length + UTF-8 bytes.
 */
public final class ControlFrames {
    /** HELLO role of a feed. */
    public static final int ROLE_FEED = 1;
    /** HELLO role of a subscriber (a chained tickerplant subscribes as one). */
    public static final int ROLE_SUBSCRIBER = 2;

    private ControlFrames() {
    }

    /**
     * @param flags protocol 2: {@link FrameDescriptor#HELLO_FLAG_NUMBERED}; 0 for protocol 1
     * @param token protocol 2: the API token the peer presents ({@code tick.api.token}), null for none
     */
    public record Hello(int role, int protocolVersion, String name, int flags, String token) {
        /** A HELLO without flags (protocol 1). */
        public Hello(final int role, final int protocolVersion, final String name) {
            this(role, protocolVersion, name, 0, null);
        }

        /** A HELLO without a token. */
        public Hello(final int role, final int protocolVersion, final String name, final int flags) {
            this(role, protocolVersion, name, flags, null);
        }

        /** Never shows the token. */
        @Override
        public String toString() {
            return "Hello[role=" + role + ", protocolVersion=" + protocolVersion + ", name=" + name + ", flags=" + flags + ", token="
                + (token == null ? "(none)" : "(set)") + "]";
        }

        /** A feed that numbers its updates and wants FEED_ACK. */
        public boolean numbered() {
            return role == ROLE_FEED && protocolVersion >= 2 && (flags & FrameDescriptor.HELLO_FLAG_NUMBERED) != 0;
        }
    }

    /** REPLAY pace: as fast as the consumer reads. */
    public static final int PACE_MAX = 0;
    /** REPLAY pace: the recorded gaps between rows, divided by the speed factor. */
    public static final int PACE_RECORDED = 1;

    /**
     * A historical replay request (the HDB's replay port, docs/wire-format.md).
     *
     * @param tables     tables to merge by time, 1..64; rows with equal times go in this order of tables
     * @param fromDay    first partition date, days since 1970-01-01, inclusive
     * @param toDay      last partition date, inclusive
     * @param syms       syms to replay; empty = all
     * @param startNanos time-of-day window start, ns after local midnight of each date in {@code zone} (inclusive)
     * @param endNanos   window end, exclusive; {@link #NO_END} = to the end of the partition
     * @param zone       zone of the window, empty = the server's default
     * @param pace       {@link #PACE_MAX} or {@link #PACE_RECORDED}
     * @param speed      recorded pace only: the gaps divided by this (2 = twice as fast); must be positive
     * @param rowsPerUpdate most rows per UPDATE frame; 0 = the server's default
     */
    public record Replay(List<String> tables, int fromDay, int toDay, List<String> syms, long startNanos, long endNanos, String zone,
                         int pace, double speed, int rowsPerUpdate) {
        /** {@link #endNanos()} of a window open at its end. */
        public static final long NO_END = Long.MAX_VALUE;

        public Replay {
            tables = List.copyOf(tables);
            syms = List.copyOf(syms);
            zone = zone == null ? "" : zone;
        }

        /** Every row of {@code tables} from {@code fromDay} to {@code toDay}, as fast as possible, the server's rows per update. */
        public static Replay of(final List<String> tables, final int fromDay, final int toDay) {
            return new Replay(tables, fromDay, toDay, List.of(), 0, NO_END, "", PACE_MAX, 1, 0);
        }

        public Replay withSyms(final List<String> s) {
            return new Replay(tables, fromDay, toDay, s, startNanos, endNanos, zone, pace, speed, rowsPerUpdate);
        }

        public Replay withWindow(final long start, final long end, final String z) {
            return new Replay(tables, fromDay, toDay, syms, start, end, z, pace, speed, rowsPerUpdate);
        }

        /** Recorded pace × {@code factor}. */
        public Replay withSpeed(final double factor) {
            return new Replay(tables, fromDay, toDay, syms, startNanos, endNanos, zone, PACE_RECORDED, factor, rowsPerUpdate);
        }

        public Replay withRowsPerUpdate(final int rows) {
            return new Replay(tables, fromDay, toDay, syms, startNanos, endNanos, zone, pace, speed, rows);
        }
    }

    /** REPLAY_DONE status: every row was sent. */
    public static final int REPLAY_COMPLETE = 0;
    /** REPLAY_DONE status: stopped by an operator ({@code DELETE /api/replays/{id}}) or a shutdown. */
    public static final int REPLAY_CANCELLED = 1;
    /** REPLAY_DONE status: the HDB could not read a partition (the message names file and block). */
    public static final int REPLAY_FAILED = 2;

    /**
     * The end of a replay.
     *
     * @param status      {@link #REPLAY_COMPLETE}, {@link #REPLAY_CANCELLED} or {@link #REPLAY_FAILED}
     * @param rows        rows sent in UPDATE frames
     * @param frames      UPDATE frames sent
     * @param bytes       bytes of those frames
     * @param rowsByTable rows sent per table, in request order
     * @param message     why it did not complete, empty when it did
     */
    public record ReplayDone(int status, long rows, long frames, long bytes, Map<String, Long> rowsByTable, String message) {
        public ReplayDone {
            rowsByTable = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(rowsByTable));
            message = message == null ? "" : message;
        }

        /** complete, cancelled or failed. */
        public String statusName() {
            return status == REPLAY_COMPLETE ? "complete" : status == REPLAY_CANCELLED ? "cancelled" : "failed";
        }
    }

    public record Subscribe(long fromSequence, List<String> tables, List<String> syms) {
    }

    public record Subscribed(long sequence, long journalSequence, int epochDay, Map<String, TableSchema> schemas) {
    }

    public record Error(ErrorCode code, String message) {
    }

    public record EndOfDay(int epochDay, long sequence) {
    }

    /** A protocol 1 HELLO (subscribers, feeds that do not number their updates). */
    public static ByteBuf hello(final ByteBufAllocator alloc, final int role, final String name) {
        return hello(alloc, role, name, 1, 0);
    }

    /**
     * The HELLO a client sends: protocol 1 when it needs nothing of protocol 2 (no flags, no token), so
     * a tickerplant that speaks only 1 still takes it; otherwise {@link FrameDescriptor#PROTOCOL_VERSION}.
     *
     * @param token the API token to present, or null
     */
    public static ByteBuf clientHello(final ByteBufAllocator alloc, final int role, final String name, final int flags,
                                      final String token) {
        return flags == 0 && token == null ? hello(alloc, role, name)
            : hello(alloc, role, name, FrameDescriptor.PROTOCOL_VERSION, flags, token);
    }

    /** A HELLO of {@code protocolVersion} without a token; {@code flags} are written from protocol 2 on. */
    public static ByteBuf hello(final ByteBufAllocator alloc, final int role, final String name, final int protocolVersion,
                                final int flags) {
        return hello(alloc, role, name, protocolVersion, flags, null);
    }

    /**
     * A HELLO of {@code protocolVersion}; {@code flags} and {@code token} (null: none) are written from
     * protocol 2 on, so a token needs protocol 2.
     */
    public static ByteBuf hello(final ByteBufAllocator alloc, final int role, final String name, final int protocolVersion,
                                final int flags, final String token) {
        if (token != null && protocolVersion < 2) {
            throw new IllegalArgumentException("a HELLO carries a token from protocol 2 on [protocolVersion=" + protocolVersion + "]");
        }
        final ByteBuf b = start(alloc, MessageType.HELLO);
        try {
            b.writeByte(role);
            b.writeShortLE(protocolVersion);
            str8(b, name);
            if (protocolVersion >= 2) {
                b.writeByte(flags);
                str8(b, token == null ? "" : token);
            }
            return end(b);
        } catch (final RuntimeException e) {
            b.release();
            throw e;
        }
    }

    /** @param fromSequence -1 live only, 0 all of today's journal then live, n: what follows sequence n then live */
    public static ByteBuf subscribe(final ByteBufAllocator alloc, final long fromSequence, final List<String> tables,
                                    final List<String> syms) {
        final ByteBuf b = start(alloc, MessageType.SUBSCRIBE);
        try {
            b.writeLongLE(fromSequence);
            b.writeShortLE(tables.size());
            for (final String t : tables) {
                str8(b, t);
            }
            b.writeIntLE(syms.size());
            for (final String s : syms) {
                str8(b, s);
            }
            return end(b);
        } catch (final RuntimeException e) {
            b.release();
            throw e;
        }
    }

    public static ByteBuf subscribed(final ByteBufAllocator alloc, final long sequence, final long journalSequence,
                                     final int epochDay, final List<TableSchema> schemas) {
        final ByteBuf b = start(alloc, MessageType.SUBSCRIBED);
        try {
            b.writeLongLE(sequence);
            b.writeLongLE(journalSequence);
            b.writeIntLE(epochDay);
            b.writeShortLE(schemas.size());
            for (final TableSchema s : schemas) {
                str8(b, s.name());
                str16(b, s.toSchemaString());
            }
            return end(b);
        } catch (final RuntimeException e) {
            b.release();
            throw e;
        }
    }

    public static ByteBuf replay(final ByteBufAllocator alloc, final Replay r) {
        final ByteBuf b = start(alloc, MessageType.REPLAY);
        try {
            b.writeIntLE(r.fromDay());
            b.writeIntLE(r.toDay());
            b.writeLongLE(r.startNanos());
            b.writeLongLE(r.endNanos());
            b.writeByte(r.pace());
            b.writeDoubleLE(r.speed());
            b.writeIntLE(r.rowsPerUpdate());
            str8(b, r.zone());
            b.writeShortLE(r.tables().size());
            for (final String t : r.tables()) {
                str8(b, t);
            }
            b.writeIntLE(r.syms().size());
            for (final String s : r.syms()) {
                str8(b, s);
            }
            return end(b);
        } catch (final RuntimeException e) {
            b.release();
            throw e;
        }
    }

    public static ByteBuf replayDone(final ByteBufAllocator alloc, final ReplayDone d) {
        final ByteBuf b = start(alloc, MessageType.REPLAY_DONE);
        try {
            b.writeByte(d.status());
            b.writeLongLE(d.rows());
            b.writeLongLE(d.frames());
            b.writeLongLE(d.bytes());
            b.writeShortLE(d.rowsByTable().size());
            for (final Map.Entry<String, Long> e : d.rowsByTable().entrySet()) {
                str8(b, e.getKey());
                b.writeLongLE(e.getValue());
            }
            str16(b, d.message().length() > 4000 ? d.message().substring(0, 4000) : d.message());
            return end(b);
        } catch (final RuntimeException e) {
            b.release();
            throw e;
        }
    }

    /**
     * Reads a REPLAY body.
     *
     * @throws IllegalArgumentException when the body is shorter than its counts say or has bytes left over
     */
    public static Replay readReplay(final ByteBuf frame) {
        final ByteBuf b = body(frame);
        try {
            final int from = b.readIntLE();
            final int to = b.readIntLE();
            final long start = b.readLongLE();
            final long end = b.readLongLE();
            final int pace = b.readUnsignedByte();
            final double speed = b.readDoubleLE();
            final int rowsPerUpdate = b.readIntLE();
            final String zone = readStr8(b);
            final int tables = b.readUnsignedShortLE();
            final List<String> t = new ArrayList<>(tables);
            for (int i = 0; i < tables; i++) {
                t.add(readStr8(b));
            }
            final int syms = b.readIntLE();
            if (syms < 0 || syms > b.readableBytes()) {
                throw new IllegalArgumentException("bad sym count [syms=" + syms + "]");
            }
            final List<String> s = new ArrayList<>(syms);
            for (int i = 0; i < syms; i++) {
                s.add(readStr8(b));
            }
            if (b.isReadable()) {
                throw new IllegalArgumentException("bytes left after the request [bytes=" + b.readableBytes() + "]");
            }
            return new Replay(t, from, to, s, start, end, zone, pace, speed, rowsPerUpdate);
        } catch (final IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("request shorter than its fields [bytes=" + frame.readableBytes() + "]", e);
        }
    }

    public static ReplayDone readReplayDone(final ByteBuf frame) {
        final ByteBuf b = body(frame);
        final int status = b.readUnsignedByte();
        final long rows = b.readLongLE();
        final long frames = b.readLongLE();
        final long bytes = b.readLongLE();
        final int n = b.readUnsignedShortLE();
        final Map<String, Long> byTable = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            byTable.put(readStr8(b), b.readLongLE());
        }
        return new ReplayDone(status, rows, frames, bytes, byTable, readStr16(b));
    }

    public static ByteBuf catchUpDone(final ByteBufAllocator alloc, final long sequence) {
        final ByteBuf b = start(alloc, MessageType.CATCH_UP_DONE);
        b.writeLongLE(sequence);
        return end(b);
    }

    public static ByteBuf endOfDay(final ByteBufAllocator alloc, final int epochDay, final long sequence) {
        final ByteBuf b = start(alloc, MessageType.END_OF_DAY);
        b.writeIntLE(epochDay);
        b.writeLongLE(sequence);
        return end(b);
    }

    public static ByteBuf error(final ByteBufAllocator alloc, final ErrorCode code, final String message) {
        final ByteBuf b = start(alloc, MessageType.ERROR);
        b.writeIntLE(code.code());
        final String m = message.length() > 4000 ? message.substring(0, 4000) : message;
        str16(b, m);
        return end(b);
    }

    /** FEED_ACK: {@code feedSequence} is the feed's last update number the TP has journalled (read it with {@link #readSequence}). */
    public static ByteBuf feedAck(final ByteBufAllocator alloc, final long feedSequence) {
        final ByteBuf b = start(alloc, MessageType.FEED_ACK);
        b.writeLongLE(feedSequence);
        return end(b);
    }

    public static ByteBuf heartbeat(final ByteBufAllocator alloc, final long epochNanos) {
        final ByteBuf b = start(alloc, MessageType.HEARTBEAT);
        b.writeLongLE(epochNanos);
        return end(b);
    }

    /** Frame type at {@code offset}. */
    public static int type(final ByteBuf b, final int offset) {
        return b.getUnsignedByte(offset + TYPE_OFFSET);
    }

    /** A HELLO of any protocol version; flags are 0 and the token null when the frame has none (protocol 1). */
    public static Hello readHello(final ByteBuf frame) {
        final ByteBuf b = body(frame);
        final int role = b.readUnsignedByte();
        final int version = b.readUnsignedShortLE();
        final String name = readStr8(b);
        final int flags = version >= 2 && b.isReadable() ? b.readUnsignedByte() : 0;
        final String token = version >= 2 && b.isReadable() ? readStr8(b) : "";
        return new Hello(role, version, name, flags, token.isEmpty() ? null : token);
    }

    public static Subscribe readSubscribe(final ByteBuf frame) {
        final ByteBuf b = body(frame);
        final long from = b.readLongLE();
        final int tables = b.readUnsignedShortLE();
        final List<String> t = new ArrayList<>(tables);
        for (int i = 0; i < tables; i++) {
            t.add(readStr8(b));
        }
        final int syms = b.readIntLE();
        if (syms < 0 || syms > b.readableBytes()) {
            throw new IllegalArgumentException("bad sym count [syms=" + syms + "]");
        }
        final List<String> s = new ArrayList<>(syms);
        for (int i = 0; i < syms; i++) {
            s.add(readStr8(b));
        }
        return new Subscribe(from, t, s);
    }

    public static Subscribed readSubscribed(final ByteBuf frame) {
        final ByteBuf b = body(frame);
        final long seq = b.readLongLE();
        final long jseq = b.readLongLE();
        final int day = b.readIntLE();
        final int n = b.readUnsignedShortLE();
        final Map<String, TableSchema> schemas = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            final String name = readStr8(b);
            schemas.put(name, TableSchema.parse(name, readStr16(b)));
        }
        return new Subscribed(seq, jseq, day, schemas);
    }

    public static long readSequence(final ByteBuf frame) {
        return frame.getLongLE(frame.readerIndex() + HEADER_LENGTH);
    }

    public static EndOfDay readEndOfDay(final ByteBuf frame) {
        final ByteBuf b = body(frame);
        return new EndOfDay(b.readIntLE(), b.readLongLE());
    }

    public static Error readError(final ByteBuf frame) {
        final ByteBuf b = body(frame);
        return new Error(ErrorCode.fromCode(b.readIntLE()), readStr16(b));
    }

    private static ByteBuf body(final ByteBuf frame) {
        final int len = frame.getIntLE(frame.readerIndex() + LENGTH_OFFSET);
        return frame.slice(frame.readerIndex() + HEADER_LENGTH, len - HEADER_LENGTH);
    }

    private static ByteBuf start(final ByteBufAllocator alloc, final int type) {
        final ByteBuf b = alloc.buffer(64);
        b.writeIntLE(0);
        b.writeByte(VERSION);
        b.writeByte(type);
        b.writeShortLE(0);
        return b;
    }

    private static ByteBuf end(final ByteBuf b) {
        b.setIntLE(LENGTH_OFFSET, b.readableBytes());
        return b;
    }

    private static void str8(final ByteBuf b, final String s) {
        final byte[] bytes = s.getBytes(StandardCharsets.US_ASCII);
        if (bytes.length > 255) {
            throw new IllegalArgumentException("string longer than 255 bytes [length=" + bytes.length + "]");
        }
        b.writeByte(bytes.length);
        b.writeBytes(bytes);
    }

    private static void str16(final ByteBuf b, final String s) {
        final byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        b.writeShortLE(Math.min(bytes.length, 65535));
        b.writeBytes(bytes, 0, Math.min(bytes.length, 65535));
    }

    private static String readStr8(final ByteBuf b) {
        final int len = b.readUnsignedByte();
        return b.readCharSequence(len, StandardCharsets.US_ASCII).toString();
    }

    private static String readStr16(final ByteBuf b) {
        final int len = b.readUnsignedShortLE();
        return b.readCharSequence(len, StandardCharsets.UTF_8).toString();
    }
}
