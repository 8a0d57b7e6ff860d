package io.jtick.core.rdb;

import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.model.QueryException;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.TableSegment;
import io.jtick.core.testing.Cells;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.wire.ControlFrames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(LeakCheck.class)
class RealtimeDatabaseTest {
    private static final TableSchema TRADE = TableSchema.trade(0);
    private static final TableSchema QUOTE = TableSchema.quote(0);
    private static final long T0 = 1_763_700_000_000_000_000L; // 2025-11-21T04:40:00Z

    private final TickMetrics metrics = new TickMetrics();
    private final List<List<TableSegment>> saved = new ArrayList<>();
    private boolean failEndOfDay;
    private RealtimeDatabase rdb;
    private ByteBuf buf;

    @BeforeEach
    void setUp() {
        rdb = new RealtimeDatabase(metrics, (day, tables) -> {
            if (failEndOfDay) {
                throw new IOException("disk full");
            }
            saved.add(tables);
        }, List.of("trade", "quote"), 4, Set.of());
        buf = PooledByteBufAllocator.DEFAULT.directBuffer();
    }

    @AfterEach
    void tearDown() {
        assertThat(buf.release()).isTrue();
    }

    private void subscribe() {
        rdb.onSubscribed(new ControlFrames.Subscribed(0, 0, 20_000, Map.of("trade", TRADE, "quote", QUOTE)));
    }

    private void trade(final long seq, final long tpTime, final long[] time, final String... syms) {
        buf.clear();
        final double[] price = new double[time.length];
        final long[] size = new long[time.length];
        final byte[] cond = new byte[time.length];
        for (int r = 0; r < time.length; r++) {
            price[r] = 100 + r + seq / 10.0;
            size[r] = seq * 100 + r;
            cond[r] = 'B';
        }
        final int off = RdbFrames.write(buf, TRADE, seq, tpTime, time, syms, null, price, size, cond);
        rdb.onUpdate(TRADE, RdbFrames.decode(buf, off), tpTime + 1_000);
    }

    @Test
    void shouldCreateTablesOnSubscribeAndKeepThemOnResubscribe() {
        subscribe();
        assertThat(rdb.tables()).extracting(t -> t.schema().name()).containsExactlyInAnyOrder("trade", "quote");
        trade(1, T0, new long[] {T0, T0 + 1}, "A", "B");
        subscribe(); // reconnect: same schemas, data stays
        assertThat(rdb.rowCount("trade")).isEqualTo(2);
        assertThat(rdb.lastSequence()).isEqualTo(1);
    }

    @Test
    void shouldSkipUpdatesAtOrBelowLastSequence() {
        subscribe();
        trade(5, T0, new long[] {T0}, "A");
        trade(5, T0, new long[] {T0}, "A");
        trade(3, T0, new long[] {T0}, "A");
        trade(6, T0, new long[] {T0, T0}, "A", "B");
        assertThat(rdb.rowCount("trade")).isEqualTo(3);
        assertThat(rdb.lastSequence()).isEqualTo(6);
        final RealtimeDatabase.Status s = rdb.status();
        assertThat(s.duplicates()).isEqualTo(2);
        assertThat(s.updates()).isEqualTo(2);
        assertThat(s.rows()).isEqualTo(3);
        assertThat(metrics.counters().get("tick.rdb.duplicates").get()).isEqualTo(2);
        assertThat(metrics.gauges().get("tick.rdb.last.sequence").getAsLong()).isEqualTo(6);
        assertThat(metrics.gauges().get("tick.rdb.table.rows|table=trade").getAsLong()).isEqualTo(3);
        assertThat(metrics.gauges().get("tick.rdb.table.rows|table=quote").getAsLong()).isZero();
    }

