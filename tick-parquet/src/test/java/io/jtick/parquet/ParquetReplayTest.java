package io.jtick.parquet;

import io.jtick.core.feed.SyntheticDay;
import io.jtick.core.hdb.ops.TierPolicy;
import io.jtick.core.hdb.ops.TieringJob;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.replay.ReplayServer;
import io.jtick.core.replay.ReplaySettings;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.testing.ReplayRows;
import io.jtick.core.wire.ControlFrames;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The replay port streams a Parquet partition (trade and quote merged by time) row for row as it does jtick's own. */
@ExtendWith(LeakCheck.class)
class ParquetReplayTest {
    private static final LocalDate D1 = LocalDate.of(2026, 9, 1);

    @TempDir
    Path root;

    @Test
    void shouldReplayAParquetDayInTimeOrder() throws Exception {
        final MemorySegment trade = SyntheticDay.segment("trade", D1, 15_000, 20, 1);
        final MemorySegment quote = SyntheticDay.segment("quote", D1, 15_000, 20, 2);
        new PartitionWriter(root, EncodingPolicy.PLAIN, 65_536, 2, PartitionWriter.WriteHook.NONE).write(D1, List.of(trade, quote));
        final TickMetrics metrics = new TickMetrics();
        try (HistoricalDatabase hdb = new HistoricalDatabase(root, metrics)) {
            hdb.reload();
            new TieringJob(hdb, new TierPolicy(List.of(TierPolicy.Tier.parse("lake", -1, "parquet/zstd", Map.of(), Map.of()))), 65_536)
                .run(D1.plusDays(1));
            assertThat(hdb.partitions().get(0).tables()).extracting(HistoricalDatabase.TableInfo::format)
                .containsOnly("parquet/zstd");
            try (ReplayServer server = new ReplayServer(hdb, ReplaySettings.defaults(root).withWindowRows(2048).withThreads(2), metrics)
                .start()) {
                final ReplayRows.Consumer c = ReplayRows.replay(server.port(), ControlFrames.Replay.of(List.of("trade", "quote"),
                    (int) D1.toEpochDay(), (int) D1.toEpochDay()).withRowsPerUpdate(700));
                assertThat(c.rows).containsExactlyElementsOf(ReplayRows.expected(List.of(trade, quote), null));
            }
        }
    }
}
