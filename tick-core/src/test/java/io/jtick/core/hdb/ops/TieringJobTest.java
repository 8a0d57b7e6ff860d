package io.jtick.core.hdb.ops;

import io.jtick.core.hdb.format.StoredTable;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.hdb.write.PartitionWriterTest;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.feed.SyntheticDay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Tier moves on a live HDB: re-encoded by age, swapped in while readers hold the old files. */
@ExtendWith(LeakCheck.class)
class TieringJobTest {
    private static final LocalDate D1 = LocalDate.of(2026, 9, 1);

    @TempDir
    Path root;

    private final TickMetrics metrics = new TickMetrics();
    private HistoricalDatabase hdb;

    @AfterEach
    void close() {
        if (hdb != null) {
            hdb.close();
        }
    }

    private MemorySegment write(final LocalDate date, final int rows, final long seed) throws IOException {
        final MemorySegment trade = SyntheticDay.segment("trade", date, rows, 20, seed);
        new PartitionWriter(root, EncodingPolicy.PLAIN, 4096, 2, PartitionWriter.WriteHook.NONE).write(date, List.of(trade));
        return trade;
    }

    @Test
    void shouldMoveTiersWhileAQueryHoldsTheOldFiles() throws IOException {
        final MemorySegment day = write(D1, 20_000, 1);
        hdb = new HistoricalDatabase(root, metrics);
        hdb.reload();
        final List<StoredTable> held = hdb.acquire("trade", D1, D1);
        assertThat(held).hasSize(1);
        final StoredTable old = held.get(0);

        final TierPolicy policy = TierPolicy.defaults();
        final TieringJob job = new TieringJob(hdb, policy, 8192);
        assertThat(job.run(D1.plusDays(2)).moved()).as("hot partition stays").isEmpty();
        final TieringJob.Report report = job.run(D1.plusDays(40));
        assertThat(report.failed()).isEmpty();
        assertThat(report.moved()).extracting(TieringJob.Moved::tier).containsExactly("cold");
        assertThat(report.moved().get(0).bytesAfter()).isLessThan(report.moved().get(0).bytesBefore());
        final Map<String, String> encodings = new java.util.TreeMap<>();
        hdb.partitions().get(0).tables().get(0).columns().forEach(c -> encodings.put(c.name(), c.encoding()));
        assertThat(encodings.get("sym")).isEqualTo("none");
        assertThat(encodings.get("price")).endsWith("zstd:3");
        assertThat(job.run(D1.plusDays(41)).moved()).as("already in tier").isEmpty();

        // the query that started before the swap still reads every row of the old files
        assertThat(PartitionWriterTest.rowsAsStrings(old)).isEqualTo(PartitionWriterTest.rowsAsStrings(day));
        old.release();
        assertThatThrownBy(() -> old.read(2, 0, 1, new ColumnChunk())).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("closed");
        // and the new files hold the same rows
        final List<StoredTable> fresh = hdb.acquire("trade", D1, D1);
        assertThat(PartitionWriterTest.rowsAsStrings(fresh.get(0))).isEqualTo(PartitionWriterTest.rowsAsStrings(day));
        fresh.forEach(StoredTable::release);
        try (var left = Files.list(root.resolve("2026-09-01"))) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactly("trade");
        }
    }
}
