package io.jtick.feedsim;

import io.jtick.lab.run.LabParams;
import io.jtick.lab.run.RunReport;
import io.jtick.lab.run.RunSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RunStoreTest {
    @TempDir
    Path dir;

    private static RunReport report(final String id, final String status) {
        final RunSpec spec = new RunSpec("rows-per-update", 5, List.of(LabParams.of(1, 10, 1), LabParams.of(10, 1, 1)));
        return new RunReport(id, "rows-per-update", status, null, "2026-01-01T00:00:0" + id.charAt(id.length() - 1) + "Z", null, spec,
            new RunReport.Progress(0, 2, 1, "measuring", 1.5, 3, 12), List.of(), null, List.of());
    }

    @Test
    void shouldKeepRunsAcrossARestartAndFailTheOneThatWasRunning() throws Exception {
        final RunStore store = new RunStore(dir.resolve("runs"));
        store.save(report("run-1", RunReport.DONE));
        store.save(report("run-2", RunReport.RUNNING));
        Files.writeString(dir.resolve("runs").resolve("broken.json"), "{not json");

        final List<RunReport> loaded = new RunStore(dir.resolve("runs")).loadAll();
        assertThat(loaded).extracting(RunReport::id).containsExactly("run-1", "run-2");
        assertThat(loaded.get(0).status()).isEqualTo(RunReport.DONE);
        assertThat(loaded.get(0).spec().matrix()).containsExactly(LabParams.of(1, 10, 1), LabParams.of(10, 1, 1));
        final RunReport interrupted = loaded.get(1);
        assertThat(interrupted.status()).isEqualTo(RunReport.FAILED);
        assertThat(interrupted.reason()).contains("stopped before the run ended", "0 of 2 entries");
        assertThat(interrupted.endedAt()).isNotNull();
        assertThat(interrupted.progress().currentRow()).isZero();
        assertThat(new RunStore(dir.resolve("runs")).loadAll().get(1).status()).as("stored again as failed").isEqualTo(RunReport.FAILED);
        assertThat(new RunStore(dir.resolve("nothing-here")).loadAll()).isEmpty();
    }
}
