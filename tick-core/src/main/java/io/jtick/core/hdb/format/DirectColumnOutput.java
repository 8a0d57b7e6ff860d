package io.jtick.core.hdb.format;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;

/**
 * The sequential bytes of one column file written with direct I/O ({@code O_DIRECT}, past the page
 * cache): appended into one of two staging buffers aligned to the file system's block, each full
 * buffer written as whole blocks at its aligned file offset on the {@code io} executor while the
 * other fills (its unaligned tail carried over to the next), the last padded to a block and the
 * file then truncated to its true length. The file's first bytes (the header, written last) are
 * reserved zeros: once the first block has gone out, a copy of it is kept, and {@link #finish}
 * writes it again with the header in it. Values can be filled in place ({@link #reserve} then
 * {@link #commit}), so a plain block goes from the table to the device with no copy in between.
 * Not thread-safe: one writer thread, plus the executor's write of the other buffer.
 */
final class DirectColumnOutput implements AutoCloseable {
    /** Most bytes of each of the two staging buffers (less for a smaller file, never less than a block and two alignments). */
    static final int BUFFER_BYTES = 4 << 20;
    /** Most bytes of one write to the device (a multiple of every block size). */
    static final int WRITE_BYTES = 4 << 20;

    private final Path path;
    private final FileChannel channel;
    private final int align;
    private final Executor io;
    private final ByteBuffer[] allocated = new ByteBuffer[2];
    private final ByteBuffer[] buffers = new ByteBuffer[2];
    private final long[] addresses = new long[2];
    private final int capacity;
    private Future<?> pending = CompletableFuture.completedFuture(null);
    private ByteBuffer headAllocated;
    private ByteBuffer head;
    private int current;
    private int fill;
    private long bufferStart;
    private boolean closed;

    /**
     * @param channel  the file, opened with {@code ExtendedOpenOption.DIRECT}
     * @param align    the file system's block size (a power of two)
     * @param maxChunk the most bytes one {@link #reserve} asks for
     * @param reserved the bytes at the file's start the header will fill (zeros until {@link #finish})
     * @param expected about how long the file will be (sizes the buffers of a small file)
     * @param io       where the full buffers are written; null writes them on the caller's thread
     * @param lent     an aligned buffer of at least {@link #capacity} bytes to use first (the caller's, not freed here;
     *                 its old bytes are never written out), or null to allocate
     */
    DirectColumnOutput(final Path path, final FileChannel channel, final int align, final int maxChunk, final int reserved,
                       final long expected, final Executor io, final ByteBuffer lent) {
        if (align < 512 || Integer.bitCount(align) != 1 || reserved > align) {
            throw new IllegalArgumentException("bad alignment [file=" + path + ", align=" + align + ", reserved=" + reserved + "]");
        }
        this.path = path;
        this.channel = channel;
        this.align = align;
        this.io = io;
        this.capacity = capacity(align, maxChunk, expected);
        if (lent == null) {
            allocate(0);
        } else {
            if (lent.capacity() < capacity || BufferUtil.address(lent) % align != 0) {
                throw new IllegalArgumentException("lent buffer too small or unaligned [file=" + path
                    + ", capacity=" + lent.capacity() + "]");
            }
            buffers[0] = lent;
            addresses[0] = BufferUtil.address(lent);
            new UnsafeBuffer(addresses[0], reserved).setMemory(0, reserved, (byte) 0);
        }
        this.fill = reserved;
    }

    /** Bytes of each staging buffer for these arguments of the constructor. */
    static int capacity(final int align, final int maxChunk, final long expected) {
        return Math.max(roundUp(maxChunk, align) + 2 * align, (int) Math.min(BUFFER_BYTES, (expected + align) & -align));
    }

    /** The second buffer is allocated at the first flush: a file that fits one buffer never needs it. */
    private void allocate(final int i) {
        allocated[i] = ByteBuffer.allocateDirect(capacity + align);
        buffers[i] = allocated[i].alignedSlice(align);
        addresses[i] = BufferUtil.address(buffers[i]);
    }

    /** Bytes of the file so far (the reserved header included). */
    long position() {
        return bufferStart + fill;
    }

    /** The address of the next {@code bytes} bytes to fill (all in one buffer); {@link #commit} makes them part of the file. */
    long reserve(final int bytes) throws IOException {
        if (capacity - fill < bytes) {
            flush();
            if (capacity - fill < bytes) {
                throw new IllegalArgumentException("more than a buffer [file=" + path + ", bytes=" + bytes
                    + ", capacity=" + capacity + "]");
            }
        }
        return addresses[current] + fill;
    }

    /** A view of the {@code bytes} bytes from the last {@link #reserve}, for checksumming them before {@link #commit}. */
    ByteBuffer reserved(final int bytes) {
        return buffers[current].duplicate().limit(fill + bytes).position(fill);
    }

