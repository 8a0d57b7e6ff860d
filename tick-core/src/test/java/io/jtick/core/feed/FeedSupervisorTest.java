package io.jtick.core.feed;

import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The one feed of a process, against a tickerplant port that is closed (so a started feed keeps connecting). */
@ExtendWith(LeakCheck.class)
class FeedSupervisorTest {
    @TempDir
    Path data;

    private FeedSupervisor feeds;

    private FeedSupervisor supervisor() throws IOException {
        final int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        feeds = new FeedSupervisor(new FeedSupervisor.Settings("127.0.0.1", closedPort, "trade", 10, 1, 1, 100, 0, 42, data,
            "127.0.0.1", 0),
            FeedCounters.unregistered());
        return feeds;
    }

    @AfterEach
    void stop() {
        if (feeds != null) {
            feeds.close();
        }
    }

    private static FeedRequest request(final String source, final String table, final Integer r, final String pace, final String file) {
        return new FeedRequest(source, table, r, null, null, null, null, null, null, null, null, file, null, null, pace, null, null, null,
            null, null);
    }

    @Test
    void shouldReportIdleBeforeAnyStart() throws IOException {
        final FeedSupervisor.Status s = supervisor().status();
        assertThat(s.running()).isFalse();
        assertThat(s.state()).isEqualTo("idle");
        assertThat(s.parameters()).isEmpty();
        assertThat(s.tp()).startsWith("127.0.0.1:");
    }

    @Test
    void shouldStartWithDefaultsRetryTheConnectionAndRefuseASecondStart() throws IOException {
        final FeedSupervisor f = supervisor();
        final FeedSupervisor.Status started = f.start(FeedRequest.defaults());
        assertThat(started.running()).isTrue();
        assertThat(started.parameters()).containsEntry("source", "synthetic").containsEntry("table", "trade").containsEntry("r", 10)
            .containsEntry("syms", 100).containsEntry("seed", 42L).containsEntry("pace", "timer");
        await("a second connection attempt", Duration.ofSeconds(10), () -> f.status().connectAttempts() >= 2);
        assertThat(f.status().state()).isEqualTo("connecting");
        assertThat(f.status().lastError()).contains("retrying with backoff");
        assertThatThrownBy(() -> f.start(request(null, "quote", null, null, null)))
            .isInstanceOf(FeedSupervisor.AlreadyRunning.class).hasMessageContaining("already running [state=connecting]");

        final FeedSupervisor.Status stopped = f.stop();
        assertThat(stopped.running()).isFalse();
        assertThat(stopped.state()).isEqualTo("stopped");
        assertThat(f.start(request(null, "quote", 5, null, null)).parameters()).containsEntry("table", "quote").containsEntry("r", 5);
    }

    @Test
    void shouldRefuseBadParametersWithTheReason() throws IOException {
        final FeedSupervisor f = supervisor();
        for (final Object[] bad : List.of(
            new Object[] {request(null, "trades", null, null, null), "unknown table"},
            new Object[] {request(null, null, 0, null, null), "[r=0]"},
            new Object[] {request("bloomberg", null, null, null, null), "unknown source"},
            new Object[] {request(null, null, null, "recorded", null), "replay source"},
            new Object[] {request("taq", null, null, null, "no-such-file.csv.gz"), "no-such-file.csv.gz"})) {
            assertThatThrownBy(() -> f.start((FeedRequest) bad[0])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining((String) bad[1]);
        }
        assertThat(f.status().state()).as("nothing started").isEqualTo("idle");
    }
}
