package io.jtick.core.hdb.write;

import io.jtick.core.hdb.format.TableMeta;
import io.jtick.core.hdb.store.PartitionStore;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.agrona.BufferUtil;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The threads of one partition write: the column writer threads ({@code parallelism} of them,
 * shared by its tables; with a parallelism of 1 each column is written on the calling thread as it
 * is submitted) and one sync thread that forces complete files to disk in the order they were
 * handed over ({@link #sync}) while the writer threads go on, and, for files written with direct
 * I/O, as many I/O threads that write one file's full staging buffer while its writer fills the
 * next ({@link #io}), or a whole column built in a buffer the pool lends ({@link #lend}, at most one
 * more than the writer threads) while its writer builds the next ({@link #finishBehind});
 * {@link #awaitSynced} returns once every file handed over so far is on disk and reports the first
 * failure. No writer thread waits on a flush.
 *
 * <p>Closing stops the writer threads and waits for them and for the I/O threads (whose writes
 * read the lent buffers, freed after), then drops the files not yet forced,
 * interrupts the one being forced and waits for the sync thread (a write that failed does not
 * force the rest of its files): a failed write deletes its staging directory only once nothing
 * is being written into it.
 */
final class WriterPool implements AutoCloseable {
    private final ExecutorService sync = Executors.newSingleThreadExecutor(new DefaultThreadFactory("jtick-partition-sync", true));
    private final List<Future<?>> pending = new ArrayList<>();
    private final int threads;
    /** Whole-column buffers ({@link #lend}): aligned slice → its allocation, free ones and lent ones. */
    private final Map<ByteBuffer, ByteBuffer> buffers = new IdentityHashMap<>();
    private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
    /** Buffers being allocated outside the lock ({@link #lend}, {@link #preallocate}), counted against the bound. */
    private int allocating;
    /** Files being finished on an I/O thread ({@link #finishBehind}), which their force waits for. */
    private final Map<Path, Future<?>> behind = new ConcurrentHashMap<>();
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

    /** True when columns are written on writer threads (not on the submitting thread). */
    boolean parallel() {
        return writers != null;
    }

    /** The threads that write direct-I/O files' full buffers (as many as writer threads). */
    synchronized Executor io() {
        if (io == null) {
            io = Executors.newFixedThreadPool(threads, new DefaultThreadFactory("jtick-partition-io", true));
        }
        return io;
    }

    /**
     * An aligned buffer of at least {@code bytes} bytes of direct memory, in which a writer thread
     * builds a whole plain column for direct I/O; given back ({@link #giveBack}) once the column is
     * on its way to the device, and reused (a fresh one per column would be zeroed and faulted in
     * each time). At most one more than the writer threads are out at a time (bounded memory: one
     * column being written behind while each thread builds the next): past that, a writer waits
     * for one to come back. Null when the JVM's direct memory ({@code -XX:MaxDirectMemorySize})
     * cannot hold one and none is out to wait for: the column is then written another way.
     */
    ByteBuffer lend(final int bytes, final int align) throws IOException {
        while (true) {
            synchronized (this) {
                final ByteBuffer b = takeFree(bytes, align);
                if (b != null) {
                    return b;
                }
                if (!free.isEmpty() && buffers.size() + allocating > threads) {
                    BufferUtil.free(buffers.remove(free.pollFirst())); // too small: make room for a larger one
                }
                if (buffers.size() + allocating > threads) {
                    awaitChange();
                    continue;
                }
                allocating++;
            }
            final ByteBuffer aligned = allocate(bytes, align);
            if (aligned != null) {
                return aligned;
            }
            synchronized (this) {
                if (buffers.size() == free.size()) {
                    return null;
                }
                awaitChange();
            }
        }
    }

    /**
     * Allocates up to {@code count} buffers of {@code bytes} on the writer threads, queued before the
     * columns submitted after this call: the writer threads allocate (zero and fault in) them while
     * the caller sorts the table. Nothing when the pool has no writer threads, already holds
     * buffers or is allocating one, or {@code bytes} is 0.
     */
    void preallocate(final int bytes, final int align, final int count) {
        if (writers == null || bytes <= 0) {
            return;
        }
        final int n;
        synchronized (this) {
            n = buffers.isEmpty() && allocating == 0 ? Math.min(count, threads) : 0;
            allocating += n;
        }
        for (int i = 0; i < n; i++) {
            try {
                writers.execute(() -> {
                    final ByteBuffer b = allocate(bytes, align);
                    if (b != null) {
                        giveBack(b);
                    }
                });
            } catch (final RejectedExecutionException e) {
                synchronized (this) { // closed meanwhile: give back the slots not queued
                    allocating -= n - i;
                    notifyAll();
                }
                return;
            }
        }
    }

    /** A free buffer of at least {@code bytes} on {@code align}, taken; null when none. Holds the lock. */
    private ByteBuffer takeFree(final int bytes, final int align) {
        for (final Iterator<ByteBuffer> it = free.iterator(); it.hasNext();) {
            final ByteBuffer b = it.next();
            if (b.capacity() >= bytes && BufferUtil.address(b) % align == 0) {
                it.remove();
                return b;
            }
        }
        return null;
    }

    /**
     * Allocates one buffer for a slot counted in {@link #allocating}, outside the lock (zeroing and faulting in a
     * column's buffer takes tens of milliseconds, during which the other writer threads may take free buffers);
     * null when direct memory cannot hold it.
     */
    private ByteBuffer allocate(final int bytes, final int align) {
        ByteBuffer allocated = null;
        try {
            // the aligned slice ends at a whole number of alignments: round up so that it holds bytes
            allocated = ByteBuffer.allocateDirect((bytes + align - 1) / align * align + align);
        } catch (final OutOfMemoryError e) {
            allocated = null;
        }
        synchronized (this) {
            allocating--;
            notifyAll();
            if (allocated == null) {
                return null;
            }
            final ByteBuffer aligned = allocated.alignedSlice(align);
            buffers.put(aligned, allocated);
            return aligned;
        }
    }

    private void awaitChange() throws InterruptedIOException {
        try {
            wait();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for a column buffer");
        }
    }

    /** Gives back a buffer {@link #lend} lent. */
    synchronized void giveBack(final ByteBuffer b) {
        if (buffers.containsKey(b)) {
            free.addLast(b);
            notifyAll();
        }
    }

    /** Finishing one file (its last writes), on an I/O thread. */
    @FunctionalInterface
    interface FileTask {
        void run() throws IOException;
    }

    /**
     * Finishes {@code file} on an I/O thread ({@code finish}: its last writes, then closing it)
     * while the caller goes on; {@link #sync} of the file then forces it once that is done, and a
     * failure of either reaches {@link #awaitSynced}.
     */
    void finishBehind(final Path file, final FileTask finish) {
        behind.put(file, CompletableFuture.runAsync(() -> {
            try {
                finish.run();
            } catch (final IOException e) {
                throw new UncheckedIOException(e);
            }
        }, io()));
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
        final Future<?> written = behind.remove(file);
        pending.add(sync.submit(() -> {
            if (written != null) {
                try {
                    written.get();
                } catch (final ExecutionException e) {
                    throw e.getCause() instanceof UncheckedIOException u ? u.getCause() : new IOException(e.getCause());
                }
            }
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
        synchronized (this) {
            for (final ByteBuffer allocated : buffers.values()) {
                BufferUtil.free(allocated);
            }
            buffers.clear();
            free.clear();
        }
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
