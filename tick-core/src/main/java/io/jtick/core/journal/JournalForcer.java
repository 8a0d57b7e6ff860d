package io.jtick.core.journal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDate;
import java.util.stream.Stream;

/**
 * {@link Journal#sync} of one day's {@link ChronicleJournal}: fdatasync of the cycle file the appender
 * writes (entries, the queue's header and index pages) through a channel kept open, the tail of the
 * previous file at a roll, and at the first force also the files the day and the day before already
 * held and their directories. After a failed force every later one fails (the kernel may have dropped
 * the pages it could not write). Owned by the journal's thread.
 */
final class JournalForcer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(JournalForcer.class);

    private final Path dir;
    private final LocalDate date;
    /** The cycle file forced and its channel (null until a force found the appender's file). */
    private Path forcingFile;
    private FileChannel forcing;
    /** Sequence up to which the journal is forced; -1 until the first force (which also forces what the files held at open). */
    private long forcedSequence = -1;
    /** Why a force failed (every later one fails), or null. */
    private String forceFailure;

    JournalForcer(final Path dir, final LocalDate date) {
        this.dir = dir;
        this.date = date;
    }

    /**
     * Forces what the journal holds up to {@code lastSequence}, the appender writing {@code file} (null
     * before its first write); returns the nanoseconds it took, or -1 when nothing was new. Throws
     * {@link IllegalStateException} when a force fails, and at every call after one.
     */
    long force(final Path file, final long lastSequence) {
        if (forceFailure != null) {
            throw new IllegalStateException("journal force failed before, nothing more is forced: restart the tickerplant once the volume"
                + " is healthy [dir=" + dir + "]: " + forceFailure);
        }
        if (forcedSequence >= 0 && lastSequence == forcedSequence && (file == null || file.equals(forcingFile))) {
            return -1;
        }
        final long t0 = System.nanoTime();
        try {
            if (forcedSequence < 0) {
                forceDay(dir);
                final Path root = dir.getParent();
                if (root != null) {
                    Journal.days(root).filter(d -> d.isBefore(date)).max(LocalDate::compareTo)
                        .ifPresent(previous -> forceDay(root.resolve(previous.toString())));
                    forceDirectory(root);
                }
            }
            if (file != null && !file.equals(forcingFile)) {
                if (forcing != null) {
                    // the tail of the cycle file the appender left (a roll)
                    forcing.force(false);
                    forcing.close();
                    forcing = null;
                }
                forcing = FileChannel.open(file, StandardOpenOption.WRITE);
                forcingFile = file;
                forceDirectory(dir);
            }
            if (forcing != null) {
                forcing.force(false);
            }
        } catch (final IOException | RuntimeException e) {
            forceFailure = e.toString();
            LOG.error("journal force failed: nothing more is acknowledged until the tickerplant restarts [dir={}, sequence={}]: {}", dir,
                lastSequence, e.toString());
            throw new IllegalStateException("journal force failed [dir=" + dir + ", sequence=" + lastSequence + "]: " + e, e);
        }
        forcedSequence = lastSequence;
        return System.nanoTime() - t0;
    }

    /** Forces every queue file of a day's journal directory (cycle files and Chronicle's metadata), then the directory. */
    private static void forceDay(final Path day) {
        if (!Files.isDirectory(day)) {
            return;
        }
        try (Stream<Path> files = Files.list(day)) {
            for (final Path p : files.filter(f -> f.toString().endsWith(".cq4") || f.toString().endsWith(".cq4t")).toList()) {
                try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
                    ch.force(false);
                }
            }
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot force the journal files [dir=" + day + "]", e);
        }
        forceDirectory(day);
    }

    /** fsync of a directory: the entries of the files created in it. */
    private static void forceDirectory(final Path d) {
        try (FileChannel ch = FileChannel.open(d, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot force the directory [dir=" + d + "]", e);
        }
    }

    @Override
    public void close() {
        if (forcing != null) {
            try {
                forcing.close();
            } catch (final IOException e) {
                LOG.warn("closing the journal's forcing channel failed [dir={}]: {}", dir, e.toString());
            }
            forcing = null;
        }
    }
}
