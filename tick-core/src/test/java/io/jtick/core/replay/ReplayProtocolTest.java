package io.jtick.core.replay;

import io.jtick.core.feed.SyntheticDay;
import io.jtick.core.auth.AccessSettings;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.read.PartitionSource;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.wire.ErrorCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The replay port as docs/wire-format.md "Replay" states it, spoken byte by byte over a plain socket
 * on loopback, the way a consumer written from that page alone speaks it: nothing here encodes or
 * decodes through {@code ControlFrames} or {@code TickClient}. Each test names the points of the
 * page it pins down.
 */
@ExtendWith(LeakCheck.class)
class ReplayProtocolTest {
    static final LocalDate D1 = LocalDate.of(2026, 3, 2);
    static final LocalDate D2 = LocalDate.of(2026, 3, 3);
    static final LocalDate D3 = LocalDate.of(2026, 3, 4);
    static final LocalDate D4 = LocalDate.of(2026, 3, 5);
    static final long HOUR = 3_600_000_000_000L;
    static final long NO_END = Long.MAX_VALUE;
    static final int HELLO = 1;
    static final int UPDATE = 3;
    static final int ERROR = 5;
    static final int HEARTBEAT = 6;
    static final int SUBSCRIBED = 7;
    static final int REPLAY = 16;
    static final int REPLAY_DONE = 17;

    @TempDir
    Path root;

