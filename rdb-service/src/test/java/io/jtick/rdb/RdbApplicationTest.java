package io.jtick.rdb;

import io.jtick.core.rdb.HdbWriteDown;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.ApplicationContext;
import org.springframework.test.web.servlet.MockMvc;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/** The whole context wires up: properties, the subscription lifecycle (no TP listening), the core meters; no write-down unless asked. */
@SpringBootTest(properties = {"tick.rdb.tp-port=1", "tick.rdb.reconnect-delay=2s", "tick.rdb.tables=trade", "tick.rdb.chunk-pool-size=2MB"})
@AutoConfigureMockMvc
class RdbApplicationTest {
    @Autowired
    private RdbProperties properties;

    @Autowired
    private RdbLifecycle lifecycle;

    @Autowired
    private MeterRegistry registry;

    @Autowired
    private MockMvc mvc;

    @Autowired
    private ApplicationContext context;

    @Test
    void shouldStartWithPropertiesLifecycleAndMeters() throws Exception {
        assertThat(properties.tpHost()).isEqualTo("127.0.0.1");
        assertThat(properties.name()).isEqualTo("rdb");
        assertThat(properties.reconnectDelay()).isEqualTo(Duration.ofSeconds(2));
        assertThat(properties.syms()).isEmpty();
        assertThat(properties.chunkPoolSize()).isEqualTo(org.springframework.util.unit.DataSize.ofMegabytes(2));
        assertThat(lifecycle.isRunning()).isTrue();
        assertThat(registry.find("tick.rdb.rows").meter()).isNotNull();
        // latencies are Prometheus histograms beside the Micrometer meters (TickMetricsBinder)
        assertThat(((io.micrometer.prometheusmetrics.PrometheusMeterRegistry) registry).scrape())
            .contains("tick_rdb_recv_seconds_bucket{le=", "tick_rdb_upd_seconds_count ", "tick_query_seconds_sum{service=\"rdb\"}");
        assertThat(registry.find("tick.query.rejected").meter()).isNotNull();
        assertThat(registry.find("tick.rdb.table.rows").tag("table", "trade").meter()).isNotNull();
        mvc.perform(get("/api/status"))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.subscribed").value(false))
            .andExpect(jsonPath("$.tp").value("127.0.0.1:1"))
            .andExpect(jsonPath("$.tpChanges").value(0))
            .andExpect(jsonPath("$.lastSequence").value(0))
            .andExpect(jsonPath("$.writeDown.enabled").value(false));
    }

    @Test
    void shouldRefuseReplayWithoutWriteDown() throws Exception {
        assertThat(context.getBeanProvider(HdbWriteDown.class).getIfAvailable()).isNull();
        mvc.perform(post("/api/eod/replay").param("date", "2026-11-20"))
            .andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.error").value("end-of-day write-down is not configured [key=tick.rdb.hdb.root]"));
    }

    @Test
    void shouldStopStartUpOnBadSettingsNamingTheKey() {
        assertThatThrownBy(() -> new SpringApplicationBuilder(RdbApplication.class).run("--server.port=0", "--tick.rdb.tp-port=1",
            "--tick.rdb.hdb.root=" + System.getProperty("java.io.tmpdir"), "--tick.rdb.hdb.encoding=lz5").close())
            .hasStackTraceContaining("bad encoding [key=tick.rdb.hdb.encoding, value=lz5]");
        assertThatThrownBy(() -> new SpringApplicationBuilder(RdbApplication.class).run("--server.port=0", "--tick.rdb.tp-port=1",
            "--tick.rdb.hdb.root=" + System.getProperty("java.io.tmpdir"), "--tick.rdb.hdb.url=ftp://x").close())
            .hasStackTraceContaining("bad HDB URL [key=tick.rdb.hdb.url, value=ftp://x]");
        assertThatThrownBy(() -> new SpringApplicationBuilder(RdbApplication.class).run("--server.port=0",
            "--tick.rdb.tp-addresses=127.0.0.1:5010,tp-1").close())
            .hasStackTraceContaining("bad tickerplant address [key=tick.rdb.tp-addresses, entry=tp-1, expected=host:port");
    }
}
