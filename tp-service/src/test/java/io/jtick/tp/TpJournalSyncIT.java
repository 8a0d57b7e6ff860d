package io.jtick.tp;

import io.jtick.core.tp.JournalSync;
import io.jtick.core.tp.TickerplantServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code tick.tp.journal.sync}: bound onto the tickerplant, its force metrics exported; a bad value stops start-up naming the key. */
class TpJournalSyncIT {
    @TempDir
    Path journal;

    private ConfigurableApplicationContext run(final String sync) {
        return new SpringApplicationBuilder(TpApplication.class).run("--server.port=0", "--server.address=127.0.0.1", "--tick.tp.port=0",
            "--tick.tp.kdb-port=-1", "--tick.tp.journal-dir=" + journal, "--tick.tp.journal.sync=" + sync);
    }

    @Test
    void shouldForceBeforeAcknowledgingWhenAskedAndExportTheForces() {
        try (ConfigurableApplicationContext app = run("batch")) {
            assertThat(app.getBean(TickerplantServer.class).tickerplant().settings().journalSync()).isEqualTo(JournalSync.BATCH);
            assertThat(((PrometheusMeterRegistry) app.getBean(MeterRegistry.class)).scrape())
                .contains("tick_tp_journal_sync_seconds_count{", "tick_tp_journal_syncs_total{");
        }
    }

    @Test
    void shouldRefuseAnUnknownValueAtStartNamingTheKey() {
        assertThatThrownBy(() -> run("fsync").close())
            .hasStackTraceContaining("unknown journal sync [tick.tp.journal.sync=fsync, known=none|batch]");
    }
}
