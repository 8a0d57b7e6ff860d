package io.jtick.core.query;

import io.jtick.core.query.TestTables.Layout;
import io.jtick.core.query.TestTables.Quote;
import io.jtick.core.query.TestTables.Trade;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.table.MemorySource;
import io.jtick.core.table.QuerySource;
import io.jtick.core.table.TableSegment;
import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import static io.jtick.core.query.TestTables.DAY2;
import static io.jtick.core.query.TestTables.NANOS_PER_DAY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Every operator against a straightforward reference computed here over plain rows, on the three
 * layouts a segment can have (arrival order in memory, sym-parted like an HDB partition, a real RDB).
 */
@ExtendWith(LeakCheck.class)
// The split scan's slice threads are one pool per JVM, made on first use and kept by design
// (GroupedScan.POOL: daemon threads, one per CPU, never a thread start per query).
@LeakCheck.Options(ignoreThreads = "jtick-query-slice-\\d+-\\d+")
class QueryEngineTest {
    private static final List<Trade> TRADES = TestTables.trades(42, 3000, DAY2);
    private static final List<Quote> QUOTES = TestTables.quotes(7, 4000, DAY2);
    private static final long OPEN = DAY2 * NANOS_PER_DAY + 34_200_000_000_000L;

    private final QueryEngine engine = new QueryEngine();

    private ResultTable run(final Layout layout, final String json) {
        return engine.query(json, TestTables.source(layout, DAY2, TRADES, QUOTES));
    }

    private static List<Trade> rows(final Layout layout) {
        return TestTables.ordered(TRADES, layout);
    }

    private static <K> Map<K, List<Trade>> groupBy(final List<Trade> rows, final Function<Trade, K> key) {
        return rows.stream().collect(Collectors.groupingBy(key, TreeMap::new, Collectors.toList()));
    }

    private static double median(final List<Double> values) {
        final List<Double> v = new ArrayList<>(values);
        v.sort(Comparator.naturalOrder());
        final int n = v.size();
        return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
    }

    private static double dev(final List<Double> values) {
        final double mean = values.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
        return Math.sqrt(values.stream().mapToDouble(x -> (x - mean) * (x - mean)).sum() / values.size());
    }

