package io.jtick.rdb;

import io.jtick.core.query.Gateway;
import io.jtick.core.query.MemorySource;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.QueryException;
import io.jtick.core.query.RemoteRdbSource;
import io.jtick.core.query.ResultTable;
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

    @Test
    void shouldPassTheRdbsRowLimitAndOutageThroughWithTheirReasons() {
        final Gateway remote = new Gateway(hdb, new RemoteRdbSource("http://127.0.0.1:" + port, Duration.ofSeconds(10)));
        assertThatThrownBy(() -> new QueryEngine().query("{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}}}", remote))
            .isInstanceOf(QueryException.class)
            .hasMessageStartingWith("rdb: result over the row limit [rows>3999, maxRows=3999]")
            .extracting(e -> ((QueryException) e).reason()).isEqualTo(QueryException.Reason.TOO_LARGE);
        final Gateway down = new Gateway(hdb, new RemoteRdbSource("http://127.0.0.1:1", Duration.ofSeconds(2)));
        assertThatThrownBy(() -> new QueryEngine().query("{\"table\":\"trade\",\"dates\":\"2026-11-20\"}", down))
            .isInstanceOf(QueryException.class).hasMessageStartingWith("RDB unreachable [url=http://127.0.0.1:1/api/query")
            .extracting(e -> ((QueryException) e).reason()).isEqualTo(QueryException.Reason.UNAVAILABLE);
    }
}
