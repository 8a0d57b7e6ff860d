package io.jtick.sql.pg;

import io.jtick.core.auth.AccessSettings;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySource;
import io.jtick.core.testing.LeakCheck;
import io.jtick.sql.SqlRunner;
import io.jtick.sql.SqlTestData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Closing the server closes every connection, the one whose client is hanging up at that very moment
 * included (as {@code KdbQueryServerCloseTest} for the kdb+ port): a pgJDBC client queries, closes,
 * and the server closes right after, round after round.
 */
@ExtendWith(LeakCheck.class)
@LeakCheck.Options(ignoreThreads = "PostgreSQL-JDBC-.*|pg-.*|Cleaner-\\d+")
class PgServerCloseTest {
    private static final int ROUNDS = 40;

    @Test
    void shouldCloseAConnectionWhoseClientHangsUpAsTheServerCloses() throws Exception {
        final MemorySource source = SqlTestData.source(400);
        final SqlRunner runner = new SqlRunner(new QueryEngine(new TickMetrics(), QueryLimits.DEFAULT, 1), () -> 0L);
        for (int round = 0; round < ROUNDS; round++) {
            try (PgServer server = new PgServer(new PgSettings("127.0.0.1", 0, AccessSettings.DEFAULT, 1 << 20, 1), runner, source,
                () -> List.of(TableSchema.trade(0)), new TickMetrics(), "close")) {
                try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/jtick?user=jtick"
                    + "&preferQueryMode=simple");
                     Statement st = c.createStatement();
                     ResultSet rs = st.executeQuery("SELECT sym, count(*) AS n FROM trade GROUP BY sym")) {
                    assertThat(rs.next()).isTrue();
                }
            }
        }
    }
}
