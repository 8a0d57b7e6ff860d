package io.jtick.core.cluster;

import io.aeron.archive.ArchiveMarkFile;
import io.aeron.cluster.service.ClusterMarkFile;
import org.agrona.concurrent.EpochClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

/**
 * Aeron's archive, consensus module and service container each keep a mark file whose activity
 * timestamp they refresh every second, and refuse to start over one refreshed less than their
 * liveness timeout ago ({@value #AERON_LIVENESS_MS} ms): "active mark file detected". A node killed
 * with {@code kill -9} leaves its files with their last timestamp, so a node restarted at once (a
 * supervisor, Kubernetes, an operator) would fail. Before it starts Aeron, a node waits here until
 * the files in its directories have aged past that timeout; a file still refreshed after that long
 * belongs to a process running this member, and the start is refused, naming it.
 */
final class StaleMarkFiles {
    private static final Logger LOG = LoggerFactory.getLogger(StaleMarkFiles.class);
    /** Archive's and Cluster's {@code LIVENESS_TIMEOUT_MS}: ten times their one-second refresh. */
    static final long AERON_LIVENESS_MS = io.aeron.cluster.service.ClusteredServiceContainer.Configuration.LIVENESS_TIMEOUT_MS;

    /** One mark file's last proof of life. */
    record Mark(File file, long activityMs, long pid) {
    }

    private StaleMarkFiles() {
    }

    /** The mark files of a node: the archive's, the consensus module's and each service container's. */
    static List<Mark> read(final File archiveDir, final File clusterDir) {
        final List<Mark> marks = new ArrayList<>();
        final EpochClock clock = System::currentTimeMillis;
        if (new File(archiveDir, ArchiveMarkFile.FILENAME).isFile()) {
            try (ArchiveMarkFile f = new ArchiveMarkFile(archiveDir, ArchiveMarkFile.FILENAME, clock, 0, null)) {
                marks.add(new Mark(new File(archiveDir, ArchiveMarkFile.FILENAME), f.activityTimestampVolatile(), f.decoder().pid()));
            } catch (final RuntimeException e) {
                unreadable(new File(archiveDir, ArchiveMarkFile.FILENAME), e);
            }
        }
        final File[] files = clusterDir.listFiles((d, name) -> name.startsWith("cluster-mark")
            && name.endsWith(ClusterMarkFile.FILE_EXTENSION));
        if (files != null) {
            for (final File file : files) {
                try (ClusterMarkFile f = new ClusterMarkFile(clusterDir, file.getName(), clock, 0, null)) {
                    marks.add(new Mark(file, f.activityTimestampVolatile(), f.decoder().pid()));
                } catch (final RuntimeException e) {
                    unreadable(file, e);
                }
            }
        }
        return marks;
    }

    /**
     * Waits until no mark file under these directories was refreshed within {@code livenessMs}, and
     * gives up with an {@link IllegalStateException} when one still is {@code graceMs} after that.
     */
    static void await(final File archiveDir, final File clusterDir, final int memberId, final long livenessMs, final long graceMs) {
        final long deadline = System.currentTimeMillis() + livenessMs + graceMs;
        boolean logged = false;
        while (true) {
            final long now = System.currentTimeMillis();
            Mark youngest = null;
            for (final Mark m : read(archiveDir, clusterDir)) {
                if (now - m.activityMs() < livenessMs && (youngest == null || m.activityMs() > youngest.activityMs())) {
                    youngest = m;
                }
            }
            if (youngest == null) {
                return;
            }
            final long age = Math.max(0, now - youngest.activityMs());
            final boolean alive = ProcessHandle.of(youngest.pid()).map(ProcessHandle::isAlive).orElse(false);
            if (now >= deadline) {
                throw new IllegalStateException("cluster member " + memberId + " is already running: its Aeron mark file " + youngest.file()
                    + " was refreshed " + age + " ms ago by process " + youngest.pid() + (alive ? " (running)" : "")
                    + "; a member's directory (tick.tp.cluster.dir) serves one process at a time");
            }
            if (!logged) {
                logged = true;
                LOG.info("cluster member {}: the Aeron mark files of a previous process (pid {}{}) were refreshed {} ms ago; waiting up to "
                    + "{} ms for them to go stale before starting (Aeron refuses a mark file younger than {} ms) [file={}]", memberId,
                    youngest.pid(), alive ? ", running" : ", gone", age, livenessMs - age, livenessMs, youngest.file());
            }
            sleep(Math.min(200, Math.max(1, livenessMs - age + 1)));
        }
    }

    private static void unreadable(final File file, final RuntimeException e) {
        // Aeron's own start reads it again and says what is wrong with it
        LOG.warn("cannot read the Aeron mark file {}: {}", file, e.toString());
    }

    private static void sleep(final long ms) {
        try {
            Thread.sleep(ms);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for stale Aeron mark files", e);
        }
    }
}
