package io.jtick.bench.pipeline;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The untimed rounds before the timed runs: every system once per round, {@code --jit-warmup} rows as
 * fast as possible with one subscriber and, when the run has a latency phase, one paced second of it
 * (the same r and rate: the paced path compiles code the fast one does not, FEED_ACK per update
 * among it), until the compiler threads took at most {@link #SETTLED_PERCENT} % of the process's CPU
 * over a whole round, or {@code --jit-rounds} rounds. A fixed row count left the JIT at 8.6-15 µs of
 * CPU per update (a quarter to two fifths of the process's) in the first timed repeat. A round sends as
 * many rows as the timed throughput phase unless told otherwise: in rounds of 1M rows a subscriber never
 * fell far enough behind to be served from the journal, so the C2 code of the publish path was thrown
 * away and compiled again in the first timed repeat, when it first did (bench-jmh/README.md). Each run
 * of a round is shaped as a timed run: uncounted rows, the latencies reset, then counted rows. Without
 * the reset in the rounds, the timed run's reset was the first to flip the systems' HdrHistogram
 * recorders, whose {@code recordValue} then took a branch C2 had never seen: every compiled method that
 * inlines it (the tickerplant's update, the journal's append, the RDB's receive) was thrown away in the
 * first timed repeat. Each round's figures are printed as it ends ({@code warm-up round k: ...}): the
 * first round's rows/s are the first-run figures of a JVM that has compiled nothing.
 */
final class JitWarmup {
    /** The compilers' share of the process's CPU over a round under which compilation counts as done. */
    static final int SETTLED_PERCENT = 5;

    private JitWarmup() {
    }

    /**
     * Runs the rounds; returns the runs that failed (each also given to {@code each}), nothing else:
     * what is timed comes after.
     */
    static List<PipelineBenchmark.RunResult> run(final PipelineBenchmark.Options o, final Function<String, PipelineSystem> create,
                                                 final Consumer<PipelineBenchmark.RunResult> each) throws Exception {
        final List<PipelineBenchmark.RunResult> failed = new ArrayList<>();
        final List<Phase> phases = phases(o);
        for (int round = 1; round <= o.jitRounds(); round++) {
            final CpuTimes start = CpuTimes.now(CpuTimes.Processes.NONE);
            long updates = 0;
            final StringBuilder figures = new StringBuilder();
            for (final String name : o.systems()) {
                for (final Phase phase : phases) {
                    final PipelineBenchmark.RunResult res = PipelineBenchmark.runOne(create.apply(name), 1, phase, o, 0);
                    updates += phase.totalRows() / phase.r();
                    if (!res.ok()) {
                        each.accept(res);
                        failed.add(res);
                    } else if (!phase.paced()) {
                        figures.append(String.format(Locale.ROOT, " %s %.2fM rows/s;", name, res.rowsPerSecond() / 1e6));
                    }
                    System.gc();
                }
            }
            final Map<String, Double> cpu = CpuTimes.now(CpuTimes.Processes.NONE).microsPerUpdateSince(start, Math.max(1, updates));
            final double jit = cpu.getOrDefault("jit", 0.0);
            final double process = cpu.getOrDefault("process", 0.0);
            final boolean settled = settled(jit, process);
            System.out.printf(Locale.ROOT, "warm-up round %d:%s JIT %.1f of %.1f µs CPU per update (%.0f%%)%s%n", round, figures, jit,
                process, process > 0 ? 100 * jit / process : 0, settled ? ", settled" : "");
            if (settled || !failed.isEmpty()) {
                break;
            }
        }
        return failed;
    }

    /**
     * A round's runs, each shaped as a timed run is: rows that are not counted, then the latencies and the
     * systems' own histograms reset, then counted rows, so that the reset's code paths are compiled here too.
     */
    static List<Phase> phases(final PipelineBenchmark.Options o) {
        final long rows = Math.max(o.r(), o.jitWarmupRows() / o.r() * o.r());
        final long uncounted = Math.min(rows / 5, 2_000_000L) / o.r() * o.r();
        final List<Phase> phases = new ArrayList<>();
        phases.add(new Phase("jit-warmup", Math.max(o.r(), rows - uncounted), o.r(), 0, uncounted, o.batchBytes()));
        if (o.latencyRate() > 0 && o.rate() == 0) {
            final long half = Math.max(1, o.latencyRate() / 2) * (long) o.latencyR();
            phases.add(new Phase("jit-warmup-paced", half, o.latencyR(), o.latencyRate(), half, o.batchBytes()));
        }
        return phases;
    }

    /** Whether the compilers' {@code jit} CPU is at most {@link #SETTLED_PERCENT} % of the process's {@code process}. */
    static boolean settled(final double jit, final double process) {
        return jit * 100 <= process * SETTLED_PERCENT;
    }
}