    @Test
    void shouldRecordReceiveLatencyOnlyWhenLive() {
        subscribe();
        trade(1, T0, new long[] {T0}, "A");
        final var recv = metrics.latency("tick.rdb.recv", "");
        final var upd = metrics.latency("tick.rdb.upd", "");
        assertThat(recv.count()).isZero();
        assertThat(upd.count()).isEqualTo(1);
        assertThat(rdb.caughtUp()).isFalse();
        rdb.onCatchUpDone(1);
        assertThat(rdb.caughtUp()).isTrue();
        trade(2, T0, new long[] {T0}, "A");
        assertThat(recv.count()).isEqualTo(1);
        assertThat(recv.snapshot().getMaxValue()).isBetween(999L, 1001L);
        rdb.onDisconnected();
        assertThat(rdb.caughtUp()).isFalse();
    }

    @Test
    void shouldAnswerEngineQueriesAsOneSegmentOfTheTradingDay() {
        subscribe();
        trade(1, T0, new long[] {T0, T0 + 1, T0 + 2}, "AAPL", "IBM", "AAPL");
        trade(2, T0, new long[] {T0 + 3}, "AAPL");
        final QueryEngine engine = new QueryEngine();
        final ResultTable all = engine.query("{\"table\":\"trade\"}", rdb);
        assertThat(all.columns()).containsExactly("time", "sym", "price", "size", "cond");
        assertThat(all.rows()).hasSize(4);
        assertThat(all.rows().get(0)).containsExactly(T0, "AAPL", 100.1, 100L, (long) 'B');
        assertThat(all.stats().rowsScanned()).isEqualTo(4);

        final ResultTable aapl = engine.query("{\"table\":\"trade\",\"where\":{\"sym\":\"AAPL\",\"time\":{\"within\":["
            + (T0 + 1) + "," + (T0 + 3) + "]}},\"select\":[\"size\",\"time\"]}", rdb);
        assertThat(aapl.columns()).containsExactly("size", "time");
        assertThat(aapl.rows()).containsExactly(List.of(102L, T0 + 2), List.of(200L, T0 + 3));
        assertThat(aapl.stats().rowsScanned()).as("AAPL's postings narrowed by binary search on time").isEqualTo(2);

        assertThat(engine.query("{\"table\":\"trade\",\"select\":[\"sym\"],\"limit\":2}", rdb).rows())
            .containsExactly(List.of("AAPL"), List.of("IBM"));
        assertThat(engine.query("{\"table\":\"quote\"}", rdb).rows()).isEmpty();
        assertThat(rdb.currentDay()).isEqualTo(20_000);
        assertThat(engine.query("{\"table\":\"trade\",\"dates\":\"2024-10-04\",\"select\":{\"n\":{\"count\":\"*\"}}}", rdb)
            .rows()).as("2024-10-04 is day 20000").containsExactly(List.of(4L));
        assertThat(engine.query("{\"table\":\"trade\",\"dates\":\"2024-10-03\"}", rdb).rows()).isEmpty();
    }

    @Test
    void shouldAnswerTheSameFromATableKeptWithoutTheSymIndexAndHoldNoIndexForIt() {
        final RealtimeDatabase indexed = rdb;
        final RealtimeDatabase plain = new RealtimeDatabase(metrics, EndOfDayHandler.NONE, List.of(), 4, Set.of("trade"));
        final String[] syms = {"AAPL", "IBM", "MSFT"};
        for (final RealtimeDatabase db : List.of(indexed, plain)) {
            rdb = db;
            subscribe();
            for (int seq = 1; seq <= 200; seq++) {
                final long[] time = new long[50];
                final String[] sym = new String[50];
                for (int r = 0; r < 50; r++) {
                    time[r] = T0 + seq * 50L + r;
                    sym[r] = syms[(seq + r * r) % syms.length];
                }
                trade(seq, T0, time, sym);
            }
        }
        rdb = indexed;
        final long unindexedBytes = indexed.memoryBytes("trade");
        indexed.onCatchUpDone(200);
        assertThat(indexed.memoryBytes("trade")).as("the catch-up's rows indexed when it is done")
            .isGreaterThanOrEqualTo(unindexedBytes + 4L * 200 * 50);
        final QueryEngine engine = new QueryEngine();
        for (final String q : List.of("{\"table\":\"trade\",\"where\":{\"sym\":\"IBM\"}}",
            "{\"table\":\"trade\",\"where\":{\"sym\":[\"MSFT\",\"AAPL\"],\"time\":{\"within\":[" + (T0 + 700) + "," + (T0 + 5000)
                + "]}},\"select\":{\"n\":{\"count\":\"*\"},\"v\":{\"sum\":\"size\"}},\"by\":\"sym\"}")) {
            final ResultTable want = engine.query(q, indexed);
            assertThat(want.rows()).isNotEmpty();
            assertThat(engine.query(q, plain).rows()).as(q).isEqualTo(want.rows());
        }
        assertThat(indexed.memoryBytes("trade")).as("4 bytes of index per row once a query built it")
            .isGreaterThanOrEqualTo(plain.memoryBytes("trade") + 4L * 200 * 50);
    }

