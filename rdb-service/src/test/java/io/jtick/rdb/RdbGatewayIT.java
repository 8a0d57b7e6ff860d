package io.jtick.rdb;

import io.jtick.core.gateway.Gateway;
import io.jtick.core.table.MemorySource;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.model.QueryException;
import io.jtick.core.gateway.RemoteRdbSource;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.query.TestTables;
import io.jtick.core.query.TestTables.Trade;
import io.jtick.core.rdb.RealtimeDatabase;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * The gateway over real REST: today's trades in a running rdb-service (random port), yesterday's in
 * an in-memory sym-parted partition standing for the HDB. The answers must equal those of the same
 * gateway reading the RDB in-process. The RDB's row limit (3999, below today's 4000 trades) bounds
 * what the gateway may fetch from it.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"tick.rdb.tp-port=1", "tick.rdb.reconnect-delay=5s", "tick.query.max-rows=3999"})
class RdbGatewayIT {
    static final List<Trade> YESTERDAY = TestTables.trades(201, 4000, TestTables.DAY1, 86_000_000_000_000L);
    static final List<Trade> TODAY = TestTables.trades(202, 4000, TestTables.DAY2, 0);

    @TestConfiguration
    static class Today {
        @Bean
        @Primary
        RealtimeDatabase todaysRdb() {
            return TestTables.rdb(TestTables.DAY2, TODAY, TestTables.quotes(203, 3000, TestTables.DAY2, 0));
        }
    }

    @LocalServerPort
    private int port;

    @Autowired
    private RealtimeDatabase rdb;

    private final MemorySource hdb = new MemorySource().add(TestTables.tradeSegment(YESTERDAY, TestTables.DAY1, true))
        .table(TestTables.QUOTE);

    @Test
    void shouldMergeHdbAndRdbOverRestAsInProcess() {
        final QueryEngine engine = new QueryEngine();
        final Gateway remote = new Gateway(hdb, new RemoteRdbSource("http://127.0.0.1:" + port, Duration.ofSeconds(10)));
        final Gateway local = new Gateway(hdb, rdb);
        for (final String q : List.of(
            "{\"table\":\"trade\",\"dates\":{\"from\":\"2026-11-20\",\"to\":\"2026-11-21\"},\"where\":{\"sym\":[\"A\",\"B\","
                + "\"C\",\"D\"]},\"select\":{\"vwap\":{\"wavg\":[\"size\","
                + "\"price\"]},\"n\":{\"count\":\"*\"},\"med\":{\"median\":\"price\"},\"open\":{\"first\":\"price\"},"
                + "\"close\":{\"last\":\"price\"}},\"by\":[\"sym\"]}",
            "{\"table\":\"trade\",\"dates\":[\"2026-11-20\",\"2026-11-21\"],\"where\":{\"sym\":\"B\"},\"select\":{\"o\":{\"first\":"
                + "\"price\"},\"c\":{\"last\":\"price\"},\"v\":{\"sum\":\"size\"}},\"by\":{\"bar\":{\"xbar\":[\"7m\",\"time\"]}}}",
            "{\"table\":\"trade\",\"where\":{\"sym\":{\"in\":[\"C\",\"E\"]},\"time\":{\"within\":[\"2026-11-20T23:59:00Z\","
                + "\"2026-11-21T00:01:00Z\"]}},\"select\":[\"date\",\"time\",\"sym\",\"price\",\"bid\"],"
                + "\"asof\":{\"table\":\"quote\",\"select\":[\"bid\"]}}")) {
            final ResultTable viaRest = engine.query(q, remote);
            assertThat(viaRest.rowCount()).as(q).isPositive();
            assertThat(viaRest.rows()).as(q).isEqualTo(engine.query(q, local).rows());
            assertThat(viaRest.stats().segments()).isEqualTo(2);
        }
        final ResultTable n = engine.query("{\"table\":\"trade\",\"where\":{\"sym\":{\"!=\":\"E\"}},"
            + "\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"date\"}", remote);
        assertThat(n.rows()).containsExactly(
            List.of((long) TestTables.DAY1, YESTERDAY.stream().filter(t -> !t.sym().equals("E")).count()),
            List.of((long) TestTables.DAY2, TODAY.stream().filter(t -> !t.sym().equals("E")).count()));
    }

