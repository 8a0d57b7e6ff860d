package io.jtick.core.hdb.ops;

import io.jtick.core.feed.SyntheticDay;
import io.jtick.core.hdb.format.StoredTable;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.hdb.write.PartitionWriterTest;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Retention rules: parsed or refused naming the step, applied by the tiering job with a dry run and an audit log. */
@ExtendWith(LeakCheck.class)
class RetentionPolicyTest {
    private static final LocalDate D1 = LocalDate.of(2026, 1, 5);

    @TempDir
    Path root;

    @Test
    void shouldPickTheStepForEachAgeAndExpireAfterTheLast() {
        final RetentionPolicy r = RetentionPolicy.parse(TierPolicy.defaults(), Map.of("trade", "hot P7D, auto/lz4 P90D, cold P5Y, delete"));
        assertThat(r.tierFor("trade", D1, D1.plusDays(7)).name()).isEqualTo("hot");
        assertThat(r.tierFor("trade", D1, D1.plusDays(8)).name()).isEqualTo("auto/lz4");
        assertThat(r.tierFor("trade", D1, D1.plusYears(5)).name()).isEqualTo("cold");
        assertThat(r.expired("trade", D1, D1.plusYears(5))).isFalse();
        assertThat(r.expired("trade", D1, D1.plusYears(5).plusDays(1))).isTrue();
        assertThat(r.expired("quote", D1, D1.plusYears(50))).as("no rule: kept").isFalse();
        assertThat(r.tierFor("quote", D1, D1.plusDays(40)).name()).as("no rule: the tier policy").isEqualTo("cold");
    }

    @Test
    void shouldRefuseBadRulesNamingThem() {
        assertThatThrownBy(() -> RetentionPolicy.parse(TierPolicy.defaults(), Map.of("trade", "hot P30D, cold P7D")))
            .hasMessageContaining("overlapping ages").hasMessageContaining("table=trade").hasMessageContaining("step=cold P7D");
        assertThatThrownBy(() -> RetentionPolicy.parse(TierPolicy.defaults(), Map.of("trade", "hot P7D, tape P90D")))
            .hasMessageContaining("unknown tier").hasMessageContaining("step=tape P90D").hasMessageContaining("[hot, warm, cold]");
        assertThatThrownBy(() -> RetentionPolicy.parse(TierPolicy.defaults(), Map.of("quote", "hot 7 days")))
            .hasMessageContaining("table=quote");
        assertThatThrownBy(() -> RetentionPolicy.parse(TierPolicy.defaults(), Map.of("quote", "hot P7D, delete, cold P9D")))
            .hasMessageContaining("delete must be the last step");
    }

    @Test
    void shouldListInADryRunThenDeleteWhileAQueryFinishesOnTheOldFiles() throws Exception {
        final MemorySegment day = SyntheticDay.segment("trade", D1, 5_000, 5, 1);
        new PartitionWriter(root, EncodingPolicy.PLAIN, 4096, 2, PartitionWriter.WriteHook.NONE).write(D1, List.of(day));
        try (HistoricalDatabase hdb = new HistoricalDatabase(root, new TickMetrics())) {
            hdb.reload();
            final RetentionPolicy rule = RetentionPolicy.parse(TierPolicy.defaults(), Map.of("trade", "hot P7D, delete"));
            final TieringJob job = new TieringJob(hdb, rule, 4096);
            final TieringJob.Report dry = job.run(D1.plusDays(30), true);
            assertThat(dry.dryRun()).isTrue();
            assertThat(dry.deleted()).extracting(TieringJob.Deleted::table).containsExactly("trade");
            assertThat(hdb.dates()).as("a dry run changes nothing").containsExactly(D1);
            assertThat(Files.exists(root.resolve(TieringJob.AUDIT_FILE))).isFalse();

            final List<StoredTable> held = hdb.acquire("trade", D1, D1);
            final TieringJob.Report run = job.run(D1.plusDays(30));
            assertThat(run.deleted()).hasSize(1);
            assertThat(run.failed()).isEmpty();
            assertThat(hdb.dates()).isEmpty();
            assertThat(Files.exists(root.resolve(D1.toString()))).isFalse();
            assertThat(PartitionWriterTest.rowsAsStrings(held.get(0))).as("the running query reads on")
                .isEqualTo(PartitionWriterTest.rowsAsStrings(day));
            held.forEach(StoredTable::release);
            assertThat(Files.readString(root.resolve(TieringJob.AUDIT_FILE))).contains("\"action\":\"delete\"", "\"date\":\"2026-01-05\"",
                "\"table\":\"trade\"", "\"to\":\"hot P7D, delete\"");
        }
    }
}
