package io.jtick.core.warmup;

import org.slf4j.Logger;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryUsage;

/**
 * One full collection after a one-off job that filled the heap (the start-up query warm-up, a
 * profiling run), so that what the job took goes back to the OS at once: the services run with a low
 * {@code -XX:MaxHeapFreeRatio}, and G1 shrinks the heap after a full collection. Without it the job's
 * garbage, promoted to the old generation, stays committed until enough other allocation brings mixed
 * collections, which an idle service never makes (docs/operations.md "Memory"). Call it only where a
 * stop-the-world pause (80-185 ms measured) hurts no one: on the job's own thread, when nothing
 * latency-sensitive runs in the process.
 */
public final class HeapReturn {
    private HeapReturn() {
    }

    /** Runs one full collection ({@link System#gc}) and logs its pause and the heap before and after, naming {@code job}. */
    public static void afterJob(final String job, final Logger log) {
        final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        final long before = memory.getHeapMemoryUsage().getCommitted();
        final long t0 = System.nanoTime();
        System.gc();
        final long ms = (System.nanoTime() - t0) / 1_000_000;
        final MemoryUsage after = memory.getHeapMemoryUsage();
        log.info("heap returned after {} [gcMs={}, committedMb={}->{}, usedMb={}]", job, ms, before >> 20, after.getCommitted() >> 20,
            after.getUsed() >> 20);
    }
}
