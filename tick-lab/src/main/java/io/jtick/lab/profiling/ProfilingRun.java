package io.jtick.lab.profiling;

import io.jtick.lab.machinecheck.IoExperiment;
import io.jtick.lab.machinecheck.ThroughputExperiment;
import io.jtick.lab.readthroughput.ReadThroughputLab;
import io.jtick.lab.readthroughput.TimeBaseFigures;
import io.jtick.lab.report.PaperFigures;
import io.jtick.lab.run.Experiment;
import io.jtick.lab.run.LabParams;
import io.jtick.lab.run.RowResult;
import io.jtick.lab.run.RunReport;
import io.jtick.lab.run.RunSpec;
import io.jtick.core.journal.Journal;
import io.jtick.core.wire.Transport;
import io.jtick.core.time.NanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One profiling run: runs each matrix entry of a {@link RunSpec} in a fresh {@link Lab}, in order,
 * on the thread that calls {@link #run()}, puts the white paper's figure next to each of ours, and
 * keeps a {@link RunReport} that any thread may read ({@link #snapshot()}) while it runs. It ends
 * done, stopped ({@link #stop()}: the current entry ends at once with what it measured), or failed
 * (an entry failed — the tickerplant went down, a subscriber lost its connection — which ends the
 * run; the entries before it and the failed entry's partial figures stay). {@code onChange} hears
 * the report when the run starts, after each entry and when it ends (the service stores it then).
 */
public final class ProfilingRun {
    private static final Logger LOG = LoggerFactory.getLogger(ProfilingRun.class);
    /** What starting and tearing down one lab adds to an entry's duration, roughly, for the time estimate. */
    private static final double SETUP_SECONDS = 1.5;
    private static final DateTimeFormatter ID_TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT);

    private final String id;
    private final RunSpec spec;
    private final Experiment experiment;
    private final Settings settings;
    private final Consumer<RunReport> onChange;
    private final String createdAt;
    private final CountDownLatch ended = new CountDownLatch(1);
    private final List<RowResult> rows = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final long createdNanos = System.nanoTime();
    private Consumer<Lab> onMeasuring = lab -> { };

    private volatile boolean stopRequested;
    private volatile String status = RunReport.RUNNING;
    private volatile String reason;
    private volatile String endedAt;
    private volatile int currentRow;
    private volatile String phase = "idle";
    private volatile long rowStartNanos;
    private volatile long endNanos;
    private volatile RunReport.Environment environment;

    /**
     * Where labs put their journals, the paper's figures, the feed's random seed and the clock.
     *
     * @param workDir         temporary journals go in subdirectories of this (deleted after each entry)
     * @param jitWarmupMillis  full-speed throwaway labs before the first entry so it is not measured in the interpreter; 0 = none
     * @param dataDir          the shared data folder (the replay experiment's real day is imported from it)
     */
    public record Settings(Path workDir, PaperFigures paper, long seed, NanoClock clock, long jitWarmupMillis, Path dataDir) {
        /** JIT warm-up before the first entry when none is given, ms. */
        public static final long DEFAULT_JIT_WARMUP_MILLIS = 2000;

        public static Settings defaults(final Path workDir, final PaperFigures paper) {
            return new Settings(workDir, paper, 42, NanoClock.SYSTEM, DEFAULT_JIT_WARMUP_MILLIS, Path.of("..", "shared", "data"));
        }

        public Settings withJitWarmup(final long millis) {
            return new Settings(workDir, paper, seed, clock, millis, dataDir);
        }
    }

    public ProfilingRun(final String id, final RunSpec spec, final Settings settings, final Consumer<RunReport> onChange) {
        this.id = id;
        this.spec = spec.validate();
        this.experiment = spec.kind();
        this.settings = settings;
        this.onChange = onChange == null ? r -> { } : onChange;
        this.createdAt = Instant.now().toString();
        // on the thread that asks for the run, before the run's own thread starts: a run asked for just before the JVM's
        // shutdown began would otherwise make the process's first journal during the shutdown, and fail
        Journal.loadRuntime();
    }

    public String id() {
        return id;
    }

    /** A new run id, {@code 20261121-142233-rows-per-update-3f2a}: start time, experiment, a random suffix. */
    public static String newId(final RunSpec spec) {
        return ID_TIME.format(LocalDateTime.now()) + "-" + spec.experiment() + "-"
            + Integer.toHexString(0x1000 + ThreadLocalRandom.current().nextInt(0xf000));
    }

    /** Test hook: called in each entry once measuring has begun. */
    void onMeasuring(final Consumer<Lab> hook) {
        this.onMeasuring = hook;
    }

    /** Adds a caveat to the report (e.g. that the service stopped its own feed for the run). */
    public void note(final String note) {
        synchronized (rows) {
            notes.add(note);
        }
    }

    /** Runs every entry on this thread; returns when the run has ended. */
    public void run() {
        final ReadThroughputLab replay = experiment == Experiment.REPLAY
            ? new ReadThroughputLab(settings.workDir(), settings.dataDir(), settings.seed()) : null;
        try {
            final boolean script = experiment.seedScript();
            final double timing = script ? 0 : LabRunner.calibrateTimingNanos();
            environment = script ? scriptEnvironment() : environment(timing);
            publish();
            final LabRunner runner = new LabRunner(settings.workDir(), settings.clock(), SettleRule.DEFAULT, timing, settings.seed());
            runner.onMeasuring(onMeasuring);
            if (!script && replay == null) {
                phase = "jit warm-up";
                runner.warmJit(settings.jitWarmupMillis(), () -> stopRequested);
            }
            phase = "idle";
            final List<LabParams> matrix = spec.matrix();
            for (int k = 0; k < matrix.size(); k++) {
                if (stopRequested) {
                    finish(RunReport.STOPPED, "stopped on request after " + k + " of " + matrix.size() + " entries");
                    return;
                }
                currentRow = k + 1;
                rowStartNanos = System.nanoTime();
                final LabParams p = matrix.get(k);
                LOG.info("profiling run entry [run={}, entry={}/{}, params={}]", id, k + 1, matrix.size(), p.asMap());
                final RowResult row = script ? script(k + 1, p)
                    : compare(replay != null ? replay.run(k + 1, p, () -> stopRequested, x -> phase = x)
                        : runner.run(k + 1, p, spec, () -> stopRequested, x -> phase = x));
                synchronized (rows) {
                    rows.add(row);
                    if (RowResult.SATURATED.equals(row.status())) {
                        notes.add("entry " + row.index() + " saturated: the tickerplant dropped a subscriber that fell behind; the run"
                            + " went on with the next entry");
                    }
                    if (RunReport.DONE.equals(row.status()) && !row.complete()) {
                        notes.add("entry " + row.index() + ": " + (row.error() != null ? row.error()
                            : "row counts do not match [rowsSent=" + row.rowsSent() + ", fewestReceived=" + row.rowsReceivedMin() + "]"));
                    }
                }
                currentRow = 0;
                phase = "idle";
                if (RunReport.STOPPED.equals(row.status())) {
                    finish(RunReport.STOPPED, "stopped on request during entry " + (k + 1) + " of " + matrix.size()
                        + " (its figures cover what was measured before the stop)");
                    return;
                }
                if (RunReport.FAILED.equals(row.status())) {
                    finish(RunReport.FAILED, "entry " + (k + 1) + " of " + matrix.size() + " failed: " + row.error());
                    return;
                }
                publish();
            }
            final long unsettled = rows.stream().filter(r -> !r.settled()).count();
            if (unsettled > 0) {
                note(unsettled + " of " + rows.size() + " entries reached durationSeconds before their medians settled (settled=false):"
                    + " their figures are what was measured, raise durationSeconds for steadier ones");
            }
            if (replay != null) {
                note(String.format(Locale.ROOT, "load average (1, 5, 15 min) at the end of the run: %s on %d cores: the machine's"
                    + " other work takes its share of the cores the replay and its consumers share; srvcpu + conscpu is what they got",
                    loadAverage(), Runtime.getRuntime().availableProcessors()));
                note("each entry is one replay of the whole day by every consumer (durationSeconds does not apply); the independent"
                    + " streams are the day's syms dealt out to the consumers, so together they read one day; TimeBase's independent"
                    + " streams are whole streams read by remote consumers of a 64-vCPU server");
            }
            finish(RunReport.DONE, null);
        } catch (final RuntimeException | Error e) {
            LOG.error("profiling run failed [run={}]", id, e);
            finish(RunReport.FAILED, "run failed: " + e);
        } finally {
            if (replay != null) {
                replay.close();
            }
        }
    }

    /**
     * The machine's load averages over 1, 5 and 15 minutes ({@code /proc/loadavg}'s first three fields,
     * "0.42 0.61 1.03"), or "unknown": figures measured on a shared machine need it beside them.
     */
    public static String loadAverage() {
        try {
            final String[] f = java.nio.file.Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (final java.io.IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /** One entry of a seed script's experiment (its measures carry KX's figures). */
    private RowResult script(final int index, final LabParams p) {
        if (experiment == Experiment.THROUGHPUT) {
            return new ThroughputExperiment().run(index, p, () -> stopRequested, x -> phase = x);
        }
        return new IoExperiment(settings.workDir()).run(index, p, () -> stopRequested, x -> phase = x);
    }

    private RowResult compare(final RowResult row) {
        if (experiment == Experiment.REPLAY) {
            return row;
        }
        final PaperFigures.Match match = settings.paper().match(experiment, row.params());
        if (match == null) {
            return row;
        }
        return row.withPaper(match.figures(), match.ref(), PaperFigures.ratios(row, match.figures()));
    }

    /** Asks the run to end; the current entry stops at its next check (within about 50 ms). */
    public void stop() {
        stopRequested = true;
    }

    /** True while the status is {@code running}; once it is final the lab is gone, though the report may still be saving. */
    public boolean active() {
        return RunReport.RUNNING.equals(status);
    }

    /** True once the run has ended and its final report has been handed to the listener (saved). */
    public boolean ended() {
        return ended.getCount() == 0;
    }

    public boolean awaitEnd(final long timeout, final TimeUnit unit) throws InterruptedException {
        return ended.await(timeout, unit);
    }

    private void finish(final String s, final String why) {
        endNanos = System.nanoTime();
        endedAt = Instant.now().toString();
        reason = why;
        status = s;
        currentRow = 0;
        phase = "idle";
        LOG.info("profiling run ended [run={}, status={}, entries={}, reason={}]", id, s, rows.size(), why);
        try {
            publish();
        } finally {
            ended.countDown();
        }
    }

    private void publish() {
        try {
            onChange.accept(snapshot());
        } catch (final RuntimeException e) {
            LOG.warn("run listener failed [run={}]: {}", id, e.toString());
        }
    }

    /** The run as it is now. */
    public RunReport snapshot() {
        final List<RowResult> done;
        final List<String> n;
        synchronized (rows) {
            done = List.copyOf(rows);
            n = List.copyOf(notes);
        }
        final long now = endNanos != 0 ? endNanos : System.nanoTime();
        final int total = spec.matrix().size();
        final int cur = currentRow;
        final double current = cur == 0 ? 0 : (now - rowStartNanos) / 1e9;
        final double remaining = RunReport.RUNNING.equals(status)
            ? Math.max(0, (total - done.size()) * (spec.durationSeconds() + SETUP_SECONDS) - current) : 0;
        final RunReport.Progress progress = new RunReport.Progress(done.size(), total, cur, phase, RowResult.round(current),
            RowResult.round((now - createdNanos) / 1e9), Math.round(remaining));
        return new RunReport(id, experiment.id(), status, reason, createdAt, endedAt, spec, progress, done, environment, n);
    }

    private RunReport.Environment scriptEnvironment() {
        return new RunReport.Environment(Runtime.getRuntime().availableProcessors(),
            System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")",
            System.getProperty("os.name") + " " + System.getProperty("os.arch"),
            Transport.isEpoll() ? "epoll" : "nio",
            "KX's machine-check script redone in this process: measurements on the run's thread (io's local comm: a tickerplant,"
                + " a feed and a subscriber connection on loopback, each on its own thread)",
            "not measured",
            "each figure is the median of its timed repeats",
            "one untimed repeat of each measurement before the timed ones",
            "KX performance tips (code.kx.com, throughput.q and io.q): the published figures, built in");
    }

    private RunReport.Environment environment(final double timingNanos) {
        final long window = LabRunner.BASE_WINDOW_MILLIS;
        final String java = System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")";
        final String os = System.getProperty("os.name") + " " + System.getProperty("os.arch");
        final String transport = Transport.isEpoll() ? "epoll" : "nio";
        if (experiment == Experiment.REPLAY) {
            return new RunReport.Environment(Runtime.getRuntime().availableProcessors(), java, os, transport,
                "in-process: an HDB in a temporary directory and its replay port on loopback; each consumer is its own TCP connection"
                    + " with its own event-loop thread (a TickClient) that checks time order and, by the row counter n, that every row"
                    + " arrives exactly once (the real day has no counter: by count); all in one JVM, no CPU pinning",
                "per-thread CPU time (ThreadMXBean.getThreadCpuTime) of the replay server's threads and of the consumers' threads"
                    + " over the replay's wall time, in % of one core",
                "none: an entry is one replay of the whole day by every consumer, timed from the first request to the last REPLAY_DONE",
                "one unmeasured replay of the first day with one consumer before the first entry (JIT)",
                TimeBaseFigures.SOURCE);
        }
        return new RunReport.Environment(Runtime.getRuntime().availableProcessors(), java, os, transport,
            "in-process: one tickerplant thread; each subscriber is its own TCP connection on loopback with its own event-loop thread"
                + " and RDB; the feed has its own thread; all in one JVM, no CPU pinning",
            String.format(Locale.ROOT, "per-thread CPU time (ThreadMXBean.getThreadCpuTime) of each role's threads over the measuring"
                + " wall time, in %% of one core. Overhead: timing code stays in (the paper removed it before measuring CPU); one"
                + " timing measured at %.1f ns, so tpTiming/rdbTiming = values recorded x %.1f ns / wall time; the measuring thread"
                + " itself is reported as sampler. Wait for a CPU (tp, first rdb): Linux schedstat run-queue wait over the times"
                + " the thread was given a CPU while measuring, in us", timingNanos, timingNanos),
            SettleRule.DEFAULT.describe(window),
            "JIT: " + settings.jitWarmupMillis() + " ms of full-speed throwaway labs (r=1 zero latency, r=100 timer publish and r=1"
                + " timer log+publish, both on a 1 ms timer) before the"
                + " first entry; each entry then runs a warm-up of a quarter of durationSeconds (at most 1 s) that no figure includes",
            settings.paper().available() ? settings.paper().source() + " (" + settings.paper().size() + " rows)"
                : settings.paper().source());
    }
}
