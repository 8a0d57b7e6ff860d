package io.jtick.core.metrics;

import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(LeakCheck.class)
class TickMetricsTest {

    @Test
    void shouldHandOutOneInstancePerNameForEnginesToKeep() {
        final TickMetrics m = new TickMetrics();
        final AtomicLong rows = m.counter("tick.tp.rows");
        assertThat(m.counter("tick.tp.rows")).isSameAs(rows);
        assertThat(m.latency("tick.tp.log", "first")).isSameAs(m.latency("tick.tp.log", "second"));
        assertThat(m.latency("tick.tp.log", "second").description()).as("the first registration wins").isEqualTo("first");
        rows.addAndGet(7);
        assertThat(m.counters()).containsEntry("tick.tp.rows", rows);
        assertThat(m.counters().get("tick.tp.rows").get()).isEqualTo(7);
    }

    @Test
    void shouldReadGaugesWhenAskedAndResetOnlyLatencies() {
        final TickMetrics m = new TickMetrics();
        final AtomicLong seq = new AtomicLong(3);
        m.gauge("tick.tp.sequence", seq::get);
        seq.set(9);
        assertThat(m.gauges().get("tick.tp.sequence").getAsLong()).isEqualTo(9);
        m.gauge("tick.tp.sequence", () -> 11);
        assertThat(m.gauges().get("tick.tp.sequence").getAsLong()).as("re-registering replaces").isEqualTo(11);
        m.latency("a", "a").record(5);
        m.counter("c").incrementAndGet();
        m.resetLatencies();
        assertThat(m.latencies()).singleElement().satisfies(l -> assertThat(l.count()).isZero());
        assertThat(m.counter("c").get()).isEqualTo(1);
    }
}
