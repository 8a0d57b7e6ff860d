package io.jtick.lab.readthroughput;

import io.jtick.core.testing.LeakCheck;
import io.jtick.lab.profiling.ProfilingRun;
import io.jtick.lab.report.PaperFigures;
import io.jtick.lab.report.ResultChart;
import io.jtick.lab.report.ResultTables;
import io.jtick.lab.run.Experiment;
import io.jtick.lab.run.LabParams;
import io.jtick.lab.run.ReadThroughputFigures;
import io.jtick.lab.run.RowResult;
import io.jtick.lab.run.RunReport;
import io.jtick.lab.run.RunSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The replay experiment on a small synthetic day: one stream to 1 and 5 consumers, 4 independent streams, TimeBase beside each. */
@ExtendWith(LeakCheck.class)
class ReadThroughputLabTest {
    @TempDir
    Path dir;

    @Test
    void shouldMeasureOneStreamAndIndependentStreamsWithTimeBaseBesideThem() throws Exception {
        final RunSpec spec = RunSpec.parse(Map.of("experiment", "replay", "durationSeconds", 60, "matrix", List.of(
            Map.of("consumers", 1, "rows", 200_000, "syms", 40),
            Map.of("consumers", 5, "rows", 200_000, "syms", 40),
            Map.of("consumers", 4, "streams", 4, "rows", 200_000, "syms", 40, "encoding", "lz4"))));
        final ProfilingRun run = new ProfilingRun("t-replay", spec, ProfilingRun.Settings.defaults(dir.resolve("work"),
            PaperFigures.none("test")), null);
        run.run();
        final RunReport report = run.snapshot();
        final String text = ResultTables.text(report);
        assertThat(report.status()).as(text).isEqualTo(RunReport.DONE);
        assertThat(report.rows()).hasSize(3);
        for (final RowResult r : report.rows()) {
            final ReadThroughputFigures f = r.replay();
            assertThat(f).isNotNull();
            assertThat(f.inOrder()).isTrue();
            assertThat(f.exactlyOnce()).as("entry %d: every consumer got each of its rows once (row counter)", r.index()).isTrue();
            assertThat(f.dayRows()).isEqualTo(200_000);
            assertThat(f.rowsPerSecond()).isPositive();
            assertThat(f.perConsumer()).isPositive();
            assertThat(f.bytesPerRow()).isGreaterThan(37);
            assertThat(f.serverCpu()).isPositive();
            assertThat(r.complete()).isTrue();
        }
        final ReadThroughputFigures one = report.rows().get(0).replay();
        assertThat(one.rows()).isEqualTo(200_000);
        assertThat(one.timebase()).isEqualTo(1.03e6);
        assertThat(one.ratio()).isEqualTo(Math.round(one.rowsPerSecond() / 1.03e6 * 1000) / 1000.0);
        final ReadThroughputFigures five = report.rows().get(1).replay();
        assertThat(five.rows()).isEqualTo(5 * 200_000);
        assertThat(five.timebase()).isEqualTo(5.16e6);
        final ReadThroughputFigures independent = report.rows().get(2).replay();
        assertThat(independent.streams()).isEqualTo(4);
        assertThat(independent.rows()).as("the four streams share the day").isEqualTo(200_000);
        assertThat(independent.timebase()).isEqualTo(18.5e6);
        assertThat(independent.timebase2vcpu()).isEqualTo(6.3e6);
        assertThat(text).contains("TimeBase").contains("1,030,000").contains("18,500,000").contains("2 cores".replace("2",
            Integer.toString(Runtime.getRuntime().availableProcessors())));
        final String csv = ResultTables.csv(report);
        assertThat(csv.lines().count()).isEqualTo(4);
        assertThat(csv.lines().findFirst().orElseThrow()).contains("rows_per_s").contains("timebase_msg_per_s").contains("cores");
        assertThat(ResultChart.svg(report)).contains("TimeBase").contains("<polyline");
        try (var left = Files.list(dir.resolve("work"))) {
            assertThat(left.toList()).as("the lab's HDB is deleted").isEmpty();
        }
    }

    @Test
    void shouldRefuseUnknownReplayData() {
        assertThatThrownBy(() -> RunSpec.parse(Map.of("experiment", "replay", "matrix", List.of(Map.of("data", "bloomberg")))))
            .hasMessageContaining("unknown replay data");
        assertThatThrownBy(() -> RunSpec.parse(Map.of("experiment", "replay", "matrix", List.of(Map.of("encoding", "zip")))))
            .hasMessageContaining("bad encoding");
        assertThat(Experiment.REPLAY.defaultMatrix()).extracting(LabParams::subscribers).contains(1, 2, 5, 10, 4, 8, 16);
    }
}
