package io.jtick.bench.pipeline;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time by thread role over a run's counted phase: where the work goes, in CPU time rather than
 * wall time, so that it reads the same on a loaded machine. Threads are grouped by name with the
 * trailing numbers removed ({@code tick-client-bench-rdb-2-7-1} → {@code tick-client-bench-rdb}), so
 * four subscribers add up to one role. {@code process} is this JVM as a whole (GC and JIT included),
 * {@code broker} another process (Kafka's), both from {@link ProcessHandle}.
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
        this.processNanos = cpu(ProcessHandle.current());
        this.brokerPid = brokerPid;
        this.brokerNanos = brokerPid > 0 ? ProcessHandle.of(brokerPid).map(CpuTimes::cpu).orElse(-1L) : -1;
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
