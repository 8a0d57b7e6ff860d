package io.jtick.lab.profiling;

import io.jtick.lab.run.CpuUsage;
import io.jtick.lab.run.Figure;
import io.jtick.lab.run.LabParams;
import io.jtick.lab.run.RowResult;
import io.jtick.lab.run.RunReport;
import io.jtick.lab.run.RunSpec;
import io.jtick.lab.run.Window;
import io.jtick.core.feed.FeedStatus;
import io.jtick.core.feed.Pace;
import io.jtick.core.feed.RunSettings;
import io.jtick.core.metrics.LatencyStats;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.tp.PublishMode;
import io.jtick.core.time.NanoClock;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import static io.jtick.lab.run.RowResult.round;

/**
 * Runs one matrix entry: starts its {@link Lab}, lets the feed run a warm-up that no figure
 * includes, then measures in windows until the medians settle ({@link SettleRule}) after the
 * minimum time, or the maximum is reached; stops the feed, waits until every subscriber holds every
 * row sent, and tears the lab down. The caller's thread is the measuring thread: it wakes every
 * {@value #POLL_MILLIS} ms to check for a stop request or a failure, and once per window.
 */
final class LabRunner {
    private static final Logger LOG = LoggerFactory.getLogger(LabRunner.class);
    static final long POLL_MILLIS = 50;
    static final long BASE_WINDOW_MILLIS = 1000;
    private static final long DRAIN_MILLIS = 15_000;
    private static final String[] TP_FIGURES = {"tplog", "tppub", "tpupd", "tpflush", "tptimer"};

    private final Path workDir;
    private final NanoClock clock;
    private final SettleRule rule;
    private final double timingNanos;
    private final long seed;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private Consumer<Lab> onMeasuring = lab -> { };

    LabRunner(final Path workDir, final NanoClock clock, final SettleRule rule, final double timingNanos, final long seed) {
        this.workDir = workDir;
        this.clock = clock;
        this.rule = rule;
        this.timingNanos = timingNanos;
        this.seed = seed;
        if (threads.isThreadCpuTimeSupported() && !threads.isThreadCpuTimeEnabled()) {
            threads.setThreadCpuTimeEnabled(true);
        }
    }

    /** Test hook: called once measuring has begun (e.g. to take the tickerplant down). */
    void onMeasuring(final Consumer<Lab> hook) {
        this.onMeasuring = hook;
    }

    /**
     * JIT warm-up before the first entry: three throwaway labs (2 subscribers) take the feed at full
     * speed for a third of {@code millis} each: r=1 in zero latency, r=100 in timer publish and r=1
     * in timer log+publish, both with a 1 ms timer so the timer tick's own code (merge, journal of
     * the merged batch, publish) runs ~{@code millis / 3} times and is compiled too, as in a
     * tickerplant that has been up for minutes (at 100 ms it would tick 10 times a second and
     * stay interpreted through an 8 s entry). So the first entries are not measured in the
     * interpreter (an insert of 100 rows took ~550 µs interpreted against ~2 µs compiled; a 35 KB
     * journal append ~200 µs against ~17 µs after a 100 ms wait). kdb+ has no JIT; the paper ran
     * each test 1-2 minutes.
     */
    void warmJit(final long millis, final BooleanSupplier stop) {
        if (millis <= 0) {
            return;
        }
        // at least 1 ms a lab: a feed's maxDurationMillis of 0 means no limit
        final long each = Math.max(1, millis / 3);
        final boolean warm = burst(LabParams.of(1, 1, 1).withSubscribers(2), new RunSettings(1, 100, 1, Pace.MAX, 1, 0, each), stop)
            && burst(LabParams.of(100, 1, 1).withSubscribers(2).withMode(PublishMode.TIMER_PUBLISH, 1),
                new RunSettings(100, 10, 1, Pace.MAX, 1, 0, each), stop)
            && burst(LabParams.of(1, 10, 1).withSubscribers(2).withMode(PublishMode.TIMER_LOG_PUBLISH, 1),
                new RunSettings(1, 100, 1, Pace.MAX, 1, 0, each), stop);
        if (!warm && !stop.getAsBoolean()) {
            LOG.warn("JIT warm-up cut short after a lab failed (figures of the first entries may include interpreted code)");
        }
    }

