package io.jtick.lab.profiling;

import io.jtick.core.testing.LeakCheck;
import io.jtick.lab.report.PaperFigures;
import io.jtick.lab.run.RunReport;
import io.jtick.lab.run.RunSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A profiling run on a command line: a real one-entry run here, its progress lines, its exit status. */
@ExtendWith(LeakCheck.class)
class RunConsoleTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private ProfilingRun run(final Map<?, ?> entry) {
        final RunSpec spec = RunSpec.parse(Map.of("experiment", "subscribers", "durationSeconds", 1, "matrix", List.of(entry)));
        return new ProfilingRun(ProfilingRun.newId(spec), spec,
            ProfilingRun.Settings.defaults(dir.resolve("work"), PaperFigures.load(dir.resolve("none.csv"))).withJitWarmup(0), null);
    }

    @Test
    void shouldRunHereUntilTheEndPrintingEachStepOnce() {
        final ProfilingRun run = run(Map.of("r", 10, "subscribers", 1));
        final RunReport report = RunConsole.runHere(run, err);
        assertThat(run.ended()).isTrue();
        assertThat(report.status()).isEqualTo(RunReport.DONE);
        assertThat(report.rows()).hasSize(1);
        final List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).isNotEmpty().allMatch(l -> l.matches("\\[\\s*\\d+s] .+, about \\d+ s left"));
        assertThat(lines).anyMatch(l -> l.contains("entry 1/1 (")).doesNotHaveDuplicates();
    }

    @Test
    void shouldPrintAProgressLineOnlyWhenItChanges() {
        final RunReport before = run(Map.of("r", 1)).snapshot();
        final String first = RunConsole.progress(err, before, "");
        assertThat(first).isEqualTo("idle, 0/1 entries done");
        assertThat(RunConsole.progress(err, before, first)).isEqualTo(first);
        assertThat(bytes.toString(StandardCharsets.UTF_8).lines()).hasSize(1);
    }

    @Test
    void shouldExitZeroOnlyForARunThatIsDone() {
        assertThat(RunConsole.exitStatus(RunReport.DONE)).isZero();
        assertThat(RunConsole.exitStatus(RunReport.FAILED)).isEqualTo(1);
        assertThat(RunConsole.exitStatus(RunReport.STOPPED)).isEqualTo(1);
    }

    @Test
    void shouldGiveRunIdsThatNameTimeAndExperiment() {
        final RunSpec spec = RunSpec.parse(Map.of("experiment", "row-size"));
        assertThat(ProfilingRun.newId(spec)).matches("\\d{8}-\\d{6}-row-size-[0-9a-f]{4}");
    }
}
