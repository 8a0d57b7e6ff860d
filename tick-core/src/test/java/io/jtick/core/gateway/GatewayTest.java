package io.jtick.core.gateway;

import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.TestTables;
import io.jtick.core.query.TestTables.Quote;
import io.jtick.core.query.TestTables.Trade;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.rdb.RealtimeDatabase;
import io.jtick.core.table.MemorySource;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

import static io.jtick.core.query.TestTables.DAY1;
import static io.jtick.core.query.TestTables.DAY2;
import static io.jtick.core.query.TestTables.NANOS_PER_DAY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Gateway merge across the day boundary: yesterday's trades (23:55 to 23:59) sit in a sym-parted
 * HDB partition, today's (from 00:00) in a real RDB; one engine answers over both.
 */
class GatewayTest {
    private static final List<Trade> YESTERDAY = TestTables.trades(101, 3000, DAY1, 86_100_000_000_000L);
    private static final List<Trade> TODAY = TestTables.trades(102, 3000, DAY2, 0);
    private static final List<Quote> Q_TODAY = TestTables.quotes(103, 2000, DAY2, 0);
    /** Stale: a partition of today written at end of day while the RDB still holds the day. Must be ignored. */
    private static final List<Trade> STALE = TestTables.trades(104, 50, DAY2, 0);

    private final QueryEngine engine = new QueryEngine();
    private final RealtimeDatabase rdb = TestTables.rdb(DAY2, TODAY, Q_TODAY);
    private final MemorySource hdb = new MemorySource()
        .add(TestTables.tradeSegment(YESTERDAY, DAY1, true))
        .add(TestTables.tradeSegment(STALE, DAY2, true))
        .table(TestTables.QUOTE);
    private final Gateway gateway = new Gateway(hdb, rdb);

    /** Both days in the order the engine visits rows: the partition (by sym, then time), then the RDB (arrival). */
    private static List<Trade> both() {
        final List<Trade> all = new ArrayList<>(TestTables.ordered(YESTERDAY, TestTables.Layout.PARTED));
        all.addAll(TODAY);
        return all;
    }

    private static <K> Map<K, List<Trade>> groupBy(final List<Trade> rows, final Function<Trade, K> key) {
        return rows.stream().collect(Collectors.groupingBy(key, TreeMap::new, Collectors.toList()));
    }

    private static double median(final List<Trade> g) {
        final double[] p = g.stream().mapToDouble(Trade::price).sorted().toArray();
        return p.length % 2 == 1 ? p[p.length / 2] : (p[p.length / 2 - 1] + p[p.length / 2]) / 2;
    }

    @Test
    void shouldMergeEveryAggregateAcrossTheDayBoundary() {
        assertThat(YESTERDAY.get(YESTERDAY.size() - 1).time()).isLessThan(DAY2 * NANOS_PER_DAY);
        final ResultTable r = engine.query("{\"table\":\"trade\",\"dates\":{\"from\":\"2026-11-20\",\"to\":\"2026-11-21\"},"
            + "\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]},\"n\":{\"count\":\"*\"},\"med\":{\"median\":\"price\"},"
            + "\"open\":{\"first\":\"price\"},\"close\":{\"last\":\"price\"},\"t0\":{\"first\":\"time\"}},\"by\":[\"sym\"]}", gateway);
        final Map<String, List<Trade>> bySym = groupBy(both(), Trade::sym);
        assertThat(r.rowCount()).isEqualTo(bySym.size());
        int i = 0;
        for (final Map.Entry<String, List<Trade>> e : bySym.entrySet()) {
            final List<Trade> g = e.getValue();
            assertThat(r.get(i, "sym")).isEqualTo(e.getKey());
            assertThat((Double) r.get(i, "vwap")).isCloseTo(g.stream().mapToDouble(t -> t.size() * t.price()).sum()
                / g.stream().mapToLong(Trade::size).sum(), within(1e-9));
            assertThat(r.get(i, "n")).isEqualTo((long) g.size());
            assertThat(r.get(i, "med")).as("exact median over both days").isEqualTo(median(g));
            assertThat(r.get(i, "open")).as("first from yesterday's partition").isEqualTo(g.get(0).price());
            assertThat(r.get(i, "t0")).isEqualTo(g.get(0).time());
            assertThat(r.get(i, "close")).as("last from today's RDB").isEqualTo(g.get(g.size() - 1).price());
            i++;
        }
        assertThat(r.stats().segments()).isEqualTo(2);
        assertThat(r.stats().rowsScanned()).as("the stale partition of today is not read").isEqualTo(6000);
    }

