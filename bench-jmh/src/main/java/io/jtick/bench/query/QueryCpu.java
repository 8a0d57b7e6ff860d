package io.jtick.bench.query;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * CPU time of each question on one system, for before/after comparisons on a busy machine: loads a
 * data set into one system, runs each question {@code repeats} times and prints the first run and
 * the median in CPU time of the calling thread. Run the jtick systems with
 * {@code -Djtick.bench.parallelism=1} so that all of a query's work is on that thread (the peers'
 * own threads are not counted: compare them in wall time with {@link QueryCheck}).
 * {@code QueryCpu <system> <rows|taq> <repeats> [QUESTION ...]}.
 */
public final class QueryCpu {
    private QueryCpu() {
    }

    public static void main(final String[] args) throws Exception {
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        final TickData d = "taq".equals(args[1]) ? TickData.load("taq", 0, 0) : TickData.load("synthetic", Integer.parseInt(args[1]), 1000);
        final int repeats = Integer.parseInt(args[2]);
        final List<BenchQuery> questions = new ArrayList<>();
        for (int i = 3; i < args.length; i++) {
            questions.add(BenchQuery.valueOf(args[i]));
        }
        try (QuerySystem s = QuerySystem.open(args[0], d)) {
            for (final BenchQuery q : questions.isEmpty() ? List.of(BenchQuery.values()) : questions) {
                final double[] ms = new double[repeats];
                long sink = 0;
                for (int r = 0; r < repeats; r++) {
                    final long c0 = threads.getCurrentThreadCpuTime();
                    sink += s.run(q);
                    ms[r] = (threads.getCurrentThreadCpuTime() - c0) / 1e6;
                }
                final double first = ms[0];
                Arrays.sort(ms);
                System.out.printf("%-8s %-14s first %8.3f  min %8.3f  median %8.3f cpu-ms%s%n", args[0], q, first, ms[0],
                    ms[repeats / 2], sink == 42 ? " " : "");
            }
        }
    }
}