    /** One warm-up lab; false when it failed or the run was asked to stop (the feed is then stopped at once). */
    private boolean burst(final LabParams p, final RunSettings feed, final BooleanSupplier stop) {
        if (stop.getAsBoolean()) {
            return false;
        }
        try (Lab lab = new Lab(p, workDir, clock, seed, 1024)) {
            lab.start();
            lab.startFeed(feed);
            final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(feed.maxDurationMillis() + 10_000);
            while (!lab.awaitFeedEnd(POLL_MILLIS)) {
                if (stop.getAsBoolean()) {
                    lab.stopFeed();
                    return false;
                }
                if (System.nanoTime() - end > 0) {
                    LOG.warn("JIT warm-up lab's feed still running 10 s past its duration; stopped [params={}]", p.asMap());
                    lab.stopFeed();
                    return false;
                }
            }
            // let the backlog drain so the lab closes with no write pending (and the drain path warms up too)
            drain(lab, lab.feedStatus().rowsSent(), 10_000, stop);
            return !stop.getAsBoolean();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (final Exception e) {
            LOG.warn("JIT warm-up lab failed (figures of the first entries may include interpreted code): {}", e.toString());
            return false;
        }
    }

    /** Window length for an entry: 1 s, or 20 feed/timer periods if longer, but at most a third of the measuring time. */
    static long windowMillis(final LabParams p, final long measureMillis) {
        final long period = p.publishMode() == PublishMode.ZERO_LATENCY ? p.t() : Math.max(p.t(), p.timerMillis());
        final long w = Math.max(BASE_WINDOW_MILLIS, 20 * period);
        return Math.max(100, Math.min(w, measureMillis / 3));
    }

    /** Warm-up: a quarter of the duration, at most 1 s. */
    static long warmupMillis(final int durationSeconds) {
        return Math.min(1000, durationSeconds * 250L);
    }

    /**
     * Measures one entry. Never throws: a failure comes back as a row with status failed, its
     * error, and whatever was measured before it.
     *
     * @param stop   true once the run is asked to stop
     * @param phase  told the phase as it changes (starting, warm-up, measuring, draining)
     */
    RowResult run(final int index, final LabParams p, final RunSpec spec, final BooleanSupplier stop, final Consumer<String> phase) {
        final long durationMillis = spec.durationSeconds() * 1000L;
        final long warmup = warmupMillis(spec.durationSeconds());
        final long maxMeasure = durationMillis - warmup;
        final long minMeasure = Math.max(0, spec.minSeconds() * 1000L - warmup);
        final long windowMillis = windowMillis(p, maxMeasure);
        final long expectedRows = (long) Math.ceil(p.targetRowsPerSecond() * (durationMillis + 1000) / 1000.0);
        final Measure m = new Measure();
        phase.accept("starting");
        try (Lab lab = new Lab(p, workDir, clock, seed, expectedRows)) {
            try {
                lab.start();
            } catch (final Exception e) {
                return m.failed(index, p, "lab did not start: " + e.getMessage(), RunReport.FAILED);
            }
            lab.startFeed();
            phase.accept("warm-up");
            final long t0 = System.nanoTime();
            String problem = waitUntil(lab, t0 + TimeUnit.MILLISECONDS.toNanos(warmup), stop);
            if (problem != null) {
                return m.failed(index, p, problem, stop.getAsBoolean() ? RunReport.STOPPED : RunReport.FAILED);
            }
            m.begin(lab, warmup / 1000.0);
            phase.accept("measuring");
            onMeasuring.accept(lab);
            final long end = m.start + TimeUnit.MILLISECONDS.toNanos(maxMeasure);
            final long windowNanos = TimeUnit.MILLISECONDS.toNanos(windowMillis);
            long nextWindow = m.start + windowNanos;
            while (true) {
                problem = waitUntil(lab, Math.min(nextWindow, end), stop);
                if (problem != null) {
                    break;
                }
                final long now = System.nanoTime();
                if (now >= nextWindow) {
                    m.window(lab, now);
                    nextWindow += windowNanos;
                    if (now - m.start >= TimeUnit.MILLISECONDS.toNanos(minMeasure) && rule.settled(m.windows)) {
                        m.settledAt = (now - m.start) / 1e9;
                        break;
                    }
                }
                if (now >= end) {
                    break;
                }
            }
            m.finish(lab);
            if (problem != null) {
                final FeedStatus f = lab.feedStatus();
                if (stop.getAsBoolean()) {
                    return m.row(index, p, lab, f, RunReport.STOPPED, problem, false);
                }
                if (lab.saturated()) {
                    final long limitMb = lab.server().tickerplant().settings().maxSubscriberBacklog() >> 20;
                    return m.row(index, p, lab, f, RowResult.SATURATED, "saturated: a subscriber fell " + limitMb
                        + " MB behind and the tickerplant dropped it (slow-subscriber policy): this rate is more than this"
                        + " machine captures; the figures cover the time before [" + problem + "]", false);
                }
                return m.row(index, p, lab, f, RunReport.FAILED, problem, false);
            }
            phase.accept("draining");
            final FeedStatus f = lab.stopFeed();
            final boolean delivered = drain(lab, f.rowsSent(), DRAIN_MILLIS + 2L * p.timerMillis(), () -> false);
            final String error = delivered ? null : "not every subscriber received every row within the drain time [rowsSent="
                + f.rowsSent() + ", rowsJournalled=" + lab.tpRows() + ", fewestReceived=" + minRows(lab) + "]";
            return m.row(index, p, lab, f, RunReport.DONE, error, true);
        } catch (final RuntimeException e) {
            LOG.warn("lab row failed [row={}, params={}]", index, p, e);
            return m.failed(index, p, "lab failed: " + e, RunReport.FAILED);
        }
    }

    /** Parks until {@code deadline}, checking every poll for a stop request or a problem; returns the problem or null. */
    private static String waitUntil(final Lab lab, final long deadline, final BooleanSupplier stop) {
        while (true) {
            if (stop.getAsBoolean()) {
                return "stopped on request";
            }
            final String problem = lab.problem();
            if (problem != null) {
                return problem;
            }
            final long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            LockSupport.parkNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS)));
        }
    }

    /** Waits until the TP and every subscriber hold {@code rowsSent} rows; false at the timeout or once {@code stop} says so. */
    private static boolean drain(final Lab lab, final long rowsSent, final long timeoutMillis, final BooleanSupplier stop) {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (System.nanoTime() < deadline && !stop.getAsBoolean()) {
            if (lab.tpRows() >= rowsSent && minRows(lab) >= rowsSent) {
                return true;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        return false;
    }

    private static long minRows(final Lab lab) {
        long min = Long.MAX_VALUE;
        for (final Lab.Sub s : lab.subs) {
            min = Math.min(min, s.rows);
        }
        return min == Long.MAX_VALUE ? 0 : min;
    }

    private static long maxRows(final Lab lab) {
        long max = 0;
        for (final Lab.Sub s : lab.subs) {
            max = Math.max(max, s.rows);
        }
        return max;
    }

    private static String tpName(final String figure) {
        return "tick.tp." + figure.substring(2);
    }

    /** The measuring state of one entry: baselines, windows, final histograms. */
    private final class Measure {
        final List<Window> windows = new ArrayList<>();
        long start;
        long stopNanos;
        double warmupSeconds;
        double settledAt;
        long tpRows0;
        long tpRows1;
        long[] cpu0;
        long[] cpu1;
        long sampler0;
        long sampler1;
        long[][] sched0;
        long[][] sched1;
        Histogram prevUpd;
        Histogram prevRecv;
        final Map<String, Figure> figures = new LinkedHashMap<>();
        long tpCounts;
        long rdbCounts;

        void begin(final Lab lab, final double warmup) {
            warmupSeconds = warmup;
            lab.resetLatencies();
            tpRows0 = lab.tpRows();
            cpu0 = cpuTimes(lab);
            sched0 = schedStats(lab);
            sampler0 = threads.getCurrentThreadCpuTime();
            start = System.nanoTime();
        }

        void window(final Lab lab, final long now) {
            final Histogram upd = lab.tpMetrics.latency("tick.tp.upd", "").snapshot();
            final Histogram recv = lab.subs.get(0).metrics.latency("tick.rdb.recv", "").snapshot();
            final Histogram wUpd = upd.copy();
            final Histogram wRecv = recv.copy();
            if (prevUpd != null) {
                wUpd.subtract(prevUpd);
                wRecv.subtract(prevRecv);
            }
            prevUpd = upd;
            prevRecv = recv;
            windows.add(new Window(Math.round((now - start) / 1e6) / 1000.0, wUpd.getTotalCount(), wRecv.getTotalCount(),
                median(wUpd), median(wRecv)));
        }

        void finish(final Lab lab) {
            stopNanos = System.nanoTime();
            cpu1 = cpuTimes(lab);
            sched1 = schedStats(lab);
            sampler1 = threads.getCurrentThreadCpuTime();
            tpRows1 = lab.tpRows();
            for (final String f : TP_FIGURES) {
                final Histogram h = lab.tpMetrics.latency(tpName(f), "").snapshot();
                tpCounts += h.getTotalCount();
                put(f, h);
            }
            final Lab.Sub first = lab.subs.get(0);
            final Lab.Sub last = lab.subs.get(lab.subs.size() - 1);
            final Histogram recv = first.metrics.latency("tick.rdb.recv", "").snapshot();
            final Histogram upd = first.metrics.latency("tick.rdb.upd", "").snapshot();
            rdbCounts = recv.getTotalCount() + upd.getTotalCount();
            put("rdbrecv", recv);
            put("rdbupd", upd);
            put("rdbrecv_last", last.metrics.latency("tick.rdb.recv", "").snapshot());
            put("rdbupd_last", last.metrics.latency("tick.rdb.upd", "").snapshot());
        }

        private void put(final String name, final Histogram h) {
            final Figure f = Figure.of(h);
            if (f != null) {
                figures.put(name, f);
            }
        }

        RowResult row(final int index, final LabParams p, final Lab lab, final FeedStatus f, final String status, final String error,
                      final boolean drained) {
            final double wall = Math.max(1, stopNanos - start);
            final double seconds = wall / 1e9;
            final int n = lab.subs.size();
            final double tp = pct(cpu0[0], cpu1[0], wall);
            final double rdb = pct(cpu0[1], cpu1[1], wall);
            final double rdbLast = pct(cpu0[n], cpu1[n], wall);
            double rdbAll = 0;
            for (int k = 1; k <= n; k++) {
                rdbAll += pct(cpu0[k], cpu1[k], wall);
            }
            final double feed = pct(cpu0[n + 1], cpu1[n + 1], wall) + pct(cpu0[n + 2], cpu1[n + 2], wall);
            final double sampler = pct(sampler0, sampler1, wall);
            final double tpTiming = tpCounts * timingNanos / wall * 100;
            final double rdbTiming = rdbCounts * timingNanos / wall * 100;
            final CpuUsage cpu = new CpuUsage(round(tp), round(rdb), round(rdbLast), round(rdbAll), round(feed), round(sampler),
                round(tpTiming), round(rdbTiming), round(timingNanos), SchedStat.waitMicrosPerRun(sched0[0], sched1[0]),
                SchedStat.waitMicrosPerRun(sched0[1], sched1[1]));
            final long rowsSent = f.rowsSent();
            final long journalled = lab.tpRows();
            final long minRecv = minRows(lab);
            final long maxRecv = maxRows(lab);
            final boolean complete = drained && error == null && journalled == rowsSent && minRecv == rowsSent && maxRecv == rowsSent;
            long clears = 0;
            for (final Lab.Sub s : lab.subs) {
                clears += s.clears;
            }
            return new RowResult(index, p, status, error, settledAt > 0, settledAt, warmupSeconds, round(seconds), rowsSent,
                f.updatesSent(), journalled, minRecv, maxRecv, complete, p.targetRowsPerSecond(), round((tpRows1 - tpRows0) / seconds),
                f.updatesSent() == 0 ? 0 : round((double) f.bytesSent() / f.updatesSent()), f.maxBehindScheduleMillis(), clears,
                figures, cpu, null, null, null, windows, null);
        }

        RowResult failed(final int index, final LabParams p, final String error, final String status) {
            return new RowResult(index, p, status, error, false, 0, warmupSeconds, 0, 0, 0, 0, 0, 0, false, p.targetRowsPerSecond(), 0,
                0, 0, 0, figures, null, null, null, null, windows, null);
        }

        private long[] cpuTimes(final Lab lab) {
            final int n = lab.subs.size();
            final long[] t = new long[n + 3];
            t[0] = cpu(lab.tpThread());
            for (int k = 0; k < n; k++) {
                t[k + 1] = cpu(lab.subs.get(k).threadId);
            }
            t[n + 1] = cpu(lab.feedThread());
            t[n + 2] = cpu(lab.feedIoThread());
            return t;
        }

        /** Scheduler statistics of the tickerplant thread and the first subscriber's. */
        private long[][] schedStats(final Lab lab) {
            return new long[][] {SchedStat.read(lab.tpTid()), SchedStat.read(lab.subs.get(0).tid)};
        }

        private long cpu(final long threadId) {
            if (threadId < 0) {
                return 0;
            }
            final long v = threads.getThreadCpuTime(threadId);
            return Math.max(0, v);
        }
    }

    private static double pct(final long from, final long to, final double wallNanos) {
        return to <= from ? 0 : (to - from) / wallNanos * 100;
    }

    private static Double median(final Histogram h) {
        return h.getTotalCount() == 0 ? null : Figure.micros(h.getValueAtPercentile(50));
    }

    /**
     * Cost of one timing as the engines do it ({@code System.nanoTime()} twice and a histogram
     * record), nanoseconds: after a warm-up, the lowest mean of five rounds of 200,000 timings on
     * this thread (the lowest, because other load on a shared machine only ever adds to it).
     */
    static double calibrateTimingNanos() {
        final LatencyStats stats = new TickMetrics().latency("calibration", "");
        long sink = 0;
        for (int i = 0; i < 200_000; i++) {
            final long a = System.nanoTime();
            stats.record(System.nanoTime() - a);
            sink += a;
        }
        final int n = 200_000;
        double best = Double.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            final long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                final long a = System.nanoTime();
                stats.record(System.nanoTime() - a);
                sink += a;
            }
            best = Math.min(best, (System.nanoTime() - t0) / (double) n);
        }
        if (sink == 42) {
            LOG.trace("calibration sink");
        }
        return best;
    }
}
