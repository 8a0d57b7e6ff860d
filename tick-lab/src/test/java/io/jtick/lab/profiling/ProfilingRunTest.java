package io.jtick.lab.profiling;

import io.jtick.core.testing.LeakCheck;
import io.jtick.lab.report.PaperFigures;
import io.jtick.lab.report.PaperFiguresTest;
import io.jtick.lab.report.ResultTables;
import io.jtick.lab.run.Figure;
import io.jtick.lab.run.RowResult;
import io.jtick.lab.run.RunReport;
import io.jtick.lab.run.RunSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

/** Real labs on loopback, one or two short entries each: what a run measures, and how it fails and stops. */
@ExtendWith(LeakCheck.class)
class ProfilingRunTest {
    @TempDir
    Path dir;

    /** A run with a short JIT warm-up (0 skips it) so the suite stays quick. */
    private ProfilingRun run(final RunSpec spec, final List<RunReport> changes, final long jitWarmupMillis) {
        return new ProfilingRun("t-" + System.nanoTime(), spec,
            ProfilingRun.Settings.defaults(dir.resolve("work"), PaperFigures.load(PaperFiguresTest.referenceFile()))
                .withJitWarmup(jitWarmupMillis), changes::add);
    }

    private static RunSpec spec(final String experiment, final int seconds, final Map<?, ?>... entries) {
        return RunSpec.parse(Map.of("experiment", experiment, "durationSeconds", seconds, "matrix", List.of(entries)));
    }

    @Test
    void shouldMeasureEveryFigureAndDeliverEveryRowToEverySubscriber() throws Exception {
        final List<RunReport> changes = new CopyOnWriteArrayList<>();
        final ProfilingRun run = run(spec("custom", 1, Map.of("r", 10, "u", 2, "t", 1, "subscribers", 2),
            Map.of("r", 1, "u", 10, "t", 1, "mode", "timer-log-publish", "timer", 50)), changes, 200);
        run.run();
        final RunReport report = run.snapshot();
        assertThat(report.status()).as(ResultTables.text(report)).isEqualTo(RunReport.DONE);
        assertThat(report.rows()).hasSize(2);
        for (final RowResult r : report.rows()) {
            assertThat(r.complete()).as("entry %d: every subscriber got every row sent", r.index()).isTrue();
            assertThat(r.rowsSent()).isPositive().isEqualTo(r.rowsJournalled()).isEqualTo(r.rowsReceivedMin());
            assertThat(r.updatesSent()).isPositive();
            assertThat(r.messageBytes()).isPositive();
            assertThat(r.rowsPerSecond()).isPositive();
            assertThat(r.measuredSeconds()).isPositive();
            for (final String f : List.of("tplog", "tppub", "tpupd", "tpflush", "rdbrecv", "rdbupd", "rdbrecv_last", "rdbupd_last")) {
                assertThat(r.figures()).as("entry %d", r.index()).containsKey(f);
                final Figure x = r.figures().get(f);
                assertThat(x.count()).isPositive();
                assertThat(x.median()).as(f).isPositive();
                assertThat(x.max()).isGreaterThanOrEqualTo(x.p999()).isGreaterThanOrEqualTo(x.p99()).isGreaterThanOrEqualTo(x.median());
            }
            assertThat(r.cpu().tp()).isPositive();
            assertThat(r.cpu().rdb()).isPositive();
            assertThat(r.cpu().rdbAll()).isGreaterThanOrEqualTo(r.cpu().rdb());
            assertThat(r.cpu().timingNanos()).isPositive();
            if (java.nio.file.Files.exists(java.nio.file.Path.of("/proc/thread-self"))) {
                assertThat(r.cpu().tpCpuWait()).as("Linux schedstat: the TP thread's wait for a CPU").isNotNull().isNotNegative();
                assertThat(r.cpu().rdbCpuWait()).isNotNull().isNotNegative();
            }
            assertThat(r.windows()).isNotEmpty();
        }
        assertThat(report.rows().get(0).figures()).doesNotContainKey("tptimer");
        assertThat(report.rows().get(1).figures().get("tptimer").median()).as("timer flush in log+publish mode").isPositive();
        assertThat(report.rows().get(0).params().subscribers()).isEqualTo(2);
        assertThat(changes).extracting(RunReport::status).first().isEqualTo(RunReport.RUNNING);
        assertThat(changes.get(changes.size() - 1).status()).isEqualTo(RunReport.DONE);
        assertThat(report.environment().subscriberModel()).contains("own TCP connection");
        assertThat(report.progress().rowsDone()).isEqualTo(2);
        assertNoLabLeft();
    }

