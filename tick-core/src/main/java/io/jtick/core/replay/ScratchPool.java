package io.jtick.core.replay;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The replay server's decoded-scratch files ({@link DayTable}): a sparse file under the scratch
 * directory, its name unlinked at once, open and memory-mapped. A file a date no longer needs is
 * kept, mapped, for {@link #KEEP_NANOS} and given to the next date whose column fits in it, so that
 * its pages are written again in place instead of being allocated anew: on ext4 here, writing 290 MB
 * into a fresh sparse file took 140-880 ms and into one written before 47-135 ms, and a replay's
 * first timed run after another encoding's replays was a quarter slower (bench-jmh/README.md). A reused
 * file holds an earlier date's values outside the rows the new date writes; a reader reads only the
 * rows of its date's selected ranges, which its decoding wrote.
 *
 * <p>What is kept is bounded by use: the files in use and kept together stay within the most that were
 * in use at once (the high-water mark; kept files are unmapped, oldest first, before a new file would
 * pass it, and a released file past it is not kept), and files unused for
 * {@link #KEEP_NANOS} are unmapped by {@link #trim}, which the server calls every few seconds; an idle
 * server holds nothing after that. Thread-safe.
 */
final class ScratchPool implements AutoCloseable {
    /** How long a file no date uses is kept for the next one. */
    static final long KEEP_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final AtomicLong IDS = new AtomicLong();

    /** One scratch file: its channel (decoders write through it) and its map (readers read from {@link #address}). */
    static final class Scratch {
        final FileChannel file;
        final MappedByteBuffer map;
        final long address;
        final long bytes;
        private long releasedAt;

        private Scratch(final FileChannel file, final MappedByteBuffer map) {
            this.file = file;
            this.map = map;
            this.address = new UnsafeBuffer(map).addressOffset();
            this.bytes = map.capacity();
        }
    }

    private final Path dir;
    private final List<Scratch> kept = new ArrayList<>();
    private long keptBytes;
    private long inUseBytes;
    private long highWater;
    private long reused;
    private boolean closed;

    ScratchPool(final Path dir) {
        this.dir = dir;
    }

    /** A scratch file of at least {@code bytes}: the smallest kept one that fits, or a new one (named after {@code name}, unlinked). */
    Scratch acquire(final String name, final long bytes) throws IOException {
        synchronized (this) {
            Scratch best = null;
            for (final Scratch s : kept) {
                if (s.bytes >= bytes && (best == null || s.bytes < best.bytes)) {
                    best = s;
                }
            }
            if (best != null) {
                kept.remove(best);
                keptBytes -= best.bytes;
                inUseBytes += best.bytes;
                highWater = Math.max(highWater, inUseBytes);
                reused++;
                return best;
            }
        }
        if (bytes > Integer.MAX_VALUE) {
            throw new IOException("column too large to decode for replay (limit 2 GiB) [file=" + name + ", bytes=" + bytes + "]");
        }
        freeKeptBeyond(bytes);
        Files.createDirectories(dir);
        final Path path = dir.resolve("scratch-" + IDS.incrementAndGet() + "-" + name);
        final FileChannel file = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE,
            StandardOpenOption.SPARSE);
        try {
            Files.deleteIfExists(path);
            final Scratch s = new Scratch(file, file.map(FileChannel.MapMode.READ_WRITE, 0, bytes));
            synchronized (this) {
                inUseBytes += s.bytes;
                highWater = Math.max(highWater, inUseBytes);
            }
            return s;
        } catch (final IOException | RuntimeException e) {
            file.close();
            throw e;
        }
    }

    /**
     * Before a new file of {@code bytes} is made: unmaps kept files, oldest first, until those kept and those in use, the
     * new one with them, are within the most that were in use at once (the new one counted in).
     */
    private void freeKeptBeyond(final long bytes) {
        final List<Scratch> old = new ArrayList<>();
        synchronized (this) {
            final long bound = Math.max(highWater, inUseBytes + bytes);
            while (!kept.isEmpty() && inUseBytes + keptBytes + bytes > bound) {
                final Scratch s = kept.remove(0);
                keptBytes -= s.bytes;
                old.add(s);
            }
        }
        old.forEach(ScratchPool::free);
    }

    /** A date is done with {@code s}: kept for the next one (within the bound, see the class comment), or unmapped and closed. */
    void release(final Scratch s) {
        final boolean keep;
        synchronized (this) {
            inUseBytes -= s.bytes;
            keep = !closed && inUseBytes + keptBytes + s.bytes <= highWater;
            if (keep) {
                s.releasedAt = System.nanoTime();
                kept.add(s);
                keptBytes += s.bytes;
            }
        }
        if (!keep) {
            free(s);
        }
    }

    /** Unmaps the files kept longer than {@link #KEEP_NANOS}; once nothing is in use or kept, the high-water mark starts again. */
    void trim() {
        trim(System.nanoTime(), false);
    }

    /** {@link #trim()} as at {@code now} ({@link System#nanoTime}). */
    void trim(final long now) {
        trim(now, false);
    }

    private void trim(final long now, final boolean all) {
        final List<Scratch> old = new ArrayList<>();
        synchronized (this) {
            for (final Iterator<Scratch> it = kept.iterator(); it.hasNext();) {
                final Scratch s = it.next();
                if (all || now - s.releasedAt >= KEEP_NANOS) {
                    it.remove();
                    keptBytes -= s.bytes;
                    old.add(s);
                }
            }
            if (kept.isEmpty() && inUseBytes == 0) {
                highWater = 0;
            }
        }
        old.forEach(ScratchPool::free);
    }

    /** Bytes of scratch kept mapped for the next date. */
    synchronized long keptBytes() {
        return keptBytes;
    }

    /** Scratch files given to a date from those kept, so far. */
    synchronized long reused() {
        return reused;
    }

    /** Unmaps every kept file (files in use are the dates', released to a closed pool they are freed). */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        trim(System.nanoTime(), true);
    }

    private static void free(final Scratch s) {
        IoUtil.unmap(s.map);
        try {
            s.file.close();
        } catch (final IOException e) {
            // the name is unlinked already: closing frees nothing more than the descriptor
        }
    }
}
