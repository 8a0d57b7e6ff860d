package io.jtick.core.journal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.locks.LockSupport;

/**
 * Reads a journal's cycle file ahead of its appender, on a thread of its own, so that the pages the
 * appender writes next are already in the page cache when it first stores into them. A page of the
 * file that was never written is a hole: the appender's first store into it through Chronicle's
 * mapping faults, and the fault reads the page in, which for a hole means allocating and zeroing it
 * (profiled: a quarter to a third of the tickerplant thread at full speed). A {@code pread} of the
 * same range does that work here, in 1 MiB reads, and leaves the appender a minor fault: 0.9 against
 * 5.6-9.7 µs of CPU per 4 KiB page on this machine (256 MiB written one page at a time, each way
 * twice), and less CPU in all (0.5-1.0 µs per page read here).
 *
 * <p>Reading gives the file no blocks, so nothing changes for a full volume: the appender's store
 * still needs its block ({@link ChronicleJournal}'s free-space guard and {@link LandedCheck} stay as they
 * are), and a read that fails only means the appender faults the page in itself. The appender's thread
 * asks ({@link #request}) once it has written half a window past the last request ({@link #wants}),
 * so this thread wakes once per {@link #WINDOW_BYTES}/2 of journal; it starts at the first request
 * and {@link #close} stops and joins it. Only the appender's thread calls {@link #wants}, {@link #request}
 * and {@link #close}.
 *
 * <p>It works beside {@link Journal#pretouch}, not instead of it: the pretouch stores into pages on the
 * appender's thread between updates (it gives them their blocks, which a read cannot) and keeps only
 * {@link Journal#PRETOUCH_BYTES} ahead; at full speed the appender outruns it, and the pages both reach are
 * then already in the page cache.
 */
final class ReadAheadAgent implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReadAheadAgent.class);
    /** How far ahead of the write position the file is read. */
    static final long WINDOW_BYTES = 8L << 20;
    private static final int READ_BYTES = 1 << 20;
    private static final long JOIN_MILLIS = 10_000;

    /** One request: read {@code file} up to {@code until} (a file offset), not before {@code from}. */
    private record Request(Path file, long from, long until) {
    }

    private final String name;
    private volatile Request request;
    private volatile boolean closed;
    /** Read up to here in {@link #file} (the agent's thread writes it; tests read it). */
    private volatile long readUntil;
    private Thread thread;
    private long due;
    // the agent's thread only
    private Path file;
    private FileChannel channel;
    private ByteBuffer buffer;

    /** @param name the journal's, for the thread's name and the log */
    ReadAheadAgent(final String name) {
        this.name = name;
    }

    /**
     * Whether the appender, having written up to {@code end}, should {@link #request} again: half a
     * window past the last request, or back before its window (the queue rolled to a new cycle file).
     */
    boolean wants(final long end) {
        return end >= due || end < due - WINDOW_BYTES;
    }

    /** The appender wrote {@code file} up to {@code end}: read it to {@code end + WINDOW_BYTES}. Null {@code file}: nothing. */
    void request(final Path at, final long end) {
        if (at == null || closed) {
            return;
        }
        due = end + WINDOW_BYTES / 2;
        request = new Request(at, end, end + WINDOW_BYTES);
        if (thread == null) {
            thread = new Thread(this::run, "journal-read-ahead-" + name);
            thread.setDaemon(true);
            thread.start();
        } else {
            LockSupport.unpark(thread);
        }
    }

    /** How far the current file has been read (for tests). */
    long readUntil() {
        return readUntil;
    }

    private void run() {
        buffer = ByteBuffer.allocateDirect(READ_BYTES);
        try {
            while (!closed) {
                final Request r = request;
                if (r != null) {
                    readAhead(r);
                }
                if (request == r && !closed) {
                    LockSupport.park(this);
                }
            }
        } finally {
            closeChannel();
        }
    }

    private void readAhead(final Request r) {
        if (!r.file().equals(file)) {
            closeChannel();
            try {
                channel = FileChannel.open(r.file(), StandardOpenOption.READ);
            } catch (final IOException e) {
                LOG.warn("journal read-ahead cannot open the cycle file; the appender faults its pages in itself [file={}]: {}",
                    r.file(), e.toString());
            }
            // the failed file is remembered too, so that it is not tried again at every request
            file = r.file();
            readUntil = 0;
        }
        if (channel == null) {
            return;
        }
        long at = Math.max(readUntil, r.from() & -READ_BYTES);
        try {
            while (at < r.until() && !closed && request == r) {
                buffer.clear().limit((int) Math.min(READ_BYTES, r.until() - at));
                final int n = channel.read(buffer, at);
                if (n <= 0) {
                    // past the end of the file: Chronicle extends it when it maps the next chunk; read on at the next request
                    break;
                }
                at += n;
                readUntil = at;
            }
        } catch (final IOException e) {
            LOG.warn("journal read-ahead failed; the appender faults its pages in itself [file={}]: {}", file, e.toString());
            closeChannel();
        }
    }

    private void closeChannel() {
        if (channel != null) {
            try {
                channel.close();
            } catch (final IOException e) {
                // read-only: nothing to lose
            }
            channel = null;
        }
    }

    /** Stops the thread and waits for it (its file closed). */
    @Override
    public void close() {
        closed = true;
        final Thread t = thread;
        if (t == null) {
            return;
        }
        LockSupport.unpark(t);
        try {
            t.join(JOIN_MILLIS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
