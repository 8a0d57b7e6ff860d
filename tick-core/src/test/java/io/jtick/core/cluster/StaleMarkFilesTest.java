package io.jtick.core.cluster;

import io.aeron.cluster.codecs.mark.ClusterComponentType;
import io.aeron.cluster.service.ClusterMarkFile;
import org.agrona.concurrent.EpochClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A node restarted at once after {@code kill -9} finds the mark files its killed process refreshed
 * moments ago; Aeron refuses them until they are older than its liveness timeout. These are real
 * Aeron mark files, made as the consensus module makes its own.
 */
class StaleMarkFilesTest {
    private static final EpochClock CLOCK = System::currentTimeMillis;

    @TempDir
    File dir;

    @Test
    void shouldWaitUntilTheMarkFileOfAKilledProcessIsOneAeronAcceptsAgain() {
        final File archive = new File(dir, "archive");
        final File cluster = new File(dir, "cluster");
        archive.mkdirs();
        // the consensus module of a process killed 0.8 s before Aeron's liveness timeout ran out: never closed, never terminated
        final ClusterMarkFile killed = create(cluster, ClusterMarkFile.FILENAME);
        killed.updateActivityTimestamp(CLOCK.time() - (StaleMarkFiles.AERON_LIVENESS_MS - 800));
        assertThatThrownBy(() -> create(cluster, ClusterMarkFile.FILENAME)).hasMessageContaining("active mark file detected");

        StaleMarkFiles.await(archive, cluster, 2, StaleMarkFiles.AERON_LIVENESS_MS, 3_000);

        try (ClusterMarkFile restarted = create(cluster, ClusterMarkFile.FILENAME)) {
            assertThat(restarted.activityTimestampVolatile()).isNotEqualTo(-1);
        }
        killed.close();
    }

    @Test
    void shouldRefuseToStartOverTheMarkFileOfAProcessStillRunningTheMember() throws Exception {
        final File cluster = new File(dir, "cluster");
        final ClusterMarkFile running = create(cluster, ClusterMarkFile.SERVICE_FILENAME_PREFIX + "0.dat");
        // alive before the check starts (the heartbeat thread may not have run yet when it looks)
        running.updateActivityTimestamp(CLOCK.time());
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread heartbeat = new Thread(() -> {
            while (!stop.get()) {
                running.updateActivityTimestamp(CLOCK.time());
                try {
                    Thread.sleep(50);
                } catch (final InterruptedException e) {
                    return;
                }
            }
        });
        heartbeat.start();
        try {
            assertThatThrownBy(() -> StaleMarkFiles.await(new File(dir, "archive"), cluster, 1, 1_000, 500))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cluster member 1 is already running")
                .hasMessageContaining("cluster-mark-service-0.dat")
                .hasMessageContaining("process " + ProcessHandle.current().pid() + " (running)");
        } finally {
            stop.set(true);
            heartbeat.join();
            running.close();
        }
    }

    @Test
    void shouldNotWaitForTheMarkFilesOfAProcessThatClosedThem() {
        final File cluster = new File(dir, "cluster");
        final ClusterMarkFile closed = create(cluster, ClusterMarkFile.FILENAME);
        closed.signalTerminated();
        closed.close();

        assertThat(StaleMarkFiles.read(new File(dir, "archive"), cluster)).singleElement()
            .satisfies(m -> assertThat(m.activityMs()).isEqualTo(-1));
        // a liveness of a day: any wait at all would be for a refreshed file, and none is
        StaleMarkFiles.await(new File(dir, "archive"), cluster, 0, 86_400_000L, 0);
        try (ClusterMarkFile again = create(cluster, ClusterMarkFile.FILENAME)) {
            assertThat(again.decoder().pid()).isEqualTo(ProcessHandle.current().pid());
        }
    }

    /** As the consensus module makes its mark file: checked against an existing one, then marked ready. */
    private static ClusterMarkFile create(final File cluster, final String name) {
        cluster.mkdirs();
        final ClusterMarkFile f = new ClusterMarkFile(new File(cluster, name), ClusterComponentType.CONSENSUS_MODULE,
            ClusterMarkFile.ERROR_BUFFER_MIN_LENGTH, CLOCK, StaleMarkFiles.AERON_LIVENESS_MS, 4096);
        f.encoder().pid(ProcessHandle.current().pid());
        f.signalReady();
        return f;
    }
}
