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
        final List<PipelineBenchmark.RunResult> res = run("--systems", "jtick,jtick-unix,chronicle", "--subscribers", "1,2",
            "--jit-warmup", "1000", "--jit-rounds", "2", "--rows", "5000", "--r", "10", "--warmup", "1000", "--latency-rate", "2000",
            "--latency-seconds", "1", "--latency-warmup-seconds", "0");

        // 2 phases x 2 subscriber counts x 3 systems
        assertThat(res).hasSize(12);
        for (final PipelineBenchmark.RunResult r : res) {
            assertThat(r.error()).as(r.system() + " " + r.phase().name()).isNull();
            assertThat(r.exactlyOnceInOrder()).as(r.system() + " " + r.phase().name()).isTrue();
            assertThat(r.orderErrors()).isZero();
            assertThat(r.subscriberRows()).hasSize(r.subscribers()).containsOnly(r.phase().totalRows());
            assertThat(r.feedToSubscriber().count()).isEqualTo(r.subscribers() * r.phase().rows() / r.phase().r());
            assertThat(r.cpuMicrosPerUpdate()).containsKeys("process", "total");
            if (r.system().startsWith("jtick") && r.phase().paced()) {
                assertThat(r.feedToAck()).as("every counted update acknowledged, each timed once").isNotNull();
                assertThat(r.feedToAck().count()).isEqualTo(r.phase().rows() / r.phase().r());
                assertThat(r.feedToAck().p50()).isPositive();
            } else {
                assertThat(r.feedToAck()).as(r.system() + " " + r.phase().name() + ": no acknowledgement timed").isNull();
            }
        }
        assertThat(res.stream().filter(r -> r.phase().name().equals(Phase.THROUGHPUT)).map(r -> r.phase().totalRows()))
            .containsOnly(6_000L);
        assertThat(res.stream().filter(r -> r.system().startsWith("jtick")).allMatch(r -> !r.internals().isEmpty())).isTrue();
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
        assertThat(text).contains("load average 1 2 3 at start").contains("chronicle").contains("ours/this").contains("ack p50")
            .contains("jtick: ")
            .containsPattern("jtick >= 5M rows/s end to end at r=100, 1 subscriber\\(s\\): [0-9,]+ -> (met|MISSED)")
            .containsPattern("jtick >= 10M rows/s at r=100 in every run, 1 subscriber\\(s\\): slowest of 2 [0-9,]+ -> (met|MISSED)");
        final Object json = Json.parse(PipelineReport.json(o, res, "1 2 3", "4 5 6"));
        assertThat(json).isInstanceOf(Map.class);
        final Map<?, ?> m = (Map<?, ?>) json;
        assertThat((List<?>) m.get("runs")).hasSize(4);
        assertThat((List<?>) m.get("medians")).hasSize(2);
        assertThat(((Map<?, ?>) ((List<?>) m.get("medians")).get(0)).keySet().stream().map(Object::toString).toList())
            .contains("ackP50Micros", "cpuMicrosPerUpdate");
    }

    @Test
    void shouldShowAcknowledgementsBesideTheSubscribersAndADashWhereThereAreNone() throws Exception {
        final PipelineBenchmark.Options o = PipelineBenchmark.Options.parse(new String[] {"--systems", "jtick,chronicle,jtick-v1",
            "--subscribers", "1", "--rows", "2000", "--r", "1", "--rate", "5000", "--warmup", "500", "--jit-warmup", "0"});
        final List<PipelineBenchmark.RunResult> res = PipelineBenchmark.run(o, r -> { });

        assertThat(res).hasSize(3).allMatch(PipelineBenchmark.RunResult::ok);
        assertThat(res.get(0).feedToAck().count()).as("warm-up acknowledgements forgotten").isEqualTo(2000);
        assertThat(res.get(1).feedToAck()).isNull();
        assertThat(res.get(2).feedToAck()).as("a protocol 1 feed is not acknowledged").isNull();
        final String text = PipelineReport.summary(o, res, "0", "0");
        assertThat(text).containsPattern("jtick feed->subscriber p50 <= chronicle's at 5,000 updates/s, 1 subscriber\\(s\\):"
            + " [0-9.]+ vs [0-9.]+ us -> (met|MISSED)").containsPattern("jtick feed->subscriber p99.9 <= 1000 us at 5,000 updates/s");
        final String chronicle = text.lines().filter(l -> l.startsWith("chronicle ")).findFirst().orElseThrow();
        assertThat(chronicle.split("\\|")[1].trim()).as("no acknowledgement percentiles").matches("-\\s+-\\s+-\\s+-");
        final String jtick = text.lines().filter(l -> l.startsWith("jtick ")).findFirst().orElseThrow();
        assertThat(jtick.split("\\|")[1]).doesNotContain("-");
        final Map<?, ?> json = (Map<?, ?>) Json.parse(PipelineReport.json(o, res, "0", "0"));
        final List<?> runs = (List<?>) json.get("runs");
        assertThat(((Map<?, ?>) runs.get(0)).get("feedToAckMicros")).isInstanceOf(Map.class);
        assertThat(((Map<?, ?>) runs.get(1)).get("feedToAckMicros")).isEqualTo(Json.NULL);
    }

    @Test
    void shouldReplicateKafkaTopicsToEveryNodeAndAskAMajorityInSync() {
        final String props = KafkaCluster.serverProperties(2, "1@127.0.0.1:1,2@127.0.0.1:2,3@127.0.0.1:3", java.nio.file.Path.of("d"),
            9092, 9093, 3);
        assertThat(props).contains("node.id=2\n", "controller.quorum.voters=1@127.0.0.1:1,2@127.0.0.1:2,3@127.0.0.1:3\n",
            "default.replication.factor=3\n", "min.insync.replicas=2\n", "offsets.topic.replication.factor=3\n");
        assertThat(KafkaSystem.producerConfig("b", new Phase(Phase.LATENCY, 10, 1, 100, 0, 65536), true))
            .containsEntry("acks", "all").containsEntry("enable.idempotence", true);
        assertThat(KafkaSystem.producerConfig("b", new Phase(Phase.LATENCY, 10, 1, 100, 0, 65536), false))
            .containsEntry("acks", "1").containsEntry("enable.idempotence", false);
    }

    @Test
    void shouldShapeEachWarmUpRunAsATimedOneWithUncountedRowsBeforeTheReset() {
        final List<Phase> phases = JitWarmup.phases(PipelineBenchmark.Options.parse(new String[] {"--rows", "5000", "--r", "10",
            "--latency-rate", "2000", "--latency-r", "2"}));

        assertThat(phases).extracting(Phase::name).containsExactly("jit-warmup", "jit-warmup-paced");
        assertThat(phases.get(0).totalRows()).as("as many rows as the timed phase").isEqualTo(5000);
        assertThat(phases.get(0).warmupRows()).as("a fifth uncounted, as the timed phase's default").isEqualTo(1000);
        assertThat(phases.get(1).rate()).isEqualTo(2000);
        assertThat(phases.get(1).totalRows()).as("one paced second, half of it before the reset").isEqualTo(4000);
        assertThat(phases.get(1).warmupRows()).isEqualTo(2000);
    }

    @Test
    void shouldCallCompilationSettledWhenTheCompilersTookAtMostAFewPercentOfTheCpu() {
        assertThat(JitWarmup.settled(0, 20)).isTrue();
        assertThat(JitWarmup.settled(1, 20)).isTrue();
        assertThat(JitWarmup.settled(1.1, 20)).isFalse();
        assertThat(JitWarmup.settled(11.2, 33.9)).isFalse();
    }

    @Test
    void shouldRefuseBadOptions() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PipelineBenchmark.Options.parse(new String[] {"--systems", "rabbit"}))
            .hasMessageContaining("unknown system [system=rabbit");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PipelineBenchmark.Options.parse(new String[] {"--rows", "10", "--r", "3"}))
            .hasMessageContaining("multiples of r");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PipelineBenchmark.Options.parse(new String[] {"--jit-rounds", "0"}))
            .hasMessageContaining("jit-rounds >= 1");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PipelineBenchmark.Options.parse(new String[] {"--jit-warmup", "-1"}))
            .hasMessageContaining("--jit-warmup rows >= 0");
    }

    @Test
    void shouldWarmUpWithAsManyRowsAsTheTimedRunUnlessToldOtherwise() {
        assertThat(PipelineBenchmark.Options.parse(new String[] {"--rows", "5000", "--r", "10"}).jitWarmupRows())
            .as("a round as long as the timed phase, so a subscriber falls behind in the warm-up as it will when timed").isEqualTo(5000);
        assertThat(PipelineBenchmark.Options.parse(new String[] {}).jitWarmupRows()).isEqualTo(10_000_000);
        assertThat(PipelineBenchmark.Options.parse(new String[] {"--rows", "5000", "--r", "10", "--jit-warmup", "1000"}).jitWarmupRows())
            .isEqualTo(1000);
        assertThat(PipelineBenchmark.Options.parse(new String[] {"--jit-warmup", "0"}).jitWarmupRows()).isZero();
    }

    @Test
    @Tag("slow")
    void shouldDeliverEveryRowOnceInOrderThroughKafkaWithOneBrokerAndWithThreeReplicas() throws Exception {
        final List<PipelineBenchmark.RunResult> res = run("--systems", "kafka,kafka-rf3", "--subscribers", "1,4", "--jit-warmup",
            "1000", "--rows", "20000", "--r", "10", "--warmup", "2000", "--latency-rate", "2000", "--latency-seconds", "1",
            "--latency-warmup-seconds", "1");

        assertThat(res).hasSize(8);
        for (final PipelineBenchmark.RunResult r : res) {
            final String what = r.system() + " " + r.phase().name() + " subs=" + r.subscribers();
            assertThat(r.error()).as(what).isNull();
            assertThat(r.exactlyOnceInOrder()).as(what).isTrue();
            assertThat(r.subscriberRows()).containsOnly(r.phase().totalRows());
            assertThat(r.cpuMicrosPerUpdate()).as(what).containsKeys("process", "broker", "total");
            if (r.system().equals("kafka-rf3")) {
                assertThat(r.cpuMicrosPerUpdate()).as("each of the three brokers").containsKeys("broker-1", "broker-2", "broker-3");
            }
            if (r.phase().paced()) {
                assertThat(r.feedToAck().count()).as(what + ": every counted record acknowledged").isEqualTo(2000);
            } else {
                assertThat(r.feedToAck()).isNull();
            }
        }
    }
}
