package io.jtick.core.hdb.write;

import io.jtick.core.hdb.format.TableMeta;
import io.jtick.core.hdb.store.PartitionStore;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.agrona.BufferUtil;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The threads of one partition write: the column writer threads ({@code parallelism} of them,
 * shared by its tables; with a parallelism of 1 each column is written on the calling thread as it
 * is submitted) and one sync thread that forces complete files to disk in the order they were
 * handed over ({@link #sync}) while the writer threads go on, and, for files written with direct
 * I/O, as many I/O threads that write one file's full staging buffer while its writer fills the
 * next ({@link #io}); {@link #awaitSynced} returns once
 * every file handed over so far is on disk and reports the first failure. No writer thread waits
 * on a flush.
 *
 * <p>Closing stops the writer threads and waits for them, then drops the files not yet forced,
 * interrupts the one being forced and waits for the sync thread (a write that failed does not
 * force the rest of its files): a failed write deletes its staging directory only once nothing
 * is being written into it.
 */
final class WriterPool implements AutoCloseable {
    private final ExecutorService sync = Executors.newSingleThreadExecutor(new DefaultThreadFactory("jtick-partition-sync", true));
    private final List<Future<?>> pending = new ArrayList<>();
    private final int threads;
    private final Map<Thread, ByteBuffer[]> lent = new ConcurrentHashMap<>();
    private final ExecutorService writers;
    /** Writes the full staging buffers of direct-I/O files while their writer threads fill the next; started when first asked for. */
    private ExecutorService io;

    /** One column's write, returning its meta. */
    @FunctionalInterface
    interface ColumnTask {
        TableMeta.ColumnMeta write() throws IOException;
    }

    WriterPool(final int threads) {
        this.threads = Math.max(1, threads);
        writers = threads <= 1 ? null : Executors.newFixedThreadPool(threads, new DefaultThreadFactory("jtick-partition-writer", true));
    }

    /** Writes the column on a writer thread, or at once on the calling thread (which then gets its failure first-hand). */
    Future<TableMeta.ColumnMeta> submit(final ColumnTask column) throws IOException {
        if (writers == null) {
            return CompletableFuture.completedFuture(column.write());
        }
        return writers.submit(column::write);
    }

    /** The threads that write direct-I/O files' full buffers (as many as writer threads). */
    synchronized Executor io() {
        if (io == null) {
            io = Executors.newFixedThreadPool(threads, new DefaultThreadFactory("jtick-partition-io", true));
        }
        return io;
    }

    /**
     * An aligned buffer of at least {@code bytes} bytes of direct memory for the calling writer
     * thread, kept for its next column (a whole plain column with direct I/O is built in one; a
     * fresh one per column would be zeroed and faulted in each time), freed on {@link #close}; null
     * when the JVM's direct memory ({@code -XX:MaxDirectMemorySize}) cannot hold it, and the column
     * is then written another way.
     */
    ByteBuffer lend(final int bytes, final int align) {
        ByteBuffer[] held = lent.get(Thread.currentThread());
        if (held != null && held[1].capacity() >= bytes && BufferUtil.address(held[1]) % align == 0) {
            return held[1];
        }
        if (held != null) {
            BufferUtil.free(held[0]);
        }
        lent.remove(Thread.currentThread());
        final ByteBuffer b;
        try {
            b = ByteBuffer.allocateDirect(bytes + align);
        } catch (final OutOfMemoryError e) {
            return null;
        }
        held = new ByteBuffer[] {b, b.alignedSlice(align)};
        lent.put(Thread.currentThread(), held);
        return held[1];
    }

    /** The column's meta, or what its writer threw. */
    static TableMeta.ColumnMeta await(final Future<TableMeta.ColumnMeta> column, final String table) throws IOException {
        try {
            return column.get();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while writing [table=" + table + "]", e);
        } catch (final ExecutionException e) {
            final Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IOException(cause);
        }
    }

    /** Hands a complete file to the sync thread. */
    synchronized void sync(final Path file) {
        pending.add(sync.submit(() -> {
            PartitionStore.fsyncFile(file);
            return null;
        }));
    }

    /** Waits until every file handed to {@link #sync} so far is on disk. */
    void awaitSynced() throws IOException {
        final List<Future<?>> all;
        synchronized (this) {
            all = List.copyOf(pending);
        }
        for (final Future<?> f : all) {
            try {
                f.get();
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while forcing the partition's files to disk", e);
            } catch (final ExecutionException e) {
                if (e.getCause() instanceof IOException io) {
                    throw io;
                }
                throw new IOException(e.getCause());
            }
        }
    }

    @Override
    public void close() {
        if (writers != null) {
            writers.shutdownNow();
            awaitStopped(writers);
        }
        final ExecutorService ioThreads;
        synchronized (this) {
            ioThreads = io;
        }
        if (ioThreads != null) {
            ioThreads.shutdown(); // each file's writer waited for its own writes before closing it
            awaitStopped(ioThreads);
        }
        for (final ByteBuffer[] b : lent.values()) {
            BufferUtil.free(b[0]);
        }
        lent.clear();
        sync.shutdownNow();
        awaitStopped(sync);
    }

    /**
     * Waits for a pool that was told to stop until its threads have ended: an interrupt of the
     * caller does not cut the wait short (it is kept for the caller), so that nothing still writes
     * into a directory the caller is about to delete.
     */
    private static void awaitStopped(final ExecutorService pool) {
        boolean interrupted = false;
        while (true) {
            try {
                if (pool.awaitTermination(1, TimeUnit.MINUTES)) {
                    break;
                }
            } catch (final InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
