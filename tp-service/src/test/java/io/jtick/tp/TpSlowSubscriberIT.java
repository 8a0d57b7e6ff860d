package io.jtick.tp;

import io.jtick.core.tp.SlowSubscribers;
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

/** {@code tick.tp.slow-subscriber}: journal by default, its switches exported; disconnect when set; a bad value stops start-up. */
class TpSlowSubscriberIT {
    @TempDir
    Path journal;

    private ConfigurableApplicationContext run(final String... extra) {
        final String[] args = new String[5 + extra.length];
        System.arraycopy(new String[] {"--server.port=0", "--server.address=127.0.0.1", "--tick.tp.port=0", "--tick.tp.kdb-port=-1",
            "--tick.tp.journal-dir=" + journal}, 0, args, 0, 5);
        System.arraycopy(extra, 0, args, 5, extra.length);
        return new SpringApplicationBuilder(TpApplication.class).run(args);
    }

    @Test
    void shouldServeSlowSubscribersFromTheJournalByDefaultAndExportTheSwitches() {
        try (ConfigurableApplicationContext app = run()) {
            assertThat(app.getBean(TickerplantServer.class).tickerplant().settings().slowSubscribers()).isEqualTo(SlowSubscribers.JOURNAL);
            assertThat(((PrometheusMeterRegistry) app.getBean(MeterRegistry.class)).scrape())
                .contains("tick_tp_subscriber_journal_switches_total{", "tick_tp_subscribers_disconnected_total{");
        }
    }

    @Test
    void shouldDisconnectWhenAskedAndRefuseAnUnknownValueNamingTheKey() {
        try (ConfigurableApplicationContext app = run("--tick.tp.slow-subscriber=disconnect")) {
            assertThat(app.getBean(TickerplantServer.class).tickerplant().settings().slowSubscribers())
                .isEqualTo(SlowSubscribers.DISCONNECT);
        }
        assertThatThrownBy(() -> run("--tick.tp.slow-subscriber=drop").close())
            .hasStackTraceContaining("unknown slow-subscriber policy [tick.tp.slow-subscriber=drop, known=journal|disconnect]");
    }
}
