package io.jtick.bench.pipeline;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time by thread role over a run's counted phase: where the work goes, in CPU time rather than
 * wall time, so that it reads the same on a loaded machine. Threads are grouped by name with the
 * trailing numbers removed ({@code tick-client-bench-rdb-2-7-1} → {@code tick-client-bench-rdb}), so
 * four subscribers add up to one role. The JVM's own threads, which are not Java threads, are read
 * from {@code /proc/self/task} (Linux; 10 ms ticks) as {@code gc} (G1's workers and concurrent
 * threads) and {@code jit} (the compilers). {@code process} is this JVM as a whole, {@code broker}
 * another process (Kafka's), both from {@link ProcessHandle}.
 */
final class CpuTimes {
    private final Map<Long, String> names = new TreeMap<>();
    private final Map<Long, Long> threadNanos = new TreeMap<>();
    private final long processNanos;
    private final long brokerNanos;
    private final long brokerPid;

    private CpuTimes(final long brokerPid) {
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
        this.brokerPid = brokerPid;
        this.brokerNanos = brokerPid > 0 ? ProcessHandle.of(brokerPid).map(CpuTimes::cpu).orElse(-1L) : -1;
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

    /** A snapshot now; {@code brokerPid} 0 when there is no other process to count. */
    static CpuTimes now(final long brokerPid) {
        return new CpuTimes(brokerPid);
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
     * {@code process} and {@code broker}; roles under 1% of the process are left out.
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
        if (brokerPid > 0 && brokerNanos >= 0 && start.brokerNanos >= 0) {
            out.put("broker", (brokerNanos - start.brokerNanos) / 1e3 / updates);
        }
        return out;
    }
}