    /** Appends the {@code bytes} bytes filled at the address {@link #reserve} gave. */
    void commit(final int bytes) {
        if (bytes < 0 || fill + bytes > capacity) {
            throw new IllegalStateException("commit past the buffer [file=" + path + ", bytes=" + bytes + "]");
        }
        fill += bytes;
    }

    /** Appends {@code src[off..off+length)}. */
    void append(final byte[] src, final int off, final int length) throws IOException {
        for (int done = 0; done < length;) {
            if (fill == capacity) {
                flush();
            }
            final int n = Math.min(length - done, capacity - fill);
            new UnsafeBuffer(addresses[current], capacity).putBytes(fill, src, off + done, n);
            fill += n;
            done += n;
        }
    }

    /**
     * Writes what is left (padded to a block), the first block again with {@code header} at byte 0
     * when it went out before, and truncates the file to its true length. The caller forces it.
     */
    void finish(final byte[] header) throws IOException {
        final long length = position();
        final int padded = roundUp(fill, align);
        final UnsafeBuffer last = new UnsafeBuffer(addresses[current], capacity);
        last.setMemory(fill, padded - fill, (byte) 0);
        if (head == null && bufferStart == 0) {
            last.putBytes(0, header);
        }
        awaitPending();
        if (padded > 0) {
            writeFully(buffers[current].duplicate().limit(padded).position(0), bufferStart);
        }
        if (head != null) {
            head.clear();
            head.put(header).clear();
            writeFully(head, 0);
        }
        channel.truncate(length);
    }

    /**
     * Writes the buffer's whole blocks at its file offset (on the executor, after the other
     * buffer's write is done) and continues in the other buffer with its tail.
     */
    private void flush() throws IOException {
        final int whole = fill / align * align;
        final int tail = fill - whole;
        final ByteBuffer out = buffers[current];
        if (whole > 0 && bufferStart == 0 && head == null) {
            headAllocated = ByteBuffer.allocateDirect(2 * align);
            head = oneBlock(headAllocated, align);
            head.put(out.duplicate().limit(align).position(0)).clear();
        }
        awaitPending();
        final int next = 1 - current;
        if (buffers[next] == null) {
            allocate(next);
        }
        new UnsafeBuffer(addresses[next], capacity).putBytes(0, new UnsafeBuffer(addresses[current], capacity), whole, tail);
        if (whole > 0) {
            final ByteBuffer chunk = out.duplicate().limit(whole).position(0);
            final long at = bufferStart;
            if (io == null) {
                writeFully(chunk, at);
            } else {
                pending = CompletableFuture.runAsync(() -> {
                    try {
                        writeFully(chunk, at);
                    } catch (final IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }, io);
            }
        }
        bufferStart += whole;
        current = next;
        fill = tail;
    }

    /**
     * Exactly one aligned block of {@code allocated} (at least two blocks long). Its aligned slice is two blocks when the
     * allocation happens to start on a block (malloc returns such an address now and then): a view limited to one block
     * would still {@code clear()} to two, and {@link #finish} would then write the header's block and a second block of
     * zeros over the file's bytes {@code [align, 2 × align)} after they were checksummed and written.
     */
    static ByteBuffer oneBlock(final ByteBuffer allocated, final int align) {
        return allocated.alignedSlice(align).limit(align).slice();
    }

    private void awaitPending() throws IOException {
        try {
            pending.get();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while writing [file=" + path + "]", e);
        } catch (final ExecutionException e) {
            final Throwable cause = e.getCause() instanceof UncheckedIOException u ? u.getCause() : e.getCause();
            throw cause instanceof IOException io ? io : new IOException("direct write failed [file=" + path + "]", cause);
        }
    }

    /**
     * Writes {@code src} at {@code at} in writes of at most {@link #WRITE_BYTES}: a whole column's buffer (80 MB and more)
     * in one write went to this machine's disk slower than in pieces ({@code dd oflag=direct}: 1.2-1.3 GB/s with 64 MiB
     * writes, 1.5-1.6 with 4 MiB).
     */
    private void writeFully(final ByteBuffer src, final long at) throws IOException {
        final int end = src.limit();
        long p = at;
        try {
            while (src.position() < end) {
                src.limit(Math.min(end, src.position() + WRITE_BYTES));
                while (src.hasRemaining()) {
                    p += channel.write(src, p);
                }
            }
        } finally {
            src.limit(end);
        }
    }

    private static int roundUp(final int n, final int align) {
        return (n + align - 1) & -align;
    }

    /**
     * Waits for a write still in flight (whatever the interrupt status: the kernel may still be
     * reading the buffer), then frees the buffers. The channel is the caller's.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        boolean interrupted = false;
        while (true) {
            try {
                pending.get();
                break;
            } catch (final InterruptedException e) {
                interrupted = true;
            } catch (final ExecutionException e) {
                break; // reported by the write that saw it, or moot: the file is being abandoned
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        for (final ByteBuffer b : allocated) {
            if (b != null) {
                BufferUtil.free(b);
            }
        }
        if (headAllocated != null) {
            BufferUtil.free(headAllocated);
        }
    }
}
