package io.jtick.bench.pipeline;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time by thread role over a run's counted phase: where the work goes, in CPU time rather than
 * wall time, so that it reads the same on a loaded machine. Threads are grouped by name with the
 * trailing numbers removed ({@code tick-client-bench-rdb-2-7-1} → {@code tick-client-bench-rdb}), so
 * four subscribers add up to one role. The JVM's own threads, which are not Java threads, are read
 * from {@code /proc/self/task} (Linux; 10 ms ticks) as {@code gc} (G1's workers and concurrent
 * threads) and {@code jit} (the compilers). {@code process} is this JVM as a whole; the system's own
 * processes ({@link Processes}: Kafka's brokers, a cluster's nodes in their own JVMs) count under
 * their role, all of them together ({@code broker}) and, when there are several, each on its own
 * ({@code broker-1}, {@code broker-2}, ...), all from {@link ProcessHandle}; {@code total} is this
 * JVM and those processes: the CPU the system spent per update.
 */
final class CpuTimes {
    /**
     * Processes of a system's own that do part of its work, counted under {@code role}.
     *
     * @param pids in a stable order (node 1 first), so that {@code role-k} names the same process in every run
     */
    record Processes(String role, List<Long> pids) {
        static final Processes NONE = new Processes("", List.of());

        Processes {
            pids = List.copyOf(pids);
        }
    }

    private final Map<Long, String> names = new TreeMap<>();
    private final Map<Long, Long> threadNanos = new TreeMap<>();
    private final long processNanos;
    private final Processes others;
    private final long[] otherNanos;

    private CpuTimes(final Processes others) {
        final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        if (mx.isThreadCpuTimeSupported()) {
            for (final java.lang.management.ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds())) {
                if (t == null) {
                    continue;
                }
                final long cpu = mx.getThreadCpuTime(t.getThreadId());
                if (cpu >= 0) {
                    names.put(t.getThreadId(), role(t.getThreadName()));
                    threadNanos.put(t.getThreadId(), cpu);
                }
            }
        }
        readJvmThreads(threadNanos, names);
        this.processNanos = cpu(ProcessHandle.current());
        this.others = others;
        this.otherNanos = others.pids().stream().mapToLong(pid -> ProcessHandle.of(pid).map(CpuTimes::cpu).orElse(-1L)).toArray();
    }

    /** Native ids start here, clear of Java thread ids. */
    private static final long NATIVE_IDS = 1L << 40;

    /** Adds the JVM's GC and compiler threads from /proc/self/task, keyed by native id; nothing off Linux. */
    private static void readJvmThreads(final Map<Long, Long> nanos, final Map<Long, String> roles) {
        final Path tasks = Path.of("/proc/self/task");
        if (!Files.isDirectory(tasks)) {
            return;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(tasks)) {
            for (final Path t : ds) {
                try {
                    final String comm = Files.readString(t.resolve("comm")).trim();
                    final String role = comm.startsWith("GC Thread") || comm.startsWith("G1 ") ? "gc"
                        : comm.startsWith("C1 Compiler") || comm.startsWith("C2 Compiler") ? "jit" : null;
                    if (role == null) {
                        continue;
                    }
                    final String stat = Files.readString(t.resolve("stat"));
                    final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    // after "pid (comm) ": state is field 3, utime 14 and stime 15 (1-based) -> indexes 11, 12
                    final long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                    final long id = NATIVE_IDS + Long.parseLong(t.getFileName().toString());
                    nanos.put(id, ticks * 10_000_000L);
                    roles.put(id, role);
                } catch (final IOException | RuntimeException ignored) {
                    // the thread ended between the listing and the read: nothing to count
                }
            }
        } catch (final IOException ignored) {
            // no per-thread accounting here: the named Java threads and the process total remain
        }
    }

    /** A snapshot now of this JVM and of {@code others} ({@link Processes#NONE} when the system has none). */
    static CpuTimes now(final Processes others) {
        return new CpuTimes(others);
    }

    /** Thread name without its trailing numbers (pool and thread indexes). */
    static String role(final String threadName) {
        final String s = threadName.replaceAll("(-\\d+)+$", "");
        final int bar = s.indexOf(" | ");
        return bar > 0 ? s.substring(0, bar) : s;
    }

    private static long cpu(final ProcessHandle p) {
        return p.info().totalCpuDuration().map(Duration::toNanos).orElse(-1L);
    }

    /**
     * CPU microseconds per update from {@code start} to this snapshot, by role, largest first, then
     * {@code process}, the other processes' role (together, then each when several) and {@code total};
     * roles under 1% of the process are left out, and so are the other processes when one of them could
     * not be read (it ended), and then {@code total} too.
     */
    Map<String, Double> microsPerUpdateSince(final CpuTimes start, final long updates) {
        final Map<String, Long> byRole = new TreeMap<>();
        for (final Map.Entry<Long, Long> e : threadNanos.entrySet()) {
            final Long before = start.threadNanos.get(e.getKey());
            final long d = e.getValue() - (before == null ? 0 : before);
            byRole.merge(names.get(e.getKey()), d, Long::sum);
        }
        final long process = processNanos - start.processNanos;
        final Map<String, Double> out = new LinkedHashMap<>();
        byRole.entrySet().stream().filter(e -> e.getValue() * 100 >= process)
            .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
            .forEach(e -> out.put(e.getKey(), e.getValue() / 1e3 / updates));
        out.put("process", process / 1e3 / updates);
        long othersTotal = 0;
        final long[] each = new long[otherNanos.length];
        boolean readable = others.pids().equals(start.others.pids());
        for (int i = 0; i < each.length && readable; i++) {
            readable = otherNanos[i] >= 0 && start.otherNanos[i] >= 0;
            each[i] = otherNanos[i] - start.otherNanos[i];
            othersTotal += each[i];
        }
        if (!readable) {
            return out;
        }
        if (each.length > 0) {
            out.put(others.role(), othersTotal / 1e3 / updates);
        }
        if (each.length > 1) {
            for (int i = 0; i < each.length; i++) {
                out.put(others.role() + "-" + (i + 1), each[i] / 1e3 / updates);
            }
        }
        out.put("total", (process + othersTotal) / 1e3 / updates);
        return out;
    }
}