    /**
     * Grouped queries whose aggregates decompose run split: each side aggregates, the gateway merges.
     * Answers equal the in-process gateway's (doubles to 1e-12 relative: sums add in another order),
     * and today's 4000 trades never cross the wire as rows (the RDB would refuse more than 3999).
     */
    @Test
    void shouldSplitDecomposableAggregatesBetweenHdbAndRdb() {
        final QueryEngine engine = new QueryEngine();
        final Gateway remote = new Gateway(hdb, new RemoteRdbSource("http://127.0.0.1:" + port, Duration.ofSeconds(10)));
        final Gateway local = new Gateway(hdb, rdb);
        final String both = "\"dates\":{\"from\":\"2026-11-20\",\"to\":\"2026-11-21\"},";
        for (final String q : List.of(
            "{\"table\":\"trade\"," + both + "\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]},\"n\":{\"count\":\"*\"}},"
                + "\"by\":[\"sym\"]}",
            "{\"table\":\"trade\"," + both + "\"select\":{\"a\":{\"avg\":\"price\"},\"lo\":{\"min\":\"price\"},\"hi\":{\"max\":"
                + "\"size\"},\"t0\":{\"first\":\"time\"},\"t1\":{\"last\":\"time\"},\"s\":{\"last\":\"sym\"},\"v\":{\"sum\":"
                + "\"size\"},\"pv\":{\"sum\":{\"*\":[\"price\",\"size\"]}}},\"by\":[\"date\",\"sym\"]}",
            "{\"table\":\"trade\",\"fromDate\":\"2026-11-20\",\"where\":{\"size\":{\">\":50}},\"select\":{\"n\":{\"count\":\"*\"},"
                + "\"v\":{\"sum\":\"size\"}},\"by\":{\"bar\":{\"xbar\":[\"1h\",\"time\"]}},\"orderBy\":[\"-v\"],\"limit\":5}",
            "{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"},\"a\":{\"avg\":{\"-\":[\"price\",1.5]}}}}",
            "{\"table\":\"trade\",\"dates\":\"2026-11-21\",\"where\":{\"sym\":\"A\"},\"select\":{\"n\":{\"count\":\"*\"}},"
                + "\"by\":\"sym\"}",
            "{\"table\":\"trade\",\"dates\":\"2026-11-20\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}")) {
            final ResultTable split = engine.query(q, remote);
            final ResultTable one = engine.query(q, local);
            assertThat(split.rowCount()).as(q).isPositive().isEqualTo(one.rowCount());
            assertThat(split.columns()).as(q).isEqualTo(one.columns());
            assertThat(split.types()).as(q).isEqualTo(one.types());
            for (int r = 0; r < one.rowCount(); r++) {
                for (int c = 0; c < one.columns().size(); c++) {
                    final Object want = one.get(r, c);
                    final Object got = split.get(r, c);
                    if (want instanceof Double d) {
                        assertThat((Double) got).as(q + " row " + r + " col " + c).isCloseTo(d, within(Math.abs(d) * 1e-12));
                    } else {
                        assertThat(got).as(q + " row " + r + " col " + c).isEqualTo(want);
                    }
                }
            }
        }
        // no rows on either side: still the one row of an aggregate without by
        assertThat(engine.query("{\"table\":\"trade\",\"dates\":\"2001-01-01\",\"select\":{\"n\":{\"count\":\"*\"},\"lo\":"
            + "{\"min\":\"price\"}}}", remote).rows()).containsExactly(java.util.Arrays.asList(0L, null));
        // 8000 trades counted although the RDB answers at most 3999 rows: only group rows crossed the wire
        assertThat(engine.query("{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}}}", remote).rows())
            .containsExactly(List.of((long) YESTERDAY.size() + TODAY.size()));
    }

    @Test
    void shouldPassTheRdbsRowLimitAndOutageThroughWithTheirReasons() {
        final Gateway remote = new Gateway(hdb, new RemoteRdbSource("http://127.0.0.1:" + port, Duration.ofSeconds(10)));
        // a median needs every value: today's rows are fetched, and the RDB refuses more than 3999
        assertThatThrownBy(() -> new QueryEngine().query("{\"table\":\"trade\",\"select\":{\"m\":{\"median\":\"size\"}}}",
            remote))
            .isInstanceOf(QueryException.class)
            .hasMessageStartingWith("rdb: result over the row limit [rows>3999, maxRows=3999]")
            .extracting(e -> ((QueryException) e).reason()).isEqualTo(QueryException.Reason.TOO_LARGE);
        final Gateway down = new Gateway(hdb, new RemoteRdbSource("http://127.0.0.1:1", Duration.ofSeconds(2)));
        assertThatThrownBy(() -> new QueryEngine().query("{\"table\":\"trade\",\"dates\":\"2026-11-20\"}", down))
            .isInstanceOf(QueryException.class).hasMessageStartingWith("RDB unreachable [url=http://127.0.0.1:1/api/query")
            .extracting(e -> ((QueryException) e).reason()).isEqualTo(QueryException.Reason.UNAVAILABLE);
    }
}
