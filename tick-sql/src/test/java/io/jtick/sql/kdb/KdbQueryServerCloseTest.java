package io.jtick.sql.kdb;

import io.jtick.core.kdb.KdbSettings;
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

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Closing the server closes every connection, the one whose client is hanging up at that very moment
 * included: before the server closed its connections itself, a connection whose end-of-stream
 * arrived as its event loop stopped stayed open (CLOSE_WAIT) in about one round in twenty-five.
 */
@ExtendWith(LeakCheck.class)
@LeakCheck.Options(ignoreThreads = "kdb-.*")
class KdbQueryServerCloseTest {
    private static final int ROUNDS = 60;

    @Test
    void shouldCloseAConnectionWhoseClientHangsUpAsTheServerCloses() throws Exception {
        final MemorySource source = SqlTestData.source(400);
        final SqlRunner runner = new SqlRunner(new QueryEngine(new TickMetrics(), QueryLimits.DEFAULT, 1), () -> 0L);
        for (int round = 0; round < ROUNDS; round++) {
            try (KdbQueryServer server = new KdbQueryServer(new KdbQuerySettings("127.0.0.1", KdbSettings.onPort(0), 1 << 16, 1, true),
                runner, source, () -> List.of(TableSchema.trade(0)), new TickMetrics(), "close")) {
                try (KdbTestClient c = new KdbTestClient(server.port(), "")) {
                    // answered on a worker, then written from the event loop: the client hangs up right after reading it
                    assertThat(c.sync("select n:count i by date from trade").type()).isNotNegative();
                }
            }
        }
    }
}
