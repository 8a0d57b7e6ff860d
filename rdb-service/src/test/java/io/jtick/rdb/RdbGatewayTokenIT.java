package io.jtick.rdb;

import io.jtick.core.gateway.Gateway;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.model.QueryException;
import io.jtick.core.gateway.RemoteRdbSource;
import io.jtick.core.query.TestTables;
import io.jtick.core.table.MemorySource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An RDB that protects reads ({@code tick.api.protect-reads=true}, guarded as off loopback): the
 * gateway's {@link RemoteRdbSource} gets today's rows only with the token, and the RDB's replay (a
 * write) answers its own error only past the token check.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"tick.rdb.tp-port=1", "tick.rdb.reconnect-delay=5s", "tick.api.guard=always", "tick.api.token=rdb-t0ken",
        "tick.api.protect-reads=true"})
@Import(RdbGatewayIT.Today.class)
class RdbGatewayTokenIT {
    @LocalServerPort
    private int port;

    private final MemorySource hdb = new MemorySource().add(TestTables.tradeSegment(RdbGatewayIT.YESTERDAY, TestTables.DAY1, true))
        .table(TestTables.QUOTE);

    private static final String COUNT = "{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}}}";

    @Test
    void shouldGiveTheGatewayTodaysRowsOnlyWithTheToken() {
        final Gateway withToken = new Gateway(hdb, new RemoteRdbSource("http://127.0.0.1:" + port, Duration.ofSeconds(10), "rdb-t0ken"));
        assertThat(new QueryEngine().query(COUNT, withToken).rows())
            .containsExactly(List.of((long) RdbGatewayIT.YESTERDAY.size() + RdbGatewayIT.TODAY.size()));
        final Gateway without = new Gateway(hdb, new RemoteRdbSource("http://127.0.0.1:" + port, Duration.ofSeconds(10)));
        assertThatThrownBy(() -> new QueryEngine().query(COUNT, without)).isInstanceOf(QueryException.class).hasMessageContaining("401");
    }

    @Test
    void shouldAskForTheTokenToReplayADay() throws Exception {
        final HttpClient http = HttpClient.newHttpClient();
        final HttpRequest.Builder replay = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/eod/replay?date=2026-11-20"))
            .POST(HttpRequest.BodyPublishers.noBody());
        assertThat(http.send(replay.build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
        final HttpResponse<String> with = http.send(replay.header("Authorization", "Bearer rdb-t0ken").build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(with.statusCode()).isEqualTo(400);
        assertThat(with.body()).contains("end-of-day write-down is not configured");
        assertThat(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/status")).build(),
            HttpResponse.BodyHandlers.ofString()).statusCode()).as("reads protected too").isEqualTo(401);
    }
}