    private HistoricalDatabase hdb;
    private ReplayServer server;
    private final TickMetrics metrics = new TickMetrics();

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (hdb != null) {
            hdb.close();
        }
    }

    private void start(final AccessSettings access) throws IOException {
        hdb = new HistoricalDatabase(root, metrics);
        hdb.reload();
        server = new ReplayServer(hdb, ReplaySettings.defaults(root).withWindowRows(2048).withThreads(2), metrics).access(access).start();
    }

    /** trade on D2 and D4, quote on D1, nothing on D3. */
    private void tradeAndQuoteDays() throws IOException {
        final PartitionWriter w = new PartitionWriter(root, EncodingPolicy.PLAIN);
        w.write(D1, List.of(SyntheticDay.segment("quote", D1, 1_000, 5, 1)));
        w.write(D2, List.of(SyntheticDay.segment("trade", D2, 3_000, 5, 2)));
        w.write(D4, List.of(SyntheticDay.segment("trade", D4, 2_000, 5, 3)));
    }

    // ---------------------------------------------------------------- SUBSCRIBED, dates, counts

    @Test
    void shouldNameTheFirstDateWithAPartitionSkipEmptyDatesAndCountUpdateFramesInReplayDone() throws Exception {
        tradeAndQuoteDays();
        start(AccessSettings.DEFAULT);
        try (Wire w = new Wire(server.port())) {
            w.send(hello(0, 2, 2, "doc-reader", 0, ""));
            w.send(replay(0, D1.minusDays(1), D4.plusDays(1), 0, NO_END, 0, 1.0, 500, "", List.of("trade"), List.of()));
            final Frame subscribed = w.read();
            assertThat(subscribed.type).isEqualTo(SUBSCRIBED);
            assertThat(subscribed.flags).isZero();
            final ByteBuffer s = subscribed.body;
            assertThat(s.getLong()).as("sequence").isZero();
            assertThat(s.getLong()).as("journalSequence = rows the replay will send").isEqualTo(5_000);
            assertThat(LocalDate.ofEpochDay(s.getInt())).as("the first date holding a partition of a table asked for, not fromDay")
                .isEqualTo(D2);
            assertThat(Short.toUnsignedInt(s.getShort())).isEqualTo(1);
            assertThat(str8(s)).isEqualTo("trade");
            assertThat(str16(s)).as("schema: name:type pairs joined by commas, canonical type names, no spaces")
                .isEqualTo("time:timestamp,sym:symbol,price:float64,size:int64,cond:char");
            assertThat(s.hasRemaining()).isFalse();

            long rows = 0;
            long frames = 0;
            long bytes = 0;
            final List<LocalDate> dates = new ArrayList<>();
            Frame f;
            while ((f = w.read()).type == UPDATE) {
                final ByteBuffer u = f.whole;
                assertThat(f.flags).as("FLAG_STAMP_TIME not set").isZero();
                assertThat(u.getLong(8)).as("sequence = rows sent through this frame").isEqualTo(rows + u.getInt(20));
                assertThat(u.getInt(16)).as("updateCount").isEqualTo(1);
                assertThat(u.getLong(24)).as("tpTime").isZero();
                assertThat(u.getLong(32)).as("feedTime").isZero();
                rows += u.getInt(20);
                frames++;
                bytes += f.length;
                final int nameLength = Short.toUnsignedInt(u.getShort(42));
                final long firstTime = u.getLong(48 + pad8(nameLength) + 8);
                final LocalDate d = LocalDate.ofEpochDay(Math.floorDiv(firstTime, 86_400_000_000_000L));
                if (dates.isEmpty() || !dates.get(dates.size() - 1).equals(d)) {
                    dates.add(d);
                }
            }
            assertThat(dates).as("D3 has no partition: skipped, no frame, no gap").containsExactly(D2, D4);
            assertThat(f.type).isEqualTo(REPLAY_DONE);
            final Done done = Done.of(f);
            assertThat(done.status).isZero();
            assertThat(done.rows).isEqualTo(5_000).isEqualTo(rows);
            assertThat(done.frames).as("UPDATE frames only").isEqualTo(frames);
            assertThat(done.bytes).as("whole UPDATE frames, headers included; not SUBSCRIBED nor REPLAY_DONE").isEqualTo(bytes);
            assertThat(done.rowsByTable).containsExactly(Map.entry("trade", 5_000L));
            assertThat(done.message).isEmpty();
            assertThat(w.read()).as("the HDB closes after REPLAY_DONE").isNull();
        }
        // the date SUBSCRIBED names is the first with a partition of ANY table asked for
        try (Wire w = new Wire(server.port())) {
            w.send(replay(0, D1.minusDays(1), D4, 0, NO_END, 0, 1.0, 0, "", List.of("trade", "quote"), List.of()));
            final ByteBuffer s = w.read().body;
            s.position(16);
            assertThat(LocalDate.ofEpochDay(s.getInt())).isEqualTo(D1);
        }
        // ... even when the syms or the window leave no row of it: unknown syms are no error, they match no row
        try (Wire w = new Wire(server.port())) {
            w.send(replay(0, D1, D4, 0, NO_END, 0, 1.0, 0, "", List.of("trade"), List.of("NOPE", "NADA")));
            final Frame subscribed = w.read();
            assertThat(subscribed.type).isEqualTo(SUBSCRIBED);
            assertThat(subscribed.body.getLong(8)).as("rows to send").isZero();
            assertThat(LocalDate.ofEpochDay(subscribed.body.getInt(16))).isEqualTo(D2);
            final Frame end = w.read();
            assertThat(end.type).as("no UPDATE at all").isEqualTo(REPLAY_DONE);
            final Done done = Done.of(end);
            assertThat(done.status).isZero();
            assertThat(done.rows).isZero();
            assertThat(done.frames).isZero();
            assertThat(done.bytes).isZero();
            assertThat(done.rowsByTable).containsExactly(Map.entry("trade", 0L));
        }
        final long s1 = replayToEnd(replay(0, D1, D4, 0, NO_END, 0, 1.0, 0, "", List.of("trade"), List.of("S0001"))).rows;
        assertThat(s1).isPositive();
        assertThat(replayToEnd(replay(0, D1, D4, 0, NO_END, 0, 1.0, 0, "", List.of("trade"), List.of("S0001", "NOPE"))).rows)
            .as("known syms still replay").isEqualTo(s1);
        assertThat(replayToEnd(replay(0, D1, D4, 0, NO_END, 0, 1.0, 0, "", List.of("trade"), List.of("S0001", "S0001"))).rows)
            .as("a sym asked for twice counts once").isEqualTo(s1);
    }

    // ---------------------------------------------------------------- pace and speed

    @Test
    void shouldIgnoreSpeedAtPaceZeroAndRefuseABadSpeedOnlyAtRecordedPace() throws Exception {
        tradeAndQuoteDays();
        start(AccessSettings.DEFAULT);
        for (final double speed : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
            final Done done = replayToEnd(replay(0, D2, D2, 0, NO_END, 0, speed, 0, "", List.of("trade"), List.of()));
            assertThat(done.status).as("pace 0, speed %s", speed).isZero();
            assertThat(done.rows).isEqualTo(3_000);
        }
        for (final double speed : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
            assertRefused(replay(0, D2, D2, 0, NO_END, 1, speed, 0, "", List.of("trade"), List.of()), ErrorCode.BAD_REPLAY,
                "speed must be a positive number");
        }
        assertRefused(replay(0, D2, D2, 0, NO_END, 2, 1.0, 0, "", List.of("trade"), List.of()), ErrorCode.BAD_REPLAY,
            "unknown pace, expected 0 (max) or 1 (recorded) [pace=2]");
    }

    // ---------------------------------------------------------------- window and tables

    @Test
    void shouldCheckTheWindowBoundsAndTheTableList() throws Exception {
        tradeAndQuoteDays();
        start(AccessSettings.DEFAULT);
        final String window = "time-of-day window must have 0 <= start < 48h and end > start";
        assertRefused(replay(0, D2, D2, -1, NO_END, 0, 1, 0, "", List.of("trade"), List.of()), ErrorCode.BAD_REPLAY, window);
        assertRefused(replay(0, D2, D2, 48 * HOUR, NO_END, 0, 1, 0, "", List.of("trade"), List.of()), ErrorCode.BAD_REPLAY, window);
        assertRefused(replay(0, D2, D2, HOUR, HOUR, 0, 1, 0, "", List.of("trade"), List.of()), ErrorCode.BAD_REPLAY, window);
        assertRefused(replay(0, D2, D2, 2 * HOUR, HOUR, 0, 1, 0, "", List.of("trade"), List.of()), ErrorCode.BAD_REPLAY, window);
        // the largest start, and an end past 24 h: valid; a window only filters each date's own partition
        assertThat(replayToEnd(replay(0, D2, D2, 48 * HOUR - 1, NO_END, 0, 1, 0, "", List.of("trade"), List.of())).rows).isZero();
        assertThat(replayToEnd(replay(0, D2, D2, 0, 30 * HOUR, 0, 1, 0, "", List.of("trade"), List.of())).rows).isEqualTo(3_000);
        assertThat(replayToEnd(replay(0, D2, D2, 24 * HOUR, 30 * HOUR, 0, 1, 0, "", List.of("trade"), List.of())).rows)
            .as("rows of D2's partition after the next midnight: none; D3's rows are not pulled in").isZero();
        assertRefused(replay(0, D2, D2, 0, NO_END - 1, 0, 1, 0, "", List.of("trade"), List.of()), ErrorCode.BAD_REPLAY, "");

        assertRefused(replay(0, D2, D2, 0, NO_END, 0, 1, 0, "", List.of(), List.of()), ErrorCode.BAD_REPLAY,
            "a replay names 1..64 tables [tables=0]");
        final List<String> many = new ArrayList<>();
        for (int i = 0; i < 65; i++) {
            many.add("t" + i);
        }
        assertRefused(replay(0, D2, D2, 0, NO_END, 0, 1, 0, "", many, List.of()), ErrorCode.BAD_REPLAY,
            "a replay names 1..64 tables [tables=65]");
        assertRefused(replay(0, D2, D2, 0, NO_END, 0, 1, 0, "", List.of("trade", "quote", "trade"), List.of()), ErrorCode.BAD_REPLAY,
            "a table is named twice");
        assertRefused(replay(0, D2, D2, 0, NO_END, 0, 1, 0, "", List.of("trade", "nope"), List.of()), ErrorCode.UNKNOWN_TABLE,
            "unknown table [table=nope]");
        assertRefused(replay(0, D2, D2, 0, NO_END, 0, 1, 0, "", List.of("trade"), List.of(), new byte[] {1}), ErrorCode.MALFORMED_FRAME,
            "malformed replay request: bytes left after the request");
    }

    // ---------------------------------------------------------------- HELLO, flags, one replay per connection

    @Test
    void shouldServeAReplayWithoutHelloOrAfterAHelloOfAnyRoleAndIgnoreHeaderFlags() throws Exception {
        tradeAndQuoteDays();
        start(AccessSettings.DEFAULT);
        final byte[] request = replay(0xffff, D2, D2, 0, NO_END, 0, 1, 0, "", List.of("trade"), List.of());
        try (Wire w = new Wire(server.port())) {
            w.send(request);
            assertThat(w.readToEnd().type).isEqualTo(REPLAY_DONE);
        }
        assertThat(server.replays().get(0).consumer()).as("no HELLO: the consumer is named by its address").startsWith("/127.0.0.1:");
        try (Wire w = new Wire(server.port())) {
            w.send(hello(0xffff, 1, 1, "a-feed", 0, ""));
            w.send(request);
            final Frame end = w.readToEnd();
            assertThat(end.type).as("role 1 is served like role 2").isEqualTo(REPLAY_DONE);
            assertThat(Done.of(end).rows).isEqualTo(3_000);
        }
        assertThat(server.replays().get(0).consumer()).isEqualTo("a-feed");
        try (Wire w = new Wire(server.port())) {
            w.send(hello(0, 7, 2, "any-role", 0, ""));
            w.send(heartbeat());
            w.send(request);
            assertThat(w.readToEnd().type).isEqualTo(REPLAY_DONE);
        }
        try (Wire w = new Wire(server.port())) {
            w.send(hello(0, 2, 3, "future", 0, ""));
            final Frame error = w.read();
            assertThat(Err.of(error).code).isEqualTo(ErrorCode.UNSUPPORTED_VERSION.code());
            assertThat(w.read()).isNull();
        }
        assertThat(server.errors(ErrorCode.UNSUPPORTED_VERSION)).isEqualTo(1);
        try (Wire w = new Wire(server.port())) {
            final ByteBuffer subscribe = frame(2, 0, 16);
            subscribe.putLong(-1).putShort((short) 0).putInt(0);
            w.send(end(subscribe));
            final Err e = Err.of(w.read());
            assertThat(e.code).isEqualTo(ErrorCode.UNEXPECTED_MESSAGE.code());
            assertThat(e.message).isEqualTo("the replay port takes hello and replay only [type=subscribe]");
            assertThat(w.read()).isNull();
        }
    }

    @Test
    void shouldRefuseASecondReplayOnOneConnectionWithAnErrorAndCloseWithoutReplayDone() throws Exception {
        tradeAndQuoteDays();
        start(AccessSettings.DEFAULT);
        try (Wire w = new Wire(server.port())) {
            w.send(hello(0, 2, 1, "twice", 0, ""));
            // recorded pace, speed 1: the day takes hours, so the first replay is still running
            w.send(replay(0, D2, D2, 0, NO_END, 1, 1.0, 0, "", List.of("trade"), List.of()));
            assertThat(w.read().type).isEqualTo(SUBSCRIBED);
            w.send(replay(0, D4, D4, 0, NO_END, 0, 1.0, 0, "", List.of("trade"), List.of()));
            final List<Integer> types = new ArrayList<>();
            Frame f;
            Frame error = null;
            while ((f = w.read()) != null) {
                types.add(f.type);
                if (f.type == ERROR) {
                    error = f;
                }
            }
            assertThat(types).doesNotContain(REPLAY_DONE, SUBSCRIBED);
            assertThat(types.get(types.size() - 1)).as("ERROR is the last frame; then the connection closes").isEqualTo(ERROR);
            final Err e = Err.of(error);
            assertThat(e.code).isEqualTo(ErrorCode.UNEXPECTED_MESSAGE.code());
            assertThat(e.message).startsWith("one replay per connection [replay=");
        }
        TestSupport.await("first replay ended", Duration.ofSeconds(10), () -> server.activeCount() == 0);
        assertThat(server.replays().get(0).state()).isEqualTo("disconnected");
    }

    // ---------------------------------------------------------------- half-sent frame

    @Test
    void shouldKeepAConnectionWithAHalfSentFrameUntilThePeerClosesIt() throws Exception {
        tradeAndQuoteDays();
        start(AccessSettings.DEFAULT);
        final byte[] request = replay(0, D2, D2, 0, NO_END, 0, 1, 0, "", List.of("trade"), List.of());
        try (Wire w = new Wire(server.port())) {
            w.out.write(request, 0, request.length - 3);
            w.out.flush();
            w.socket.setSoTimeout(2_000);
            try {
                final int b = w.in.read();
                throw new AssertionError("the HDB answered or closed a half-sent frame [read=" + b + "]");
            } catch (final SocketTimeoutException expected) {
                // no read timeout on the replay port: it waits for the rest
            }
            w.out.write(request, request.length - 3, 3);
            w.out.flush();
            w.socket.setSoTimeout(10_000);
            assertThat(w.readToEnd().type).as("the rest arrived: served").isEqualTo(REPLAY_DONE);
        }
        try (Wire w = new Wire(server.port())) {
            w.out.write(request, 0, 20);
            w.out.flush();
            Thread.sleep(200);
        }
        TestSupport.await("truncated frame counted", Duration.ofSeconds(10), () -> server.errors(ErrorCode.TRUNCATED_FRAME) == 1);
    }

    // ---------------------------------------------------------------- token

    @Test
    void shouldCheckTheTokenOfTheLastHelloWhenTheReplayArrives() throws Exception {
        tradeAndQuoteDays();
        start(new AccessSettings("s3cret-token", AccessSettings.Guard.ALWAYS, true));
        final byte[] request = replay(0, D2, D2, 0, NO_END, 0, 1, 0, "", List.of("trade"), List.of());
        try (Wire w = new Wire(server.port())) {
            w.send(hello(0, 2, 2, "wrong", 0, "s3cret-tokem"));
            w.socket.setSoTimeout(500);
            try {
                w.in.read();
                throw new AssertionError("a HELLO with a wrong token was answered before any REPLAY");
            } catch (final SocketTimeoutException expected) {
                // the HELLO itself is not answered: the check is made when the REPLAY comes
            }
            w.socket.setSoTimeout(10_000);
            w.send(request);
            final Err e = Err.of(w.read());
            assertThat(e.code).isEqualTo(ErrorCode.ACCESS_DENIED.code());
            assertThat(e.message).startsWith("wrong API token [access=read").doesNotContain("s3cret");
            assertThat(w.read()).isNull();
        }
        try (Wire w = new Wire(server.port())) {
            w.send(request);
            final Err e = Err.of(w.read());
            assertThat(e.code).isEqualTo(ErrorCode.ACCESS_DENIED.code());
            assertThat(e.message).startsWith("the API token is required [access=read")
                .endsWith("send it in HELLO (protocol 2) before REPLAY");
        }
        try (Wire w = new Wire(server.port())) {
            w.send(hello(0, 2, 1, "protocol-1", 0, ""));
            w.send(request);
            assertThat(Err.of(w.read()).code).as("a protocol 1 HELLO carries no token").isEqualTo(ErrorCode.ACCESS_DENIED.code());
        }
        try (Wire w = new Wire(server.port())) {
            w.send(hello(0, 2, 2, "right", 0, "s3cret-token"));
            w.send(request);
            assertThat(Done.of(w.readToEnd()).rows).isEqualTo(3_000);
        }
        assertThat(server.errors(ErrorCode.ACCESS_DENIED)).isEqualTo(3);
    }

    // ---------------------------------------------------------------- byte, table-name padding

    @Test
    void shouldSendByteAsSignedAndATableNameOfEightBytesWithoutPadding() throws Exception {
        final TableSchema bars = TableSchema.of("pricebar", new ColumnDef("b", ColumnType.BYTE));
        final long t0 = D2.atTime(10, 0).atZone(java.time.ZoneOffset.UTC).toInstant().toEpochMilli() * 1_000_000L;
        final MemorySegment.Builder b = MemorySegment.builder(bars, (int) D2.toEpochDay());
        final long[] values = {-1, 127, -128, 0};
        for (int i = 0; i < values.length; i++) {
            b.value(t0 + i).symbol("S").value(values[i]).endRow();
        }
        new PartitionWriter(root, EncodingPolicy.PLAIN).write(D2, List.of(b.build()));
        start(AccessSettings.DEFAULT);
        try (Wire w = new Wire(server.port())) {
            w.send(replay(0, D2, D2, 0, NO_END, 0, 1, 0, "", List.of("pricebar"), List.of()));
            final ByteBuffer s = w.read().body;
            s.position(22);
            assertThat(str8(s)).isEqualTo("pricebar");
            assertThat(str16(s)).isEqualTo("time:timestamp,sym:symbol,b:byte");
            final Frame f = w.read();
            assertThat(f.type).isEqualTo(UPDATE);
            final ByteBuffer u = f.whole;
            assertThat(u.getShort(42)).isEqualTo((short) 8);
            final byte[] name = new byte[8];
            u.get(48, name);
            assertThat(new String(name, StandardCharsets.US_ASCII)).isEqualTo("pricebar");
            assertThat(u.get(56)).as("the time column's block starts right after the 8 name bytes: no padding added").isEqualTo((byte) 1);
            // time block: 8 header + 32 data; sym block: 8 header + 16 data; byte block at 56 + 40 + 24
            final int at = 56 + 8 + 32 + 8 + 16;
            assertThat(u.get(at)).as("byte type code").isEqualTo((byte) 8);
            assertThat(u.getInt(at + 4)).isEqualTo(4);
            final byte[] raw = new byte[4];
            u.get(at + 8, raw);
            assertThat(raw).as("two's complement").containsExactly(0xff, 0x7f, 0x80, 0x00);
            assertThat(u.get(at + 12)).as("padding to 8 is zero").isZero();
            assertThat(w.readToEnd().type).isEqualTo(REPLAY_DONE);
        }
        final ResultTable q = new QueryEngine().query("{\"table\":\"pricebar\",\"columns\":[\"b\"]}", new PartitionSource(hdb));
        final List<Long> read = new ArrayList<>();
        for (final List<Object> row : q.rows()) {
            read.add(((Number) row.get(0)).longValue());
        }
        assertThat(read).as("the HDB reads the same bytes as signed values").containsExactly(-1L, 127L, -128L, 0L);
    }

    @Test
    void shouldReadAWindowStartingAtZeroFromThePartitionsFirstRowEvenBeforeLocalMidnight() throws Exception {
        final TableSchema marks = TableSchema.of("marks", new ColumnDef("v", ColumnType.INT64));
        final MemorySegment.Builder b = MemorySegment.builder(marks, (int) D2.toEpochDay());
        // 01:00 UTC on D2 is 20:00 in New York on the day before; 15:00 UTC is 10:00 New York on D2
        for (final int hourUtc : new int[] {1, 15}) {
            b.value(D2.atTime(hourUtc, 0).atZone(java.time.ZoneOffset.UTC).toInstant().toEpochMilli() * 1_000_000L).symbol("S")
                .value(hourUtc).endRow();
        }
        new PartitionWriter(root, EncodingPolicy.PLAIN).write(D2, List.of(b.build()));
        start(AccessSettings.DEFAULT);
        final String ny = "America/New_York";
        assertThat(replayToEnd(replay(0, D2, D2, 0, NO_END, 0, 1, 0, ny, List.of("marks"), List.of())).rows).isEqualTo(2);
        assertThat(replayToEnd(replay(0, D2, D2, 0, 24 * HOUR, 0, 1, 0, ny, List.of("marks"), List.of())).rows)
            .as("start 0: from the partition's first row, the one before New York's midnight included").isEqualTo(2);
        assertThat(replayToEnd(replay(0, D2, D2, 1, 24 * HOUR, 0, 1, 0, ny, List.of("marks"), List.of())).rows)
            .as("start 1 ns: from New York's midnight on").isEqualTo(1);
    }

    // ---------------------------------------------------------------- helpers

    private Done replayToEnd(final byte[] request) throws IOException {
        try (Wire w = new Wire(server.port())) {
            w.send(request);
            final Frame end = w.readToEnd();
            assertThat(end.type).as("REPLAY_DONE, got %s", end.type == ERROR ? Err.of(end).message : end.type).isEqualTo(REPLAY_DONE);
            return Done.of(end);
        }
    }

    private void assertRefused(final byte[] request, final ErrorCode code, final String message) throws IOException {
        try (Wire w = new Wire(server.port())) {
            w.send(request);
            final Frame f = w.read();
            assertThat(f.type).isEqualTo(ERROR);
            final Err e = Err.of(f);
            assertThat(ErrorCode.fromCode(e.code)).as(e.message).isEqualTo(code);
            assertThat(e.message).contains(message);
            assertThat(w.read()).as("closed after the ERROR").isNull();
        }
    }

    private static int pad8(final int n) {
        return (n + 7) & ~7;
    }

    private static ByteBuffer frame(final int type, final int flags, final int bodyCapacity) {
        final ByteBuffer b = ByteBuffer.allocate(8 + bodyCapacity).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0).put((byte) 1).put((byte) type).putShort((short) flags);
        return b;
    }

    private static byte[] end(final ByteBuffer b) {
        b.putInt(0, b.position());
        final byte[] out = new byte[b.position()];
        b.flip();
        b.get(out);
        return out;
    }

    private static void putStr8(final ByteBuffer b, final String s) {
        final byte[] bytes = s.getBytes(StandardCharsets.US_ASCII);
        b.put((byte) bytes.length).put(bytes);
    }

    static byte[] hello(final int flags, final int role, final int protocol, final String name, final int helloFlags,
                        final String token) {
        final ByteBuffer b = frame(HELLO, flags, 600);
        b.put((byte) role).putShort((short) protocol);
        putStr8(b, name);
        if (protocol >= 2) {
            b.put((byte) helloFlags);
            putStr8(b, token);
        }
        return end(b);
    }

    static byte[] heartbeat() {
        final ByteBuffer b = frame(HEARTBEAT, 0, 8);
        b.putLong(System.currentTimeMillis() * 1_000_000L);
        return end(b);
    }

    static byte[] replay(final int flags, final LocalDate from, final LocalDate to, final long start, final long endNanos, final int pace,
                         final double speed, final int rowsPerUpdate, final String zone, final List<String> tables, final List<String> syms,
                         final byte[]... extra) {
        final ByteBuffer b = frame(REPLAY, flags, 64 + 256 * (tables.size() + syms.size()));
        b.putInt((int) from.toEpochDay()).putInt((int) to.toEpochDay()).putLong(start).putLong(endNanos).put((byte) pace)
            .putDouble(speed).putInt(rowsPerUpdate);
        putStr8(b, zone);
        b.putShort((short) tables.size());
        tables.forEach(t -> putStr8(b, t));
        b.putInt(syms.size());
        syms.forEach(s -> putStr8(b, s));
        for (final byte[] e : extra) {
            b.put(e);
        }
        return end(b);
    }

    static String str8(final ByteBuffer b) {
        final byte[] bytes = new byte[Byte.toUnsignedInt(b.get())];
        b.get(bytes);
        return new String(bytes, StandardCharsets.US_ASCII);
    }

    static String str16(final ByteBuffer b) {
        final byte[] bytes = new byte[Short.toUnsignedInt(b.getShort())];
        b.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** One frame as read: its type, header flags, whole bytes (from offset 0) and body (from offset 8). */
    record Frame(int type, int flags, int length, ByteBuffer whole, ByteBuffer body) {
    }

    record Done(int status, long rows, long frames, long bytes, Map<String, Long> rowsByTable, String message) {
        static Done of(final Frame f) {
            assertThat(f.type).isEqualTo(REPLAY_DONE);
            final ByteBuffer b = f.body.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            final int status = Byte.toUnsignedInt(b.get());
            final long rows = b.getLong();
            final long frames = b.getLong();
            final long bytes = b.getLong();
            final int n = Short.toUnsignedInt(b.getShort());
            final Map<String, Long> byTable = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                byTable.put(str8(b), b.getLong());
            }
            final String message = str16(b);
            assertThat(b.hasRemaining()).isFalse();
            return new Done(status, rows, frames, bytes, Collections.unmodifiableMap(byTable), message);
        }
    }

    record Err(int code, String message) {
        static Err of(final Frame f) {
            assertThat(f).isNotNull();
            assertThat(f.type).isEqualTo(ERROR);
            final ByteBuffer b = f.body.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            return new Err(b.getInt(), str16(b));
        }
    }

    /** A consumer's socket on loopback, reading whole frames by their length prefix. */
    static final class Wire implements AutoCloseable {
        final Socket socket;
        final DataInputStream in;
        final OutputStream out;

        Wire(final int port) throws IOException {
            socket = new Socket(InetAddress.getLoopbackAddress(), port);
            socket.setSoTimeout(10_000);
            in = new DataInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        }

        void send(final byte[] frame) throws IOException {
            out.write(frame);
            out.flush();
        }

        /** The next frame, or null at the end of the stream. */
        Frame read() throws IOException {
            final byte[] len = new byte[4];
            try {
                in.readFully(len);
            } catch (final EOFException e) {
                return null;
            }
            final int length = ByteBuffer.wrap(len).order(ByteOrder.LITTLE_ENDIAN).getInt();
            assertThat(length).isBetween(8, 16 << 20);
            final byte[] all = new byte[length];
            System.arraycopy(len, 0, all, 0, 4);
            in.readFully(all, 4, length - 4);
            final ByteBuffer whole = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
            assertThat(all[4]).as("version").isEqualTo((byte) 1);
            final ByteBuffer body = ByteBuffer.wrap(all, 8, length - 8).slice().order(ByteOrder.LITTLE_ENDIAN);
            return new Frame(Byte.toUnsignedInt(all[5]), Short.toUnsignedInt(whole.getShort(6)), length, whole, body);
        }

        /** Reads up to the last frame before the end of the stream (REPLAY_DONE or ERROR). */
        Frame readToEnd() throws IOException {
            Frame last = null;
            Frame f;
            while ((f = read()) != null) {
                last = f;
            }
            return last;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
