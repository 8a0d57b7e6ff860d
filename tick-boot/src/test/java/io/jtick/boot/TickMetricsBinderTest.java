package io.jtick.boot;

import io.jtick.core.metrics.LatencyStats;
import io.jtick.core.metrics.TickMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class TickMetricsBinderTest {
    private static final Pattern BUCKET = Pattern.compile("^tick_tp_log_seconds_bucket\\{le=\"([^\"]+)\"} (\\S+)$", Pattern.MULTILINE);

    @Test
    void shouldExportTheDirectMemoryNettysSharedAllocatorsHold() {
        final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new TickMetricsBinder(new TickMetrics()).bindTo(registry);
        final io.netty.buffer.ByteBuf channels = io.netty.buffer.ByteBufAllocator.DEFAULT.directBuffer(1 << 20);
        final io.netty.buffer.ByteBuf pooled = io.netty.buffer.PooledByteBufAllocator.DEFAULT.directBuffer(1 << 20);
        try {
            final String scrape = registry.scrape();
            final String channelsType = io.netty.buffer.ByteBufAllocator.DEFAULT.getClass().getSimpleName();
            for (final String type : List.of(channelsType, "PooledByteBufAllocator")) {
                final Matcher m = Pattern.compile("^netty_allocator_memory_used\\{allocator_type=\"" + type
                    + "\"[^}]*memory_type=\"direct\"[^}]*} (\\S+)$", Pattern.MULTILINE).matcher(scrape);
                assertThat(m.find()).as("%s's direct memory is exported", type).isTrue();
                assertThat(Double.parseDouble(m.group(1))).as("at least the buffer held here").isGreaterThanOrEqualTo(1 << 20);
            }
        } finally {
            channels.release();
            pooled.release();
        }
    }

    @Test
    void shouldExportLatenciesAsCumulativeHistogramsThatSurviveAReset() {
        final TickMetrics metrics = new TickMetrics();
        final LatencyStats log = metrics.latency("tick.tp.log", "TP journal write per update");
        metrics.counter("tick.tp.rows").addAndGet(5);
        final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new TickMetricsBinder(metrics).bindTo(registry);

        final String empty = registry.scrape();
        assertThat(buckets(empty)).hasSize(LatencyHistogramCollector.UPPER_SECONDS.length).allMatch(b -> b[1] == 0);
        assertThat(empty).contains("# TYPE tick_tp_log_seconds histogram", "tick_tp_log_seconds_count 0", "tick_tp_rows_total 5.0");

        log.record(1_000);       // 1 µs: the bucket (2^-80/8 s = 0.954 µs, 2^-79/8 s = 1.04 µs]
        log.record(1_000_000);   // 1 ms
        log.record(20_000_000_000L); // 20 s: above the last bound, only in +Inf
        final List<double[]> first = buckets(registry.scrape());
        assertThat(countAt(first, 0.95e-6)).isEqualTo(0);   // le=2^-20 s
        assertThat(countAt(first, 1.0e-6)).isEqualTo(1);    // le=2^(-159/8) s
        assertThat(countAt(first, 0.97e-3)).isEqualTo(1);   // le=2^-10 s = 0.977 ms
        assertThat(countAt(first, 1.0e-3)).isEqualTo(2);    // le=2^(-79/8) s = 1.06 ms
        assertThat(countAt(first, 16.0)).isEqualTo(2);       // the last bound, 2^4 s
        assertThat(first.get(first.size() - 1)).containsExactly(Double.POSITIVE_INFINITY, 3);

        log.reset(); // what a profiling run does: the window empties, the exported histogram does not go backwards
        log.record(1_000_000);
        final String after = registry.scrape();
        assertThat(log.count()).isEqualTo(1);
        final List<double[]> second = buckets(after);
        for (int i = 0; i < second.size(); i++) {
            assertThat(second.get(i)[1]).as("bucket le=%s", second.get(i)[0]).isGreaterThanOrEqualTo(first.get(i)[1]);
        }
        assertThat(countAt(second, 1.1e-3)).isEqualTo(3);
        assertThat(after).contains("tick_tp_log_seconds_count 4");
        assertThat(value(after, "tick_tp_log_seconds_sum")).isCloseTo(20.002001, within(20.002001 * 0.0005));
    }

    @Test
    void shouldTurnTagsIntoLabelsOfOneFamilyAfterTheCommonTags() {
        final TickMetrics metrics = new TickMetrics();
        metrics.latency("tick.query|service=rdb", "query").record(2_000);
        metrics.latency("tick.query|service=gateway", "query").record(3_000);
        final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.config().commonTags("application", "hdb-service"); // what management.metrics.tags.application does
        final TickMetricsBinder binder = new TickMetricsBinder(metrics);
        binder.bindTo(registry);
        binder.bindTo(registry); // bound twice (e.g. a context refresh): still one collector

        final String text = registry.scrape();
        assertThat(text.split("# TYPE tick_query_seconds histogram", -1)).hasSize(2);
        assertThat(text).contains("tick_query_seconds_count{application=\"hdb-service\",service=\"rdb\"} 1",
            "tick_query_seconds_count{application=\"hdb-service\",service=\"gateway\"} 1",
            "tick_query_seconds_bucket{application=\"hdb-service\",service=\"gateway\",le=\"+Inf\"} 1",
            "tick_latencies{application=\"hdb-service\"} 2");
    }

    /** (le, cumulative count) of tick_tp_log_seconds, in exposition order. */
    private static List<double[]> buckets(final String text) {
        final List<double[]> out = new ArrayList<>();
        final Matcher m = BUCKET.matcher(text);
        while (m.find()) {
            out.add(new double[] {"+Inf".equals(m.group(1)) ? Double.POSITIVE_INFINITY : Double.parseDouble(m.group(1)),
                Double.parseDouble(m.group(2))});
        }
        return out;
    }

    /** The cumulative count of the smallest bucket whose bound is at least {@code le}. */
    private static double countAt(final List<double[]> buckets, final double le) {
        return buckets.stream().filter(b -> b[0] >= le).findFirst().orElseThrow()[1];
    }

    private static double value(final String text, final String series) {
        final Matcher m = Pattern.compile("^" + Pattern.quote(series) + " (\\S+)$", Pattern.MULTILINE).matcher(text);
        assertThat(m.find()).as(series).isTrue();
        return Double.parseDouble(m.group(1));
    }
}
