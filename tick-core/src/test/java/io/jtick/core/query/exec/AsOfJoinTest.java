package io.jtick.core.query.exec;

import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.TestTables;
import io.jtick.core.query.TestTables.Layout;
import io.jtick.core.query.TestTables.Quote;
import io.jtick.core.query.TestTables.Trade;
import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.plan.Plan;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.table.MemorySource;
import io.jtick.core.table.QuerySource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.jtick.core.query.TestTables.DAY2;
import static io.jtick.core.query.TestTables.NANOS_PER_DAY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** {@code aj[`sym`time; trade; quote]} against a reference, and its edge cases. */
class AsOfJoinTest {
    private static final long T = DAY2 * NANOS_PER_DAY + 36_000_000_000_000L;
    private final QueryEngine engine = new QueryEngine();

    /** The reference: the last quote of the trade's sym at or before its time (the last of equal times), or null. */
    private static Quote prevailing(final Trade t, final List<Quote> quotes, final long tolerance) {
        Quote best = null;
        for (final Quote q : quotes) {
            if (q.sym().equals(t.sym()) && q.time() <= t.time() && (best == null || q.time() >= best.time())) {
                best = q;
            }
        }
        return best == null || tolerance >= 0 && t.time() - best.time() > tolerance ? null : best;
    }

