package io.jtick.bench.query;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A user's first queries, with and without a start-up cache ({@code ./jtick bench-first-queries}):
 * each system runs {@link QueryCheck} alone in a fresh JVM, so each question's first run is a
 * first run of that JVM, once without a cache and once mapping a cache recorded beforehand by a
 * training run on other data (fewer rows, other syms' counts): on Java 25+ an AOT cache with method
 * profiles (JEP 483/514/515), on 17-24 a dynamic CDS archive (classes only). Runs alternate
 * (plain, cached, plain, cached ...) and the table gives each cell's median over the runs, first
 * run and warm median side by side, DuckDB beside them in the same run. Each jtick JVM runs the
 * services' start-up query warm-up ({@code tick.query.warm-up}, see {@link JtickQuerySystem}) before
 * its first query, or not: {@code --warm-up on,off} runs both in turn (columns {@code s} and
 * {@code s/nowarm}), and the last row gives the warm-up's time, the start-up cost a service pays.
 *
 * <p>{@code FirstQueryBench [--rows N] [--syms N] [--runs N] [--repeats N] [--systems a,b] [--warm-up on,off] [--dir D]}
 */
public final class FirstQueryBench {
    private static final java.util.regex.Pattern WARM_UP = java.util.regex.Pattern.compile("warm-up ms ([0-9.]+)");

    private FirstQueryBench() {
    }

    public static void main(final String[] args) throws Exception {
        int rows = 1_000_000;
        int syms = 1000;
        int runs = 3;
        int repeats = 20;
        List<String> systems = List.of("jtick", "jtick-hdb", "jtick-hdb-lz4", "duckdb");
        Path dir = Path.of("target", "first-query-cache");
        List<String> warmUps = List.of("on");
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--rows" -> rows = Integer.parseInt(args[i + 1]);
                case "--syms" -> syms = Integer.parseInt(args[i + 1]);
                case "--runs" -> runs = Integer.parseInt(args[i + 1]);
                case "--repeats" -> repeats = Integer.parseInt(args[i + 1]);
                case "--systems" -> systems = Arrays.asList(args[i + 1].split(","));
                case "--dir" -> dir = Path.of(args[i + 1]);
                case "--warm-up" -> warmUps = Arrays.asList(args[i + 1].split(","));
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (known: --rows --syms --runs --repeats --systems --warm-up --dir)");
            }
        }
        final boolean aot = Runtime.version().feature() >= 25;
        Files.createDirectories(dir);
        System.out.printf("java %s: %s; %d rows, %d syms, %d runs of %d repeats, systems %s, warm-up %s%n", Runtime.version(),
                aot ? "AOT cache (classes, linking, method profiles)" : "dynamic CDS archive (classes)",
                rows, syms, runs, repeats, systems, warmUps);
        final Map<String, Path> caches = new LinkedHashMap<>();
        final int trainRows = Math.max(10_000, rows / 5);
        final int trainSyms = Math.max(10, syms / 2);
        for (final String s : systems) {
            if (s.startsWith("jtick")) {
                final Path cache = dir.resolve(s + (aot ? ".aot" : ".jsa"));
                Files.deleteIfExists(cache);
                final long t0 = System.nanoTime();
                // as ./jtick with JTICK_AOT=cds: before Java 21 a method still queued for the JIT when the recording
                // JVM exits is archived as queued and never compiled where the archive is mapped (JDK-8306460)
                run(aot ? List.of("-XX:AOTCacheOutput=" + cache) : Runtime.version().feature() >= 21
                        ? List.of("-XX:ArchiveClassesAtExit=" + cache)
                        : List.of("-XX:ArchiveClassesAtExit=" + cache, "-XX:-BackgroundCompilation"),
                        s, true, trainRows, trainSyms, 5);
                System.out.printf("%-14s cache recorded on %d rows, %d syms in %.1f s: %s (%d MB)%n", s, trainRows,
                        trainSyms, (System.nanoTime() - t0) / 1e9, cache, Files.size(cache) >> 20);
                caches.put(s, cache);
            }
        }
        // cell -> one value per run
        final Map<String, List<double[]>> plain = new LinkedHashMap<>();
        final Map<String, List<double[]>> cached = new LinkedHashMap<>();
        final List<String> columns = new ArrayList<>();
        for (final String s : systems) {
            for (final String w : s.startsWith("jtick") ? warmUps : List.of("on")) {
                columns.add(w.equals("off") ? s + "/nowarm" : s);
            }
        }
        for (int r = 0; r < runs; r++) {
            for (final String c : columns) {
                final String s = c.replace("/nowarm", "");
                final boolean warm = !c.endsWith("/nowarm");
                plain.computeIfAbsent(c, k -> new ArrayList<>()).add(run(List.of(), s, warm, rows, syms, repeats));
                final Path cache = caches.get(s);
                if (cache != null) {
                    cached.computeIfAbsent(c, k -> new ArrayList<>()).add(run(List.of(
                            aot ? "-XX:AOTCache=" + cache : "-XX:SharedArchiveFile=" + cache), s, warm, rows, syms, repeats));
                }
            }
        }
        final int n = BenchQuery.values().length;
        System.out.printf("%nms, median of %d runs: first run of a fresh JVM / warm median (of %d repeats)%n", runs, repeats);
        System.out.printf("%-14s", "question");
        for (final String s : columns) {
            System.out.printf(" %22s", s);
            if (cached.containsKey(s)) {
                System.out.printf(" %22s", s + "+cache");
            }
        }
        System.out.println();
        for (final BenchQuery q : BenchQuery.values()) {
            System.out.printf("%-14s", q);
            for (final String s : columns) {
                System.out.printf(" %22s", cell(plain.get(s), q.ordinal(), n));
                if (cached.containsKey(s)) {
                    System.out.printf(" %22s", cell(cached.get(s), q.ordinal(), n));
                }
            }
            System.out.println();
        }
        System.out.printf("%-14s", "warm-up ms");
        for (final String s : columns) {
            System.out.printf(" %22.0f", median(plain.get(s), 2 * n));
            if (cached.containsKey(s)) {
                System.out.printf(" %22.0f", median(cached.get(s), 2 * n));
            }
        }
        System.out.println();
    }

    private static String cell(final List<double[]> values, final int q, final int n) {
        return String.format("%.1f / %.2f", median(values, q), median(values, n + q));
    }

    private static double median(final List<double[]> values, final int i) {
        final double[] v = values.stream().mapToDouble(a -> a[i]).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** One QueryCheck in a fresh JVM with this JVM's options; returns its first runs, its medians, then its warm-up ms. */
    private static double[] run(final List<String> cacheFlags, final String system, final boolean warmUp, final int rows,
            final int syms, final int repeats) throws IOException, InterruptedException {
        final List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        for (final String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!a.startsWith("-XX:AOTCache") && !a.startsWith("-XX:SharedArchiveFile") && !a.startsWith("-XX:ArchiveClassesAtExit")
                    && !a.startsWith("-Djtick.bench.warm-up=")) {
                cmd.add(a);
            }
        }
        cmd.addAll(cacheFlags);
        cmd.add("-Djtick.bench.warm-up=" + warmUp);
        cmd.add(cacheFlags.isEmpty() ? "-Xshare:auto" : (cacheFlags.get(0).contains("AOT") ? "-Xlog:aot*=error" : "-Xlog:cds*=error"));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), QueryCheck.class.getName(), "synthetic",
                Integer.toString(rows), Integer.toString(syms), system, Integer.toString(repeats)));
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        final List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                lines.add(line);
            }
        }
        final int rc = p.waitFor();
        final int n = BenchQuery.values().length;
        final double[] out = new double[2 * n + 1];
        final int first = section(lines, "first ms");
        final int median = section(lines, "median ms");
        if (rc != 0 || first < 0 || median < 0) {
            throw new IllegalStateException("QueryCheck " + system + " " + cacheFlags + " exited " + rc + ":\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size())));
        }
        for (int q = 0; q < n; q++) {
            out[q] = value(lines.get(first + 1 + q), BenchQuery.values()[q]);
            out[n + q] = value(lines.get(median + 1 + q), BenchQuery.values()[q]);
        }
        for (final String line : lines) {
            final java.util.regex.Matcher m = WARM_UP.matcher(line);
            if (m.find()) {
                out[2 * n] = Double.parseDouble(m.group(1));
            }
        }
        return out;
    }

    private static int section(final List<String> lines, final String title) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(title)) {
                return i;
            }
        }
        return -1;
    }

    private static double value(final String line, final BenchQuery q) {
        final String[] parts = line.trim().split("\\s+");
        if (parts.length != 2 || !parts[0].equals(q.name())) {
            throw new IllegalStateException("unexpected QueryCheck line for " + q + ": " + line);
        }
        return Double.parseDouble(parts[1]);
    }
}
