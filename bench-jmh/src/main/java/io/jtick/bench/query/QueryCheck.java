package io.jtick.bench.query;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Loads one data set into every system, checks that all answer every question alike (exits 1 and
 * says what differs if not), then times each question a few times: the quick look before a JMH
 * run. {@code QueryCheck [synthetic|taq] [rows] [syms] [systems,comma,separated] [repeats]}; systems
 * as {@link QuerySystem#open}: jtick, jtick-parted, jtick-hdb, jtick-hdb-lz4, jtick-hdb-parquet, duckdb, duckdb-parquet, questdb.
 *
 * <p>Two tables: "first ms", each question's first run on each system, timed right after that
 * system loaded and before anything else ran on it (a user's first queries once the service is up:
 * each jtick kind, the RDB's and the HDBs', waits for its own start-up warm-up, as rdb-service and
 * hdb-service do; the jtick systems after the first of their kind find code the first one compiled:
 * run one system per JVM, as {@code FirstQueryBench} does, for cold figures),
 * and "median ms", the median of {@code repeats} runs after the answers were compared.
 */
public final class QueryCheck {
    private QueryCheck() {
    }

    public static void main(final String[] args) throws Exception {
        final String dataset = args.length > 0 ? args[0] : "synthetic";
        final int rows = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
        final int syms = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
        final List<String> names = args.length > 3 ? Arrays.asList(args[3].split(",")) : List.of("jtick", "duckdb", "questdb");
        final int repeats = args.length > 4 ? Integer.parseInt(args[4]) : 20;
        long t0 = System.nanoTime();
        final TickData data = TickData.load(dataset, rows, syms);
        System.out.printf("%s loaded in %.1f s%n", data, (System.nanoTime() - t0) / 1e9);
        final List<QuerySystem> systems = new ArrayList<>();
        int bad = 0;
        try {
            final double[][] first = new double[names.size()][BenchQuery.values().length];
            for (final String n : names) {
                t0 = System.nanoTime();
                final QuerySystem s = QuerySystem.open(n, data);
                systems.add(s);
                System.out.printf("%-12s loaded in %.1f s%n", n, (System.nanoTime() - t0) / 1e9);
                for (final BenchQuery q : BenchQuery.values()) {
                    final long s0 = System.nanoTime();
                    final long sum = s.run(q);
                    first[systems.size() - 1][q.ordinal()] = (System.nanoTime() - s0) / 1e6 + (sum == 42 ? 1e-9 : 0);
                }
            }
            for (final BenchQuery q : BenchQuery.values()) {
                final Answer ref = systems.get(0).answer(q);
                for (int i = 1; i < systems.size(); i++) {
                    final String diff = ref.difference(systems.get(i).answer(q));
                    if (diff != null) {
                        bad++;
                        System.out.printf("MISMATCH %s %s vs %s: %s%n", q, systems.get(0).name(), systems.get(i).name(), diff);
                    }
                }
                System.out.printf("%-14s %s%n", q, ref);
            }
            System.out.printf("%n%-14s", "first ms");
            for (final QuerySystem s : systems) {
                System.out.printf(" %12s", s.name());
            }
            System.out.println();
            for (final BenchQuery q : BenchQuery.values()) {
                System.out.printf("%-14s", q);
                for (int i = 0; i < systems.size(); i++) {
                    System.out.printf(" %12.3f", first[i][q.ordinal()]);
                }
                System.out.println();
            }
            System.out.printf("%n%-14s", "median ms");
            for (final QuerySystem s : systems) {
                System.out.printf(" %12s", s.name());
            }
            System.out.println();
            for (final BenchQuery q : BenchQuery.values()) {
                System.out.printf("%-14s", q);
                for (final QuerySystem s : systems) {
                    final long[] ns = new long[repeats];
                    long sink = 0;
                    for (int r = 0; r < repeats; r++) {
                        final long s0 = System.nanoTime();
                        sink += s.run(q);
                        ns[r] = System.nanoTime() - s0;
                    }
                    Arrays.sort(ns);
                    System.out.printf(" %12.3f", ns[repeats / 2] / 1e6 + (sink == 42 ? 1e-9 : 0));
                }
                System.out.println();
            }
        } finally {
            for (final QuerySystem s : systems) {
                s.close();
            }
        }
        if (bad > 0) {
            System.out.println(bad + " answers differ");
            System.exit(1);
        }
    }
}
