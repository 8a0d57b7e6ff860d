package io.jtick.rdb;

import io.jtick.boot.PgPort;
import io.jtick.boot.QueryEndpoint;
import io.jtick.core.client.FeedPublisher;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.rdb.RealtimeDatabase;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.Closer;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.time.NanoClock;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantSettings;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneOffset;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * SQL on the running rdb-service: {@code POST /api/sql} and the PostgreSQL port (pgJDBC) answer
 * the VWAP by sym over rows a real tickerplant published exactly as the engine answers the query
 * document.
 */
class RdbSqlIT {
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.builtIn(0);
    private static final TableSchema TRADE = SCHEMAS.get("trade");

    @TempDir
    Path dir;

    private final Closer closer = new Closer();

    @AfterEach
    void closeAll() throws Exception {
        closer.close();
    }

    @Test
    void shouldAnswerSqlOverRestAndThePostgresPortAsTheDocument() throws Exception {
        final TickerplantServer tp = closer.track(new TickerplantServer(TickerplantSettings.defaults(dir.resolve("journal")).withPort(0)
            .withEndOfDay(LocalTime.now(ZoneOffset.UTC).plusHours(12).withNano(0), ZoneOffset.UTC), SCHEMAS, NanoClock.SYSTEM,
            new TickMetrics()).start());
        final ConfigurableApplicationContext rdb = closer.track(new SpringApplicationBuilder(RdbApplication.class).run(
            "--server.port=0", "--server.address=127.0.0.1", "--tick.rdb.tp-port=" + tp.port(), "--tick.rdb.reconnect-delay=100ms",
            "--tick.rdb.pg-port=0"));
        final int port = Integer.parseInt(rdb.getEnvironment().getProperty("local.server.port"));
        await("subscribed", Duration.ofSeconds(30), rdb.getBean(RdbLifecycle.class)::subscribed);
        try (FeedPublisher feed = new FeedPublisher("127.0.0.1", tp.port(), "feed", null).connect(5000)) {
            for (int id = 1; id <= 50; id++) {
                final ByteBuf b = feed.alloc().directBuffer(256);
                TestSupport.trade(b, TRADE, id, System.currentTimeMillis() * 1_000_000L, "S0001", "S0002", "S0003");
                assertThat(feed.awaitWritable(10_000_000_000L)).isTrue();
                assertThat(feed.send(b)).isTrue();
            }
        }
        final RealtimeDatabase db = rdb.getBean(RealtimeDatabase.class);
        await("150 rows in the RDB", Duration.ofSeconds(30), () -> db.rowCount("trade") == 150);
        final ResultTable expected = rdb.getBean(QueryEndpoint.class).engine().query("{\"table\":\"trade\",\"select\":{\"vwap\":"
            + "{\"wavg\":[\"size\",\"price\"]},\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}", db);
        final String sql = "SELECT sym, sum(price * size) / sum(size) AS vwap, count(*) AS n FROM trade GROUP BY sym";

        final HttpResponse<String> csv = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
            + "/api/sql")).header("Accept", "text/csv").POST(HttpRequest.BodyPublishers.ofString(sql)).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(csv.statusCode()).isEqualTo(200);
        final StringBuilder want = new StringBuilder("sym,vwap,n\n");
        for (int r = 0; r < expected.rowCount(); r++) {
            want.append(expected.getString(r, 0)).append(',').append(expected.getDouble(r, 1)).append(',').append(expected.getLong(r, 2))
                .append('\n');
        }
        assertThat(csv.body()).isEqualTo(want.toString());

        final int pg = rdb.getBean(PgPort.class).port();
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + pg + "/rdb?user=jtick&binaryTransfer=true"
            + "&prepareThreshold=-1"); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            for (int r = 0; r < expected.rowCount(); r++) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo(expected.getString(r, 0));
                assertThat(rs.getDouble(2)).isEqualTo(expected.getDouble(r, 1));
                assertThat(rs.getLong(3)).isEqualTo(expected.getLong(r, 2));
            }
            assertThat(rs.next()).isFalse();
        }
    }
}