    @Test
    void shouldMakeBarsThatSpanMidnight() {
        final ResultTable r = engine.query("{\"table\":\"trade\",\"dates\":[\"2026-11-20\",\"2026-11-21\"],\"where\":{\"sym\":\"A\"},"
            + "\"select\":{\"open\":{\"first\":\"price\"},\"high\":{\"max\":\"price\"},\"low\":{\"min\":\"price\"},"
            + "\"close\":{\"last\":\"price\"},\"volume\":{\"sum\":\"size\"},\"med\":{\"median\":\"price\"}},"
            + "\"by\":{\"bar\":{\"xbar\":[\"7m\",\"time\"]}}}", gateway);
        final long bar = 7 * 60_000_000_000L;
        final Map<Long, List<Trade>> bars = groupBy(both().stream().filter(t -> t.sym().equals("A")).toList(),
            t -> Math.floorDiv(t.time(), bar) * bar);
        final long midnight = DAY2 * NANOS_PER_DAY;
        assertThat(bars.keySet()).as("one 7-minute bar starts before midnight and ends after it")
            .anyMatch(b -> b < midnight && b + bar > midnight);
        final List<List<Object>> expected = new ArrayList<>();
        bars.forEach((b, g) -> expected.add(List.of(b, g.get(0).price(), g.stream().mapToDouble(Trade::price).max().orElseThrow(),
            g.stream().mapToDouble(Trade::price).min().orElseThrow(), g.get(g.size() - 1).price(),
            g.stream().mapToLong(Trade::size).sum(), median(g))));
        assertThat(r.rows()).isEqualTo(expected);
    }

    @Test
    void shouldTakeTodayFromTheRdbAndEarlierDaysFromTheHdb() {
        final String count = "\"select\":{\"n\":{\"count\":\"*\"}}}";
        assertThat(engine.query("{\"table\":\"trade\",\"dates\":\"2026-11-20\"," + count, gateway).rows())
            .containsExactly(List.of(3000L));
        assertThat(engine.query("{\"table\":\"trade\",\"dates\":\"2026-11-21\"," + count, gateway).rows())
            .as("today is the RDB's, not the stale partition's").containsExactly(List.of(3000L));
        assertThat(engine.query("{\"table\":\"trade\"," + count, gateway).rows()).containsExactly(List.of(6000L));
        assertThat(engine.query("{\"table\":\"trade\",\"dates\":\"2026-11-19\"," + count, gateway).rows())
            .containsExactly(List.of(0L));
    }

    @Test
    void shouldStreamRowsInDateOrderAndJoinEachDayWithItsOwnQuotes() {
        final ResultTable r = engine.query("{\"table\":\"trade\",\"dates\":{\"from\":\"2026-11-20\"},\"where\":{\"sym\":\"D\","
            + "\"time\":{\"within\":[\"2026-11-20T23:58:00Z\",\"2026-11-21T00:01:00Z\"]}},\"select\":[\"date\",\"time\",\"price\",\"bid\"],"
            + "\"asof\":{\"table\":\"quote\",\"select\":[\"bid\"]}}", gateway);
        final long lo = DAY1 * NANOS_PER_DAY + 86_280_000_000_000L;
        final long hi = DAY2 * NANOS_PER_DAY + 60_000_000_000L;
        final List<List<Object>> expected = new ArrayList<>();
        for (final Trade t : both()) {
            if (t.sym().equals("D") && t.time() >= lo && t.time() <= hi) {
                Quote q = null;
                if (t.time() >= DAY2 * NANOS_PER_DAY) {
                    for (final Quote x : Q_TODAY) {
                        if (x.sym().equals("D") && x.time() <= t.time() && (q == null || x.time() >= q.time())) {
                            q = x;
                        }
                    }
                }
                expected.add(Arrays.asList((long) (t.time() < DAY2 * NANOS_PER_DAY ? DAY1 : DAY2), t.time(), t.price(),
                    q == null ? null : q.bid()));
            }
        }
        assertThat(expected).extracting(x -> x.get(0)).contains((long) DAY1, (long) DAY2);
        assertThat(expected).as("today's trades find today's quotes").anyMatch(x -> x.get(3) != null);
        assertThat(r.rows()).isEqualTo(expected);
        assertThat(expected.stream().map(x -> (Long) x.get(1)).toList()).isSortedAccordingTo(Comparator.naturalOrder());
    }
}
