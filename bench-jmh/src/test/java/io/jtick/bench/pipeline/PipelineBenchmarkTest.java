package io.jtick.bench.pipeline;

import io.jtick.core.query.model.Json;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs the pipeline benchmark small, on real sockets, queues and (slow) a real broker: checks delivery, never timings. */
class PipelineBenchmarkTest {
    private static List<PipelineBenchmark.RunResult> run(final String... args) throws Exception {
        final List<PipelineBenchmark.RunResult> seen = new ArrayList<>();
        final List<PipelineBenchmark.RunResult> out = PipelineBenchmark.run(PipelineBenchmark.Options.parse(args), seen::add);
        assertThat(seen).isEqualTo(out);
        return out;
    }

    @Test
    void shouldDeliverEveryRowOnceInOrderThroughJtickAndChronicle() throws Exception {
        final List<PipelineBenchmark.RunResult> res = run("--systems", "jtick,chronicle", "--subscribers", "1,2", "--jit-warmup", "1000",
            "--rows", "5000", "--r", "10", "--warmup", "1000", "--latency-rate", "2000", "--latency-seconds", "1",
            "--latency-warmup-seconds", "0");

        // 2 phases x 2 subscriber counts x 2 systems
        assertThat(res).hasSize(8);
        for (final PipelineBenchmark.RunResult r : res) {
            assertThat(r.error()).as(r.system() + " " + r.phase().name()).isNull();
            assertThat(r.exactlyOnceInOrder()).as(r.system() + " " + r.phase().name()).isTrue();
            assertThat(r.orderErrors()).isZero();
            assertThat(r.subscriberRows()).hasSize(r.subscribers()).containsOnly(r.phase().totalRows());
            assertThat(r.feedToSubscriber().count()).isEqualTo(r.subscribers() * r.phase().rows() / r.phase().r());
            assertThat(r.cpuMicrosPerUpdate()).containsKey("process");
        }
        assertThat(res.stream().filter(r -> r.phase().name().equals(Phase.THROUGHPUT)).map(r -> r.phase().totalRows()))
            .containsOnly(6_000L);
        assertThat(res.stream().filter(r -> r.system().equals("jtick")).allMatch(r -> !r.internals().isEmpty())).isTrue();
    }

    @Test
    void shouldCheckOnlyWithTheCheckSink() throws Exception {
        final List<PipelineBenchmark.RunResult> res = run("--systems", "jtick,chronicle", "--subscribers", "1", "--jit-warmup", "0",
            "--rows", "1000", "--r", "1", "--rate", "10000", "--warmup", "0", "--sink", "check");

        assertThat(res).hasSize(2).allMatch(PipelineBenchmark.RunResult::ok);
        assertThat(res.get(0).phase().name()).isEqualTo(Phase.LATENCY);
    }

    @Test
    void shouldPrintMediansRatiosTargetsAndJson() throws Exception {
        final PipelineBenchmark.Options o = PipelineBenchmark.Options.parse(new String[] {"--systems", "jtick,chronicle",
            "--subscribers", "1", "--rows", "10000", "--r", "100", "--warmup", "1000", "--latency-rate", "0", "--repeat", "2",
            "--jit-warmup", "0"});
        final List<PipelineBenchmark.RunResult> res = PipelineBenchmark.run(o, r -> { });

        assertThat(res).hasSize(4);
        assertThat(res).extracting(PipelineBenchmark.RunResult::system).as("each repeat starts with the next system")
            .containsExactly("jtick", "chronicle", "chronicle", "jtick");
        final String text = PipelineReport.summary(o, res, "1 2 3", "4 5 6");
        assertThat(text).contains("load average 1 2 3 at start").contains("chronicle").contains("jtick/this")
            .containsPattern("jtick >= 5M rows/s end to end at r=100, 1 subscriber\\(s\\): [0-9,]+ -> (met|MISSED)");
        final Object json = Json.parse(PipelineReport.json(o, res, "1 2 3", "4 5 6"));
        assertThat(json).isInstanceOf(Map.class);
        final Map<?, ?> m = (Map<?, ?>) json;
        assertThat((List<?>) m.get("runs")).hasSize(4);
        assertThat((List<?>) m.get("medians")).hasSize(2);
    }

    @Test
    void shouldRefuseBadOptions() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PipelineBenchmark.Options.parse(new String[] {"--systems", "rabbit"}))
            .hasMessageContaining("unknown system [system=rabbit");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PipelineBenchmark.Options.parse(new String[] {"--rows", "10", "--r", "3"}))
            .hasMessageContaining("multiples of r");
    }

    @Test
    @Tag("slow")
    void shouldDeliverEveryRowOnceInOrderThroughKafka() throws Exception {
        final List<PipelineBenchmark.RunResult> res = run("--systems", "kafka", "--subscribers", "1,4", "--jit-warmup", "1000",
            "--rows", "20000", "--r", "10", "--warmup", "2000", "--latency-rate", "2000", "--latency-seconds", "1",
            "--latency-warmup-seconds", "0");

        assertThat(res).hasSize(4);
        for (final PipelineBenchmark.RunResult r : res) {
            assertThat(r.error()).as(r.phase().name() + " subs=" + r.subscribers()).isNull();
            assertThat(r.exactlyOnceInOrder()).isTrue();
            assertThat(r.subscriberRows()).containsOnly(r.phase().totalRows());
            assertThat(r.cpuMicrosPerUpdate()).containsKeys("process", "broker");
        }
    }
}
