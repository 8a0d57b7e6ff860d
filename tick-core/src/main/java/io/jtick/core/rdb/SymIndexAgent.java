package io.jtick.core.rdb;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The sym index's follower: a thread of its own that sorts each whole column chunk of the tables
 * given to it into their {@link SymIndex} as soon as the writer has filled it (the chunk's 128 KB of
 * sym ids still in a cache), so that a one-sym query finds the index built and catches up at most
 * the rows of the last, partly filled chunk, and the inserting thread pays nothing for the index.
 * It also adds the filled chunks to the table's rows per sym ({@link SymCounts}), in growing steps,
 * so that the first {@code count by sym} of the day counts at most about an eighth of the rows.
 * The writer hands a table over once per chunk it fills ({@link #offer}, at most one pending hand-over
 * per table); the agent indexes every whole chunk published by then ({@link RealtimeTable#indexWholeChunks})
 * under the index's lock, the one a query's catch-up takes, so each chunk is sorted once, by whichever
 * comes first. A table whose chunks went back to its pool is skipped. Without an agent the queries
 * build the whole index, as before.
 *
 * <p>Threads: {@link #offer} from the writers, the rest from any thread. {@link #close} stops the
 * thread (hand-overs still queued are dropped: the queries index those rows).
 */
public final class SymIndexAgent implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SymIndexAgent.class);
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final LinkedBlockingQueue<RealtimeTable> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private final AtomicLong failures = new AtomicLong();
    private volatile boolean closed;

    /** Starts the agent's thread (a daemon) named {@code threadName}. */
    public SymIndexAgent(final String threadName) {
        thread = new Thread(this::run, threadName);
        thread.setDaemon(true);
        thread.start();
    }

    /** Writer thread: {@code table} filled a chunk (the table keeps at most one hand-over pending). */
    void offer(final RealtimeTable table) {
        if (!closed) {
            queue.offer(table);
        }
    }

    private void run() {
        while (!closed) {
            final RealtimeTable table;
            try {
                table = queue.take();
            } catch (final InterruptedException e) {
                break;
            }
            try {
                table.indexWholeChunks();
            } catch (final RuntimeException e) {
                // a bug, not bad input: counted and logged; the queries index what this left out
                failures.incrementAndGet();
                LOG.error("sym index follower failed [table={}]", table.name(), e);
            }
        }
    }

    /** CPU time the agent's thread has used, ns (-1 when the JVM does not measure it). */
    public long cpuNanos() {
        return THREADS.getThreadCpuTime(thread.getId());
    }

    /** Hand-overs that failed with an error (each logged). */
    public long failures() {
        return failures.get();
    }

    /** Stops the thread and waits for it (up to 10 s: a chunk's sort takes well under a millisecond). */
    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        queue.clear();
    }
}