    @Test
    void shouldIndexEachFilledChunkOnTheAgentThreadWithoutAQuery() {
        final int updates = 14;
        final int perUpdate = 5_000;
        final String[] syms = {"AAPL", "IBM", "MSFT"};
        final RealtimeDatabase plain = new RealtimeDatabase(metrics, EndOfDayHandler.NONE, List.of(), 4, Set.of("trade"));
        try (SymIndexAgent agent = new SymIndexAgent("rdb-test-sym-index")) {
            final RealtimeDatabase indexed = new RealtimeDatabase(metrics, EndOfDayHandler.NONE, List.of(), 4, Set.of(), Long.MAX_VALUE,
                agent);
            long ibm = 0;
            for (final RealtimeDatabase db : List.of(indexed, plain)) {
                rdb = db;
                subscribe();
                for (int seq = 1; seq <= updates; seq++) {
                    final long[] time = new long[perUpdate];
                    final String[] sym = new String[perUpdate];
                    for (int r = 0; r < perUpdate; r++) {
                        time[r] = T0 + (long) seq * perUpdate + r;
                        sym[r] = syms[(seq + r) % syms.length];
                        ibm += db == plain && "IBM".equals(sym[r]) ? 1 : 0;
                    }
                    trade(seq, T0, time, sym);
                }
            }
            // 70,000 rows: two whole chunks, which the agent indexes (4 bytes a row) while no query has asked
            final long index = 4L * ((updates * perUpdate) & ~ColumnStore.MASK);
            final long deadline = System.nanoTime() + 30_000_000_000L;
            while (indexed.memoryBytes("trade") < plain.memoryBytes("trade") + index && System.nanoTime() < deadline) {
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
            assertThat(indexed.memoryBytes("trade")).isGreaterThanOrEqualTo(plain.memoryBytes("trade") + index);
            final String q = "{\"table\":\"trade\",\"where\":{\"sym\":\"IBM\"},\"select\":{\"n\":{\"count\":\"*\"}}}";
            final QueryEngine engine = new QueryEngine();
            assertThat(engine.query(q, indexed).rows()).containsExactly(List.of(ibm));
            assertThat(engine.query(q, plain).rows()).containsExactly(List.of(ibm));
            assertThat(agent.failures()).isZero();
        }
    }

    @Test
    void shouldRejectUnknownTableAndColumn() {
        subscribe();
        final QueryEngine engine = new QueryEngine();
        assertThatThrownBy(() -> engine.query("{\"table\":\"nope\"}", rdb))
            .isInstanceOf(QueryException.class).hasMessage("unknown table [table=nope]");
        assertThatThrownBy(() -> engine.query("{\"table\":\"trade\",\"select\":[\"time\",\"bogus\"]}", rdb))
            .isInstanceOf(QueryException.class).hasMessage("unknown column [table=trade, column=bogus]");
    }

    @Test
    void shouldClearTablesAfterSuccessfulEndOfDay() {
        subscribe();
        trade(1, T0, new long[] {T0, T0 + 1}, "A", "B");
        rdb.onEndOfDay(20_413, 7);
        assertThat(saved).hasSize(1);
        final TableSegment savedTrade = saved.get(0).stream().filter(t -> t.schema().name().equals("trade")).findFirst().orElseThrow();
        assertThat(savedTrade.rowCount()).isEqualTo(2);
        assertThat(Cells.sym(savedTrade, 1)).isEqualTo("B");
        assertThat(savedTrade.epochDay()).as("dated the day that ended").isEqualTo(20_413);
        assertThat(rdb.rowCount("trade")).isZero();
        assertThat(rdb.tables()).extracting(t -> t.schema().name()).containsExactlyInAnyOrder("trade", "quote");
        assertThat(rdb.lastSequence()).isEqualTo(7);
        final RealtimeDatabase.Status s = rdb.status();
        assertThat(s.endOfDays()).isEqualTo(1);
        assertThat(s.lastEndOfDay()).isEqualTo(20_413);
        assertThat(s.endOfDayFailures()).isZero();
        trade(8, T0, new long[] {T0 + 5}, "B");
        assertThat(rdb.currentDay()).as("the day after the one that ended").isEqualTo(20_414);
        assertThat(new QueryEngine().query("{\"table\":\"trade\",\"where\":{\"sym\":\"B\"},\"select\":[\"sym\"]}", rdb).rows())
            .containsExactly(List.of("B"));
    }

    @Test
    void shouldKeepDataWhenEndOfDayFails() {
        subscribe();
        trade(1, T0, new long[] {T0, T0 + 1}, "A", "B");
        failEndOfDay = true;
        rdb.onEndOfDay(20_413, 2);
        assertThat(rdb.rowCount("trade")).isEqualTo(2);
        RealtimeDatabase.Status s = rdb.status();
        assertThat(s.endOfDayFailures()).isEqualTo(1);
        assertThat(s.lastEodError()).contains("disk full").contains("[day=20413");
        assertThat(metrics.counters().get("tick.rdb.eod.failures").get()).isEqualTo(1);
        assertThat(rdb.lastSequence()).isEqualTo(1);

        failEndOfDay = false;
        trade(3, T0, new long[] {T0 + 2}, "C");
        rdb.onEndOfDay(20_414, 4);
        assertThat(saved).hasSize(1);
        assertThat(saved.get(0).stream().filter(t -> t.schema().name().equals("trade")).findFirst().orElseThrow().rowCount())
            .isEqualTo(3);
        assertThat(rdb.rowCount("trade")).isZero();
        s = rdb.status();
        assertThat(s.endOfDays()).isEqualTo(1);
        assertThat(s.endOfDayFailures()).isEqualTo(1);
    }

    @Test
    void shouldCountRejectedUpdatesAndCarryOn() {
        subscribe();
        buf.clear();
        final int off = RdbFrames.write(buf, TRADE, 1, T0, new long[] {T0}, new String[] {"A"}, null,
            new double[] {1}, new long[] {1}, new byte[] {'N'});
        final var dec = RdbFrames.decode(buf, off);
        buf.setIntLE(dec.dataOffset(TableSchema.SYM), 42);
        rdb.onUpdate(TRADE, dec, T0);
        assertThat(rdb.status().rejected()).isEqualTo(1);
        assertThat(rdb.status().lastError()).contains("sym code outside");
        trade(2, T0, new long[] {T0}, "A");
        assertThat(rdb.rowCount("trade")).isEqualTo(1);
    }

    @Test
    void shouldCreateTableForUpdateOfUnannouncedTable() {
        final TableSchema fx = TableSchema.of("fx");
        buf.clear();
        final int off = RdbFrames.write(buf, fx, 1, T0, new long[] {T0}, new String[] {"EURUSD"}, null);
        rdb.onUpdate(fx, RdbFrames.decode(buf, off), T0);
        assertThat(rdb.rowCount("fx")).isEqualTo(1);
        assertThat(Cells.sym(rdb.table("fx"), 0)).isEqualTo("EURUSD");
    }
}