    @Test
    void shouldFailWithPartialResultsWhenTheTickerplantGoesDown() throws Exception {
        final ProfilingRun run = run(spec("rows-per-update", 1, Map.of("r", 10, "u", 1, "t", 1), Map.of("r", 100, "u", 1, "t", 10)),
            new CopyOnWriteArrayList<>(), 0);
        final int[] entry = {0};
        run.onMeasuring(lab -> {
            if (++entry[0] == 2) {
                lab.server().close();
            }
        });
        run.run();
        final RunReport report = run.snapshot();
        assertThat(report.status()).isEqualTo(RunReport.FAILED);
        assertThat(report.reason()).startsWith("entry 2 of 2 failed:").contains("tickerplant");
        assertThat(report.rows()).hasSize(2);
        assertThat(report.rows().get(0).status()).isEqualTo(RunReport.DONE);
        assertThat(report.rows().get(0).complete()).isTrue();
        final RowResult failed = report.rows().get(1);
        assertThat(failed.status()).isEqualTo(RunReport.FAILED);
        assertThat(failed.error()).contains("tickerplant");
        assertThat(failed.rowsSent()).as("partial figures of the failed entry").isPositive();
        assertThat(ResultTables.text(report)).contains("FAILED", "problems:", "entry 2 (failed)");
        assertNoLabLeft();
    }

    @Test
    void shouldStopOnRequestKeepingWhatWasMeasured() throws Exception {
        final ProfilingRun run = run(spec("subscribers", 30, Map.of("r", 10, "subscribers", 3), Map.of("r", 100)),
            new CopyOnWriteArrayList<>(), 0);
        final Thread t = new Thread(run::run, "test-run");
        t.start();
        await("measuring", Duration.ofSeconds(30), () -> "measuring".equals(run.snapshot().progress().currentPhase()));
        run.stop();
        assertThat(run.awaitEnd(20, TimeUnit.SECONDS)).isTrue();
        t.join();
        final RunReport report = run.snapshot();
        assertThat(report.status()).isEqualTo(RunReport.STOPPED);
        assertThat(report.reason()).contains("during entry 1 of 2");
        assertThat(report.rows()).hasSize(1);
        assertThat(report.rows().get(0).status()).isEqualTo(RunReport.STOPPED);
        assertThat(report.progress().elapsedSeconds()).isLessThan(30);
        assertNoLabLeft();
    }

    @Test
    void shouldStopDuringTheJitWarmUpWithoutMeasuringOrWarmingFurther() throws Exception {
        // a minute of warm-up, 20 s a lab: before, a stop was seen only once all three labs had run
        final ProfilingRun run = run(spec("rows-per-update", 1, Map.of("r", 10, "u", 1, "t", 1), Map.of("r", 100)),
            new CopyOnWriteArrayList<>(), 60_000);
        final Thread t = new Thread(run::run, "test-run");
        t.start();
        await("a warm-up lab's tickerplant running", Duration.ofSeconds(30),
            () -> "jit warm-up".equals(run.snapshot().progress().currentPhase()) && Thread.getAllStackTraces().keySet().stream()
                .anyMatch(th -> th.isAlive() && th.getName().startsWith("tickerplant")));
        run.stop();
        assertThat(run.awaitEnd(20, TimeUnit.SECONDS)).as("the run ends without finishing its warm-up").isTrue();
        t.join();
        final RunReport report = run.snapshot();
        assertThat(report.status()).isEqualTo(RunReport.STOPPED);
        assertThat(report.reason()).contains("after 0 of 2 entries");
        assertThat(report.rows()).isEmpty();
        assertNoLabLeft();
    }

    private void assertNoLabLeft() throws Exception {
        await("lab threads gone", Duration.ofSeconds(10), () -> Thread.getAllStackTraces().keySet().stream()
            .noneMatch(th -> th.isAlive() && (th.getName().startsWith("lab-") || th.getName().startsWith("tickerplant"))));
        try (var files = Files.list(dir.resolve("work"))) {
            assertThat(files.toList()).as("lab journals deleted").isEmpty();
        }
    }
}