    private static List<Object> row(final Trade t, final Quote q) {
        return Arrays.asList(t.time(), t.sym(), t.price(), q == null ? null : q.bid(), q == null ? null : q.ask(),
            q == null ? null : q.time());
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldMatchTheReferenceOnRandomData(final Layout layout) {
        final List<Trade> trades = TestTables.trades(11, 2000, DAY2);
        final List<Quote> quotes = TestTables.quotes(12, 3000, DAY2);
        final ResultTable r = engine.query("{\"table\":\"trade\",\"select\":[\"time\",\"sym\",\"price\",\"bid\",\"ask\",\"qtime\"],"
            + "\"asof\":{\"table\":\"quote\",\"select\":{\"bid\":\"bid\",\"ask\":\"ask\",\"qtime\":\"time\"}}}",
            TestTables.source(layout, DAY2, trades, quotes));
        final List<List<Object>> expected = new ArrayList<>();
        for (final Trade t : TestTables.ordered(trades, layout)) {
            expected.add(row(t, prevailing(t, quotes, -1)));
        }
        assertThat(r.rows()).isEqualTo(expected);
        assertThat(r.types()).containsExactly(ValueType.TIMESTAMP, ValueType.SYMBOL, ValueType.FLOAT64, ValueType.FLOAT64,
            ValueType.FLOAT64, ValueType.TIMESTAMP);
        assertThat(expected.stream().filter(x -> x.get(3) == null).count()).as("E has no quotes, early trades none yet").isPositive();
    }

    /**
     * Without a residual condition the rows stream in one pass (the as-of match's columns serve the
     * output, a one-sym batch's sym column is its id): the same rows as the reference and as the
     * two-pass scan that a condition keeping every row takes, whole and cut by a limit; one sym's rows
     * span several of the RDB's index blocks (32,768 rows each).
     */
    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldStreamOneSymsRowsAndMatchesAsTheFilteredScanDoes(final Layout layout) {
        final List<Trade> trades = TestTables.trades(21, 80_000, DAY2);
        final List<Quote> quotes = TestTables.quotes(22, 50_000, DAY2);
        final QuerySource src = TestTables.source(layout, DAY2, trades, quotes);
        // the reference, in one walk: A's trades and quotes are both in time order
        final List<Quote> quotesOfA = quotes.stream().filter(q -> q.sym().equals("A")).toList();
        final List<List<Object>> expected = new ArrayList<>();
        int next = 0;
        for (final Trade t : TestTables.ordered(trades, layout)) {
            if (t.sym().equals("A")) {
                while (next < quotesOfA.size() && quotesOfA.get(next).time() <= t.time()) {
                    next++;
                }
                expected.add(row(t, next == 0 ? null : quotesOfA.get(next - 1)));
            }
        }
        assertThat(expected.size()).isGreaterThan(2 * 1024);
        final String select = "\"select\":[\"time\",\"sym\",\"price\",\"bid\",\"ask\",\"qtime\"],"
            + "\"asof\":{\"table\":\"quote\",\"select\":{\"bid\":\"bid\",\"ask\":\"ask\",\"qtime\":\"time\"}}";
        for (final String limit : List.of("", ",\"limit\":7")) {
            final List<List<Object>> want = limit.isEmpty() ? expected : expected.subList(0, 7);
            final ResultTable streamed = engine.query("{\"table\":\"trade\",\"where\":{\"sym\":\"A\"}," + select + limit + "}", src);
            final ResultTable filtered = engine.query("{\"table\":\"trade\",\"where\":{\"sym\":\"A\",\"size\":{\">=\":-1}},"
                + select + limit + "}", src);
            assertThat(streamed.rows()).as("one pass, limit '%s'", limit).isEqualTo(want);
            assertThat(filtered.rows()).as("two passes, limit '%s'", limit).isEqualTo(want);
        }
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldHandleNoPriorQuoteEqualTimesAndTolerance(final Layout layout) {
        final List<Quote> quotes = List.of(
            new Quote(T + 10, "A", 1.0, 1.1, 1, 1),
            new Quote(T + 20, "A", 2.0, 2.1, 2, 2),
            new Quote(T + 20, "A", 3.0, 3.1, 3, 3),     // same time: the later row prevails
            new Quote(T + 25, "B", 9.0, 9.1, 9, 9),
            new Quote(T + 1000, "A", 4.0, 4.1, 4, 4));
        final List<Trade> trades = List.of(
            new Trade(T + 5, "A", 100, 1, 'A'),          // before any quote of A: no match
            new Trade(T + 10, "A", 101, 1, 'A'),         // equal time: the quote at T+10 counts
            new Trade(T + 20, "A", 102, 1, 'A'),         // two quotes at T+20: the last one
            new Trade(T + 21, "B", 103, 1, 'A'),         // B quotes only later: none
            new Trade(T + 30, "B", 104, 1, 'A'),
            new Trade(T + 999, "A", 105, 1, 'A'),        // 979 ns after its quote
            new Trade(T + 1000, "A", 106, 1, 'A'),
            new Trade(T + 2000, "C", 107, 1, 'A'));      // C has no quotes at all
        final QuerySource src = TestTables.source(layout, DAY2, trades, quotes);
        final ResultTable r = engine.query("{\"table\":\"trade\",\"select\":[\"price\",\"bid\",\"asize\"],"
            + "\"asof\":{\"table\":\"quote\",\"select\":[\"bid\",\"asize\"]}}", src);
        final Map<Double, List<Object>> byPrice = byPrice(r);
        assertThat(byPrice.get(100.0)).containsExactly(100.0, null, null);
        assertThat(byPrice.get(101.0)).containsExactly(101.0, 1.0, 1L);
        assertThat(byPrice.get(102.0)).containsExactly(102.0, 3.0, 3L);
        assertThat(byPrice.get(103.0)).containsExactly(103.0, null, null);
        assertThat(byPrice.get(104.0)).containsExactly(104.0, 9.0, 9L);
        assertThat(byPrice.get(105.0)).containsExactly(105.0, 3.0, 3L);
        assertThat(byPrice.get(106.0)).containsExactly(106.0, 4.0, 4L);
        assertThat(byPrice.get(107.0)).containsExactly(107.0, null, null);

        final ResultTable tol = engine.query("{\"table\":\"trade\",\"select\":[\"price\",\"bid\"],"
            + "\"asof\":{\"table\":\"quote\",\"select\":[\"bid\"],\"tolerance\":5}}", src);
        final Map<Double, List<Object>> t = byPrice(tol);
        assertThat(t.get(101.0)).containsExactly(101.0, 1.0);
        assertThat(t.get(104.0)).as("exactly at the tolerance matches").containsExactly(104.0, 9.0);
        assertThat(t.get(105.0)).as("older than the tolerance").containsExactly(105.0, null);
        assertThat(t.get(106.0)).containsExactly(106.0, 4.0);
    }

    private static Map<Double, List<Object>> byPrice(final ResultTable r) {
        final Map<Double, List<Object>> m = new TreeMap<>();
        for (final List<Object> row : r.rows()) {
            m.put((Double) row.get(0), row);
        }
        return m;
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldAggregateJoinedColumnsIgnoringUnmatchedRows(final Layout layout) {
        final List<Trade> trades = TestTables.trades(21, 1500, DAY2);
        final List<Quote> quotes = TestTables.quotes(22, 2500, DAY2);
        final ResultTable r = engine.query("{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"},"
            + "\"spread\":{\"avg\":{\"-\":[\"ask\",\"bid\"]}},\"slip\":{\"avg\":{\"-\":[\"price\",\"bid\"]}},"
            + "\"maxAsk\":{\"max\":\"asize\"}},\"by\":\"sym\",\"asof\":{\"table\":\"quote\",\"select\":[\"bid\",\"ask\",\"asize\"]}}",
            TestTables.source(layout, DAY2, trades, quotes));
        final Map<String, List<Trade>> bySym = new TreeMap<>();
        for (final Trade t : trades) {
            bySym.computeIfAbsent(t.sym(), s -> new ArrayList<>()).add(t);
        }
        int i = 0;
        for (final Map.Entry<String, List<Trade>> e : bySym.entrySet()) {
            double spread = 0;
            double slip = 0;
            long matched = 0;
            long maxAsk = Long.MIN_VALUE;
            for (final Trade t : e.getValue()) {
                final Quote q = prevailing(t, quotes, -1);
                if (q != null) {
                    spread += q.ask() - q.bid();
                    slip += t.price() - q.bid();
                    maxAsk = Math.max(maxAsk, q.asize());
                    matched++;
                }
            }
            assertThat(r.get(i, "sym")).isEqualTo(e.getKey());
            assertThat(r.get(i, "n")).isEqualTo((long) e.getValue().size());
            if (matched == 0) {
                assertThat(r.get(i, "spread")).isNull();
                assertThat(r.get(i, "maxAsk")).isNull();
            } else {
                assertThat((Double) r.get(i, "spread")).isCloseTo(spread / matched, within(1e-9));
                assertThat((Double) r.get(i, "slip")).isCloseTo(slip / matched, within(1e-9));
                assertThat(r.get(i, "maxAsk")).isEqualTo(maxAsk);
            }
            i++;
        }
        assertThat(r.get(4, "sym")).isEqualTo("E");
        assertThat(r.get(4, "spread")).as("E has no quotes").isNull();
    }

    @Test
    void shouldJoinEachDateWithTheQuotesOfThatDateOnly() {
        final long t1 = TestTables.DAY1 * NANOS_PER_DAY + 36_000_000_000_000L;
        final MemorySource src = new MemorySource()
            .add(TestTables.tradeSegment(List.of(new Trade(t1 + 50, "A", 1, 1, 'A')), TestTables.DAY1, true))
            .add(TestTables.tradeSegment(List.of(new Trade(T + 5, "A", 2, 1, 'A'), new Trade(T + 50, "A", 3, 1, 'A')), DAY2, true))
            .add(TestTables.quoteSegment(List.of(new Quote(T + 10, "A", 7.0, 7.5, 1, 1)), DAY2, true))
            .table(TestTables.QUOTE);
        final ResultTable r = engine.query("{\"table\":\"trade\",\"select\":[\"date\",\"price\",\"bid\"],"
            + "\"asof\":{\"table\":\"quote\",\"select\":[\"bid\"]}}", src);
        assertThat(r.rows()).containsExactly(
            Arrays.asList((long) TestTables.DAY1, 1.0, null),   // no quote segment that day
            Arrays.asList((long) DAY2, 2.0, null),              // before the day's first quote (yesterday's do not carry over)
            Arrays.asList((long) DAY2, 3.0, 7.0));
    }

    // ---- AsOfJoin itself, over a batch ------------------------------------------------------------

    private static final TableSchema TRADE = TableSchema.trade(0);
    private static final TableSchema QUOTE = TableSchema.quote(0);
    private static final Plan JOIN = ExecRig.plan("{\"table\":\"trade\",\"asof\":{\"table\":\"quote\",\"select\":[\"bid\"]}}",
        TRADE, QUOTE);

    private static MemorySegment trades(final Object... timeSym) {
        final MemorySegment.Builder b = MemorySegment.builder(TRADE, 1);
        for (int i = 0; i < timeSym.length; i += 2) {
            b.row(timeSym[i], timeSym[i + 1], 1.0, 1L, 'N');
        }
        return b.build();
    }

    /** Quotes of A in arrival order, times not sorted: rows 0..3 at 30, 10, 20, 20, and C at 1 (row 4). */
    private static MemorySegment quotes() {
        return MemorySegment.builder(QUOTE, 1)
            .row(30L, "A", 3.0, 3.5, 1L, 1L)
            .row(10L, "A", 1.0, 1.5, 1L, 1L)
            .row(20L, "A", 2.0, 2.5, 1L, 1L)
            .row(20L, "A", 2.1, 2.6, 1L, 1L)
            .row(1L, "C", 9.0, 9.5, 1L, 1L)
            .build();
    }

    private static int[] match(final MemorySegment left, final MemorySegment right, final long tolerance) {
        final Batch b = new Batch(JOIN, ExecRig.CAPACITY);
        b.bind(left, ExecRig.columns(JOIN, left), right);
        b.setRange(0, left.rowCount(), -1);
        new AsOfJoin(left, right, tolerance).match(b);
        return Arrays.copyOf(b.match, left.rowCount());
    }

    @Test
    void shouldMatchTheLastRightRowAtOrBeforeEachTimeOfTheSameSym() {
        final MemorySegment left = trades(5L, "A", 10L, "A", 20L, "A", 25L, "A", 35L, "A", 40L, "B", 2L, "C");

        // A sorted by time: 10 (row 1), 20 (row 2), 20 (row 3: the last of equal times), 30 (row 0)
        assertThat(match(left, quotes(), -1)).containsExactly(-1, 1, 3, 3, 0, -1, 4);
    }

    @Test
    void shouldMatchTimesThatGoBackwards() {
        final MemorySegment left = trades(35L, "A", 5L, "A", 20L, "A", 12L, "A", 31L, "A", 30L, "A");

        assertThat(match(left, quotes(), -1)).containsExactly(0, -1, 3, 1, 0, 0);
    }

    @Test
    void shouldDropAMatchOlderThanTheTolerance() {
        final MemorySegment left = trades(25L, "A", 26L, "A", 30L, "A", 36L, "A", 10L, "A");

        assertThat(match(left, quotes(), 5)).containsExactly(3, -1, 0, -1, 1);
        assertThat(match(left, quotes(), 0)).as("only an exact time").containsExactly(-1, -1, 0, -1, 1);
    }

    @Test
    void shouldMatchNothingWithoutARightSegment() {
        assertThat(match(trades(25L, "A", 26L, "B"), null, -1)).containsExactly(-1, -1);
    }

    @Test
    void shouldWriteOnlyTheKeptPositions() {
        final MemorySegment left = trades(5L, "A", 10L, "A", 20L, "A", 25L, "A");
        final MemorySegment right = quotes();
        final Batch b = new Batch(JOIN, ExecRig.CAPACITY);
        b.bind(left, ExecRig.columns(JOIN, left), right);
        b.setRange(0, 4, -1);
        Arrays.fill(b.match, 99);
        b.sel = new int[] {1, 3};
        b.count = 2;

        new AsOfJoin(left, right, -1).match(b);

        assertThat(Arrays.copyOf(b.match, 4)).containsExactly(99, 1, 99, 3);
    }

    @Test
    void shouldLoadTheJoinedColumnOfMatchedRowsAndNullElsewhere() {
        final MemorySegment left = trades(5L, "A", 20L, "A", 35L, "A", 1L, "B");
        final MemorySegment right = MemorySegment.builder(QUOTE, 1)
            .row(30L, "A", 3.0, 3.5, 1L, 1L)
            .row(10L, "A", 1.0, 1.5, 1L, 1L)
            .row(20L, "A", 2.0, 2.5, 1L, 1L)
            .buildParted();
        final Batch b = new Batch(JOIN, ExecRig.CAPACITY);
        b.bind(left, ExecRig.columns(JOIN, left), right);
        b.setRange(0, 4, -1);
        new AsOfJoin(left, right, -1).match(b);

        final int bid = JOIN.leftColumns();
        b.load(bid);

        assertThat(Arrays.copyOf(b.match, 4)).as("parted: rows sorted by time").containsExactly(-1, 1, 2, -1);
        final double[] bids = Arrays.copyOfRange(b.d[bid], b.off[bid], b.off[bid] + 4);
        assertThat(bids[0]).isNaN();
        assertThat(bids[1]).isEqualTo(2.0);
        assertThat(bids[2]).isEqualTo(3.0);
        assertThat(bids[3]).isNaN();
        final ColumnChunk check = new ColumnChunk();
        right.read(2, 2, 1, check);
        assertThat(check.doubles()[check.offset()]).isEqualTo(3.0);
    }
}