    private static void close(final Object actual, final double expected) {
        assertThat((Double) actual).isCloseTo(expected, within(1e-9 * Math.max(1, Math.abs(expected))));
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldAnswerVwapAndCountBySym(final Layout layout) {
        final ResultTable r = run(layout, "{\"table\":\"trade\",\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]},"
            + "\"n\":{\"count\":\"*\"}},\"by\":[\"sym\"]}");
        assertThat(r.columns()).containsExactly("sym", "vwap", "n");
        assertThat(r.types()).containsExactly(ValueType.SYMBOL, ValueType.FLOAT64, ValueType.INT64);
        final Map<String, List<Trade>> bySym = groupBy(rows(layout), Trade::sym);
        assertThat(r.rowCount()).isEqualTo(bySym.size());
        int i = 0;
        for (final Map.Entry<String, List<Trade>> e : bySym.entrySet()) {
            final List<Trade> g = e.getValue();
            assertThat(r.get(i, "sym")).isEqualTo(e.getKey());
            close(r.get(i, "vwap"), g.stream().mapToDouble(t -> t.size() * t.price()).sum() / g.stream().mapToLong(Trade::size).sum());
            assertThat(r.get(i, "n")).isEqualTo((long) g.size());
            i++;
        }
        assertThat(r.stats().rowsScanned()).isEqualTo(TRADES.size());
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldComputeEveryAggregateBySym(final Layout layout) {
        final ResultTable r = run(layout, "{\"table\":\"trade\",\"select\":{"
            + "\"n\":{\"count\":\"price\"},\"vol\":{\"sum\":\"size\"},\"turnover\":{\"sum\":{\"*\":[\"size\",\"price\"]}},"
            + "\"avg\":{\"avg\":\"price\"},\"lo\":{\"min\":\"price\"},\"hi\":{\"max\":\"price\"},\"maxSize\":{\"max\":\"size\"},"
            + "\"open\":{\"first\":\"price\"},\"close\":{\"last\":\"price\"},\"t0\":{\"first\":\"time\"},\"t1\":{\"last\":\"time\"},"
            + "\"lastCond\":{\"last\":\"cond\"},\"med\":{\"median\":\"price\"},\"sd\":{\"dev\":\"price\"},"
            + "\"medSize\":{\"med\":\"size\"}},\"by\":\"sym\"}");
        assertThat(r.types()).containsExactly(ValueType.SYMBOL, ValueType.INT64, ValueType.INT64, ValueType.FLOAT64,
            ValueType.FLOAT64, ValueType.FLOAT64, ValueType.FLOAT64, ValueType.INT64, ValueType.FLOAT64, ValueType.FLOAT64,
            ValueType.TIMESTAMP, ValueType.TIMESTAMP, ValueType.CHAR, ValueType.FLOAT64, ValueType.FLOAT64, ValueType.FLOAT64);
        int i = 0;
        for (final Map.Entry<String, List<Trade>> e : groupBy(rows(layout), Trade::sym).entrySet()) {
            final List<Trade> g = e.getValue();
            final List<Double> prices = g.stream().map(Trade::price).toList();
            assertThat(r.get(i, "sym")).isEqualTo(e.getKey());
            assertThat(r.get(i, "n")).isEqualTo((long) g.size());
            assertThat(r.get(i, "vol")).isEqualTo(g.stream().mapToLong(Trade::size).sum());
            close(r.get(i, "turnover"), g.stream().mapToDouble(t -> t.size() * t.price()).sum());
            close(r.get(i, "avg"), prices.stream().mapToDouble(Double::doubleValue).average().orElseThrow());
            assertThat(r.get(i, "lo")).isEqualTo(prices.stream().min(Comparator.naturalOrder()).orElseThrow());
            assertThat(r.get(i, "hi")).isEqualTo(prices.stream().max(Comparator.naturalOrder()).orElseThrow());
            assertThat(r.get(i, "maxSize")).isEqualTo(g.stream().mapToLong(Trade::size).max().orElseThrow());
            assertThat(r.get(i, "open")).isEqualTo(g.get(0).price());
            assertThat(r.get(i, "close")).isEqualTo(g.get(g.size() - 1).price());
            assertThat(r.get(i, "t0")).isEqualTo(g.get(0).time());
            assertThat(r.get(i, "t1")).isEqualTo(g.get(g.size() - 1).time());
            assertThat(r.get(i, "lastCond")).isEqualTo((long) g.get(g.size() - 1).cond());
            close(r.get(i, "med"), median(prices));
            close(r.get(i, "sd"), dev(prices));
            close(r.get(i, "medSize"), median(g.stream().map(t -> (double) t.size()).toList()));
            i++;
        }
        assertThat(i).isEqualTo(5);
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldAggregateTheWholeSelectionWithoutBy(final Layout layout) {
        final List<Trade> rows = rows(layout);
        final ResultTable r = run(layout, "{\"table\":\"trade\",\"where\":{\"sym\":{\"in\":[\"A\",\"B\"]}},\"select\":{"
            + "\"n\":{\"count\":\"*\"},\"first\":{\"first\":\"price\"},\"last\":{\"last\":\"price\"},\"med\":{\"median\":\"price\"},"
            + "\"firstSym\":{\"first\":\"sym\"},\"vwap\":{\"vwap\":[\"size\",\"price\"]}}}");
        final List<Trade> ab = rows.stream().filter(t -> t.sym().equals("A") || t.sym().equals("B")).toList();
        assertThat(r.rowCount()).isEqualTo(1);
        assertThat(r.get(0, "n")).isEqualTo((long) ab.size());
        assertThat(r.get(0, "first")).as("first in row order").isEqualTo(ab.get(0).price());
        assertThat(r.get(0, "last")).isEqualTo(ab.get(ab.size() - 1).price());
        assertThat(r.get(0, "firstSym")).isEqualTo(ab.get(0).sym());
        close(r.get(0, "med"), median(ab.stream().map(Trade::price).toList()));
        close(r.get(0, "vwap"), ab.stream().mapToDouble(t -> t.size() * t.price()).sum() / ab.stream().mapToLong(Trade::size).sum());
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldSelectRowsWithComparisonsInAndWithin(final Layout layout) {
        final long from = OPEN + 60_000_000_000L;
        final long to = OPEN + 240_000_000_000L;
        final ResultTable r = run(layout, "{\"table\":\"trade\",\"where\":[{\"sym\":{\"in\":[\"A\",\"C\",\"NOPE\"]}},"
            + "{\"time\":{\"within\":[" + from + "," + to + "]}},{\"size\":{\">\":500,\"<=\":1500}},{\"price\":{\"<\":106.5}},"
            + "{\"cond\":{\"in\":[\"A\",\"B\"]}}],\"select\":[\"time\",\"sym\",\"price\",\"size\",\"cond\"]}");
        final Predicate<Trade> keep = t -> (t.sym().equals("A") || t.sym().equals("C")) && t.time() >= from && t.time() <= to
            && t.size() > 500 && t.size() <= 1500 && t.price() < 106.5 && (t.cond() == 'A' || t.cond() == 'B');
        final List<List<Object>> expected = rows(layout).stream().filter(keep)
            .map(t -> List.<Object>of(t.time(), t.sym(), t.price(), t.size(), (long) t.cond())).toList();
        assertThat(expected).isNotEmpty();
        assertThat(r.rows()).isEqualTo(expected);
        assertThat(r.stats().rowsScanned()).as("sym index and time narrowing skip rows").isLessThan(TRADES.size() / 2);

        final ResultTable ne = run(layout, "{\"table\":\"trade\",\"where\":{\"sym\":{\"!=\":\"A\"},\"cond\":{\"=\":\"C\"},"
            + "\"price\":{\">=\":108}},\"select\":[\"sym\",\"price\"]}");
        assertThat(ne.rows()).isEqualTo(rows(layout).stream().filter(t -> !t.sym().equals("A") && t.cond() == 'C' && t.price() >= 108)
            .map(t -> List.<Object>of(t.sym(), t.price())).toList());
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldMakeOneMinuteOhlcBarsForOneSym(final Layout layout) {
        final ResultTable r = run(layout, "{\"table\":\"trade\",\"where\":{\"sym\":\"B\"},\"select\":{"
            + "\"open\":{\"first\":\"price\"},\"high\":{\"max\":\"price\"},\"low\":{\"min\":\"price\"},\"close\":{\"last\":\"price\"},"
            + "\"volume\":{\"sum\":\"size\"}},\"by\":{\"minute\":{\"xbar\":[\"1m\",\"time\"]}}}");
        assertThat(r.columns()).containsExactly("minute", "open", "high", "low", "close", "volume");
        assertThat(r.types().get(0)).isEqualTo(ValueType.TIMESTAMP);
        final long m = 60_000_000_000L;
        final Map<Long, List<Trade>> bars = groupBy(rows(layout).stream().filter(t -> t.sym().equals("B")).toList(),
            t -> Math.floorDiv(t.time(), m) * m);
        assertThat(r.rowCount()).isEqualTo(bars.size()).isGreaterThan(2);
        int i = 0;
        for (final Map.Entry<Long, List<Trade>> e : bars.entrySet()) {
            final List<Trade> g = e.getValue();
            assertThat(r.rows().get(i)).containsExactly(e.getKey(), g.get(0).price(),
                g.stream().mapToDouble(Trade::price).max().orElseThrow(), g.stream().mapToDouble(Trade::price).min().orElseThrow(),
                g.get(g.size() - 1).price(), g.stream().mapToLong(Trade::size).sum());
            i++;
        }
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldGroupByTwoKeysAndByANumericBar(final Layout layout) {
        final ResultTable r = run(layout, "{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"},\"vol\":{\"sum\":\"size\"}},"
            + "\"by\":[\"sym\",\"cond\"]}");
        final Map<String, List<Trade>> g = groupBy(rows(layout), t -> t.sym() + t.cond());
        assertThat(r.rows()).isEqualTo(g.values().stream().map(l -> List.<Object>of(l.get(0).sym(), (long) l.get(0).cond(),
            (long) l.size(), l.stream().mapToLong(Trade::size).sum())).toList());

        final ResultTable bands = run(layout, "{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},"
            + "\"by\":{\"band\":{\"xbar\":[2.5,\"price\"]}}}");
        final Map<Double, List<Trade>> b = groupBy(rows(layout), t -> 2.5 * Math.floor(t.price() / 2.5));
        assertThat(bands.rows()).isEqualTo(b.entrySet().stream().map(e -> List.<Object>of(e.getKey(), (long) e.getValue().size()))
            .toList());
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldOrderAndLimit(final Layout layout) {
        final ResultTable top = run(layout, "{\"table\":\"trade\",\"select\":{\"vol\":{\"sum\":\"size\"}},\"by\":\"sym\","
            + "\"orderBy\":[{\"vol\":\"desc\"}],\"limit\":2}");
        final List<Map.Entry<String, Long>> vols = groupBy(rows(layout), Trade::sym).entrySet().stream()
            .map(e -> Map.entry(e.getKey(), e.getValue().stream().mapToLong(Trade::size).sum()))
            .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(2).toList();
        assertThat(top.rows()).isEqualTo(vols.stream().map(e -> List.<Object>of(e.getKey(), e.getValue())).toList());

        final ResultTable rows = run(layout, "{\"table\":\"trade\",\"where\":{\"sym\":\"C\"},\"select\":[\"size\",\"price\",\"time\"],"
            + "\"orderBy\":[\"-size\",\"price\"],\"limit\":7}");
        assertThat(rows.rows()).isEqualTo(rows(layout).stream().filter(t -> t.sym().equals("C"))
            .sorted(Comparator.comparingLong(Trade::size).reversed().thenComparingDouble(Trade::price)).limit(7)
            .map(t -> List.<Object>of(t.size(), t.price(), t.time())).toList());

        final ResultTable first = run(layout, "{\"table\":\"trade\",\"select\":[\"sym\",\"size\"],\"limit\":5}");
        assertThat(first.rows()).isEqualTo(rows(layout).stream().limit(5).map(t -> List.<Object>of(t.sym(), t.size())).toList());
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldStopScanningAtTheLimit(final Layout layout) {
        final List<Trade> many = TestTables.trades(3, 40_000, DAY2);
        final ResultTable r = engine.query("{\"table\":\"trade\",\"select\":[\"size\"],\"limit\":3}",
            TestTables.source(layout, DAY2, many, null));
        assertThat(r.rows()).isEqualTo(TestTables.ordered(many, layout).stream().limit(3).map(t -> List.<Object>of(t.size())).toList());
        assertThat(r.stats().rowsScanned()).as("one batch, not the table").isLessThanOrEqualTo(TableSegment.DEFAULT_CHUNK_ROWS);
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldEvaluateArithmeticInSelectAndAggregates(final Layout layout) {
        final long from = OPEN + 100_000_000_000L;
        final long to = OPEN + 300_000_000_000L;
        final ResultTable spread = run(layout, "{\"table\":\"quote\",\"where\":{\"time\":{\"within\":[" + from + "," + to + "]}},"
            + "\"select\":{\"spread\":{\"avg\":{\"-\":[\"ask\",\"bid\"]}},\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}");
        final List<Quote> quotes = QUOTES.stream().filter(q -> q.time() >= from && q.time() <= to).toList();
        final Map<String, List<Quote>> bySym = quotes.stream().collect(Collectors.groupingBy(Quote::sym, TreeMap::new,
            Collectors.toList()));
        int i = 0;
        for (final Map.Entry<String, List<Quote>> e : bySym.entrySet()) {
            assertThat(spread.get(i, "sym")).isEqualTo(e.getKey());
            close(spread.get(i, "spread"), e.getValue().stream().mapToDouble(q -> q.ask() - q.bid()).average().orElseThrow());
            assertThat(spread.get(i, "n")).isEqualTo((long) e.getValue().size());
            i++;
        }
        assertThat(i).isEqualTo(4);

        final ResultTable mid = run(layout, "{\"table\":\"trade\",\"where\":{\"sym\":\"D\"},\"select\":{\"t\":\"time\","
            + "\"x\":{\"/\":[{\"+\":[\"price\",{\"*\":[\"size\",0.001]}]},2]},\"k\":{\"-\":[\"size\",100]}},\"limit\":3}");
        final List<Trade> d = rows(layout).stream().filter(t -> t.sym().equals("D")).limit(3).toList();
        for (int r = 0; r < 3; r++) {
            close(mid.get(r, "x"), (d.get(r).price() + d.get(r).size() * 0.001) / 2);
            close(mid.get(r, "k"), d.get(r).size() - 100.0);
        }
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldAnswerEmptySelections(final Layout layout) {
        final ResultTable none = run(layout, "{\"table\":\"trade\",\"where\":{\"sym\":\"ZZZ\"},\"select\":{\"n\":{\"count\":\"*\"},"
            + "\"s\":{\"sum\":\"size\"},\"p\":{\"first\":\"price\"},\"a\":{\"avg\":\"price\"},\"m\":{\"median\":\"price\"}}}");
        assertThat(none.rows()).containsExactly(java.util.Arrays.asList(0L, 0L, null, null, null));
        assertThat(run(layout, "{\"table\":\"trade\",\"where\":{\"sym\":\"ZZZ\"},\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}")
            .rowCount()).isZero();
        assertThat(run(layout, "{\"table\":\"trade\",\"where\":{\"time\":{\"<\":" + OPEN + "}}}").rowCount()).isZero();
        assertThat(run(layout, "{\"table\":\"trade\",\"where\":{\"sym\":\"A\",\"time\":{\">\":100,\"<\":50}}}").rowCount()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldResolveTimesOfDayAgainstTheSegmentDate(final Layout layout) {
        final ResultTable r = run(layout, "{\"table\":\"trade\",\"where\":{\"time\":{\"within\":[\"09:31\",\"09:32:30.5\"]}},"
            + "\"select\":{\"n\":{\"count\":\"*\"}}}");
        final long lo = OPEN + 60_000_000_000L;
        final long hi = OPEN + 150_500_000_000L;
        assertThat(r.get(0, "n")).isEqualTo(TRADES.stream().filter(t -> t.time() >= lo && t.time() <= hi).count());
        final ResultTable iso = run(layout, "{\"table\":\"trade\",\"where\":{\"time\":{\">=\":\"2026-11-21T09:31:00Z\","
            + "\"<=\":\"2026.11.21D09:32:30.500\"}},\"select\":{\"n\":{\"count\":\"*\"}}}");
        assertThat(iso.get(0, "n")).isEqualTo(r.get(0, "n"));
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldGiveTheLastRowOfEachGroupForByWithoutSelect(final Layout layout) {
        final ResultTable r = run(layout, "{\"table\":\"trade\",\"by\":\"sym\"}");
        assertThat(r.columns()).containsExactly("sym", "time", "price", "size", "cond");
        final Map<String, List<Trade>> g = groupBy(rows(layout), Trade::sym);
        assertThat(r.rows()).isEqualTo(g.values().stream().map(l -> l.get(l.size() - 1))
            .map(t -> List.<Object>of(t.sym(), t.time(), t.price(), t.size(), (long) t.cond())).toList());
    }

    @Test
    void shouldWaitForEverySliceOfASplitScanBeforeReportingOneThatFailed() throws Exception {
        // the caller closes the segments once the query returns: a slice still reading then would read a closed (unmapped) file
        final List<Trade> many = TestTables.trades(9, 400_000, DAY2);
        final TableSegment trades = TestTables.tradeSegment(many, DAY2, false);
        final java.util.concurrent.CountDownLatch failed = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.atomic.AtomicInteger lateReads = new java.util.concurrent.atomic.AtomicInteger();
        final TableSegment failing = new TableSegment() {
            @Override
            public io.jtick.core.schema.TableSchema schema() {
                return trades.schema();
            }

            @Override
            public int epochDay() {
                return trades.epochDay();
            }

            @Override
            public int rowCount() {
                return trades.rowCount();
            }

            @Override
            public boolean timeSorted() {
                return trades.timeSorted();
            }

            @Override
            public boolean symParted() {
                return trades.symParted();
            }

            @Override
            public int symId(final String sym) {
                return trades.symId(sym);
            }

            @Override
            public String symName(final int symId) {
                return trades.symName(symId);
            }

            @Override
            public int symIdLimit() {
                return trades.symIdLimit();
            }

            @Override
            public void symRows(final int symId, final io.jtick.core.table.RowSink sink) {
                trades.symRows(symId, sink);
            }

            @Override
            public void read(final int column, final int from, final int length, final io.jtick.core.table.ColumnChunk chunk) {
                if (from == 0) {
                    failed.countDown();
                    throw new IllegalStateException("boom in the first slice");
                }
                if (from >= 300_000) {
                    try {
                        // the last slice holds on until the test has seen the query still waiting for it
                        assertThat(release.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
                    } catch (final InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    lateReads.incrementAndGet();
                }
                trades.read(column, from, length, chunk);
            }

            @Override
            public void read(final int column, final int[] rows, final int at, final int length,
                             final io.jtick.core.table.ColumnChunk chunk) {
                trades.read(column, rows, at, length, chunk);
            }
        };
        final QuerySource src = new MemorySource().table(TestTables.TRADE).add(failing);
        final QueryEngine split = new QueryEngine(new io.jtick.core.metrics.TickMetrics(), QueryLimits.DEFAULT, 3);
        final java.util.concurrent.CompletableFuture<Throwable> outcome = new java.util.concurrent.CompletableFuture<>();
        final Thread caller = new Thread(() -> {
            try {
                split.query("{\"table\":\"trade\",\"select\":{\"v\":{\"wavg\":[\"size\",\"price\"]}},\"by\":\"sym\"}", src);
                outcome.complete(null);
            } catch (final Throwable t) {
                outcome.complete(t);
            }
        });
        caller.start();
        assertThat(failed.await(30, java.util.concurrent.TimeUnit.SECONDS)).as("the first slice failed").isTrue();
        // with the slice still held, the query must not have returned (it returned at once before the fix)
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> outcome.get(300, java.util.concurrent.TimeUnit.MILLISECONDS))
            .isInstanceOf(java.util.concurrent.TimeoutException.class);
        release.countDown();
        final Throwable t = outcome.get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(t).isInstanceOf(IllegalStateException.class).hasMessageContaining("boom in the first slice");
        assertThat(lateReads.get()).as("the held slice went on reading before the query returned").isPositive();
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void shouldAnswerAlikeWhetherSplitAcrossThreadsOrNot(final Layout layout) {
        final List<Trade> many = TestTables.trades(9, 400_000, DAY2);
        final QuerySource src = TestTables.source(layout, DAY2, many, null);
        final QueryEngine one = new QueryEngine(new io.jtick.core.metrics.TickMetrics(), QueryLimits.DEFAULT, 1);
        final QueryEngine four = new QueryEngine(new io.jtick.core.metrics.TickMetrics(), QueryLimits.DEFAULT, 4);
        for (final String q : List.of(
            "{\"table\":\"trade\",\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]},\"med\":{\"median\":\"price\"},"
                + "\"sd\":{\"dev\":\"price\"},\"open\":{\"first\":\"price\"},\"close\":{\"last\":\"price\"}},\"by\":\"sym\"}",
            "{\"table\":\"trade\",\"select\":{\"open\":{\"first\":\"price\"},\"close\":{\"last\":\"price\"},\"n\":{\"count\":\"*\"}},"
                + "\"by\":{\"m\":{\"xbar\":[\"5m\",\"time\"]}}}",
            "{\"table\":\"trade\",\"where\":{\"size\":{\">\":500}},\"select\":{\"n\":{\"count\":\"*\"},\"s\":{\"sum\":\"size\"},"
                + "\"firstSym\":{\"first\":\"sym\"},\"lastSym\":{\"last\":\"sym\"}}}")) {
            final ResultTable a = one.query(q, src);
            final ResultTable b = four.query(q, src);
            assertThat(a.rowCount()).as(q).isEqualTo(b.rowCount()).isPositive();
            for (int r = 0; r < a.rowCount(); r++) {
                for (int c = 0; c < a.columns().size(); c++) {
                    final Object x = a.get(r, c);
                    if (x instanceof Double d) {
                        close(b.get(r, c), d);
                    } else {
                        assertThat(b.get(r, c)).as(q + " row " + r + " column " + a.columns().get(c)).isEqualTo(x);
                    }
                }
            }
        }
        final long inWindow = many.stream().filter(t -> t.time() >= OPEN + 60_000_000_000L && t.time() <= OPEN + 9_000_000_000_000L)
            .count();
        final String window = "\"where\":{\"time\":{\"within\":[\"09:31\",\"12:00\"]}},";
        final ResultTable fromIndex = four.query("{\"table\":\"trade\"," + window + "\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}",
            src);
        final ResultTable scanned = one.query("{\"table\":\"trade\"," + window + "\"select\":{\"n\":{\"count\":\"price\"},"
            + "\"p\":{\"first\":\"price\"}},\"by\":\"sym\"}", src);
        assertThat(fromIndex.stats().rowsScanned()).as("counted from the sym index").isZero();
        assertThat(fromIndex.rows()).isEqualTo(scanned.rows().stream().map(r -> r.subList(0, 2)).toList());
        assertThat(fromIndex.rows().stream().mapToLong(r -> (Long) r.get(1)).sum()).isEqualTo(inWindow);
    }

    @Test
    void shouldGroupByDateAndPruneDates() {
        final List<Trade> day1 = TestTables.trades(1, 500, TestTables.DAY1);
        final MemorySource hdb = new MemorySource()
            .add(TestTables.tradeSegment(day1, TestTables.DAY1, true))
            .add(TestTables.tradeSegment(TRADES, DAY2, true));
        final ResultTable r = engine.query("{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"},\"first\":{\"first\":\"time\"}},"
            + "\"by\":\"date\"}", hdb);
        assertThat(r.types()).containsExactly(ValueType.DATE, ValueType.INT64, ValueType.TIMESTAMP);
        assertThat(r.rows()).containsExactly(
            List.of((long) TestTables.DAY1, 500L, day1.stream().filter(t -> t.sym().equals("A")).findFirst().orElseThrow().time()),
            List.of((long) DAY2, (long) TRADES.size(), TRADES.stream().filter(t -> t.sym().equals("A")).findFirst().orElseThrow().time()));
        final ResultTable one = engine.query("{\"table\":\"trade\",\"dates\":[\"2026-11-20\"],\"select\":{\"n\":{\"count\":\"*\"}}}",
            hdb);
        assertThat(one.rows()).containsExactly(List.of(500L));
        assertThat(one.stats().segments()).isEqualTo(1);
        final ResultTable rows = engine.query("{\"table\":\"trade\",\"dates\":{\"from\":\"2026-11-20\",\"to\":\"2026-11-21\"},"
            + "\"where\":{\"sym\":\"E\"},\"select\":[\"date\",\"time\"]}", hdb);
        final List<List<Object>> expected = new ArrayList<>();
        day1.stream().filter(t -> t.sym().equals("E")).forEach(t -> expected.add(List.of((long) TestTables.DAY1, t.time())));
        TRADES.stream().filter(t -> t.sym().equals("E")).forEach(t -> expected.add(List.of((long) DAY2, t.time())));
        assertThat(rows.rows()).isEqualTo(expected);

        // by date and sym, either order (the sym fast path with the segment's date), against a reference; one core and two
        final java.util.Map<String, long[]> sums = new java.util.TreeMap<>();
        for (final int d : new int[] {TestTables.DAY1, DAY2}) {
            for (final Trade t : d == DAY2 ? TRADES : day1) {
                final long[] acc = sums.computeIfAbsent(d + "|" + t.sym(), k -> new long[2]);
                acc[0]++;
                acc[1] += t.size();
            }
        }
        for (final QueryEngine e : List.of(engine, new QueryEngine(new io.jtick.core.metrics.TickMetrics(), QueryLimits.DEFAULT, 1))) {
            final ResultTable ds = e.query("{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"},\"v\":{\"sum\":\"size\"}},"
                + "\"by\":[\"date\",\"sym\"]}", hdb);
            final ResultTable sd = e.query("{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"},\"v\":{\"sum\":\"size\"}},"
                + "\"by\":[\"sym\",\"date\"]}", hdb);
            final List<String> got = new ArrayList<>();
            ds.rows().forEach(row -> got.add(row.get(0) + "|" + row.get(1) + "=" + row.get(2) + "," + row.get(3)));
            assertThat(got).containsExactlyElementsOf(sums.entrySet().stream().map(x -> x.getKey() + "=" + x.getValue()[0] + ","
                + x.getValue()[1]).toList());
            assertThat(sd.rowCount()).isEqualTo(sums.size());
            for (int i = 0; i < sd.rowCount(); i++) {
                final long[] acc = sums.get(sd.get(i, 1) + "|" + sd.get(i, 0));
                assertThat(List.of(sd.get(i, 2), sd.get(i, 3))).isEqualTo(List.of(acc[0], acc[1]));
                if (i > 0) {
                    assertThat(sd.getString(i, 0).compareTo(sd.getString(i - 1, 0)) * 2 + Long.compare(sd.getLong(i, 1),
                        sd.getLong(i - 1, 1))).as("sorted by sym, then date").isPositive();
                }
            }
        }
    }
}
