package io.jtick.lab.profiling;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Linux's scheduler statistics of one thread of this process ({@code /proc/self/task/<tid>/schedstat}):
 * CPU time, time spent runnable but waiting for a CPU (the run queue), and how many times it was
 * given a CPU. What the lab reports as the wait for a CPU per wake-up, the part of a latency that is
 * neither jtick's work nor the network's but the machine having fewer CPUs than runnable threads.
 * Elsewhere than Linux (or without schedstats) every read gives null.
 */
final class SchedStat {
    private SchedStat() {
    }

    /** The calling thread's kernel thread id, or -1 where {@code /proc/thread-self} does not exist. */
    static long currentTid() {
        try {
            final Path link = Files.readSymbolicLink(Path.of("/proc/thread-self"));
            return Long.parseLong(link.getFileName().toString());
        } catch (final IOException | UnsupportedOperationException | NumberFormatException e) {
            return -1;
        }
    }

    /** {cpuNanos, runQueueWaitNanos, timesScheduled} of thread {@code tid} of this process, or null. */
    static long[] read(final long tid) {
        if (tid < 0) {
            return null;
        }
        try {
            final String[] f = Files.readString(Path.of("/proc/self/task/" + tid + "/schedstat")).trim().split("\\s+");
            return f.length < 3 ? null : new long[] {Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2])};
        } catch (final IOException | NumberFormatException e) {
            return null;
        }
    }

    /** Mean microseconds a thread waited for a CPU each time it was given one, between two reads; null when unknown. */
    static Double waitMicrosPerRun(final long[] from, final long[] to) {
        if (from == null || to == null || to[2] <= from[2]) {
            return null;
        }
        return Math.round((to[1] - from[1]) / 1e3 / (to[2] - from[2]) * 10) / 10.0;
    }
}
