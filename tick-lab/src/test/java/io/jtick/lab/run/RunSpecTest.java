package io.jtick.lab.run;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RunSpecTest {
    private static RunSpec parse(final Object... kv) {
        final Map<String, Object> body = new java.util.LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            body.put((String) kv[i], kv[i + 1]);
        }
        return RunSpec.parse(body);
    }

    @Test
    void shouldRunThePapersMatricesByDefault() {
        assertThat(parse("experiment", "rows-per-update").matrix()).hasSize(10).first()
            .isEqualTo(LabParams.of(1, 10, 1));
        assertThat(parse("experiment", "row-size").matrix()).hasSize(12).extracting(LabParams::ex).containsOnly(0, 10, 50, 150);
        assertThat(parse("experiment", "publish-frequency").matrix()).extracting(LabParams::mode)
            .containsExactly("zero-latency", "timer-publish", "timer-log-publish");
        assertThat(parse("experiment", "subscribers").matrix()).hasSize(12).extracting(LabParams::subscribers)
            .containsOnly(1, 3, 5, 10);
        final List<LabParams> broadcast = parse("experiment", "broadcast").matrix();
        assertThat(broadcast).hasSize(16).extracting(LabParams::subscribers).containsOnly(1, 10, 50, 100);
        assertThat(broadcast).extracting(LabParams::broadcast).containsOnly(true, false);
        assertThat(broadcast).extracting(LabParams::targetRowsPerSecond).containsOnly(1000.0, 50_000.0);
        assertThat(parse("experiment", "rows-per-update").durationSeconds()).isEqualTo(RunSpec.DEFAULT_DURATION_SECONDS);
    }

    @Test
    void shouldOverrideOnlyTheKeysAnEntryNames() {
        final RunSpec s = parse("experiment", "publish-frequency", "durationSeconds", 5,
            "matrix", List.of(Map.of("mode", "timer-publish", "timer", "50ms"), Map.of("r", "2", "subs", 3, "broadcast", false)));
        assertThat(s.durationSeconds()).isEqualTo(5);
        assertThat(s.matrix().get(0)).isEqualTo(LabParams.of(1, 10, 1).withMode(io.jtick.core.tp.PublishMode.TIMER_PUBLISH, 50));
        assertThat(s.matrix().get(1)).isEqualTo(LabParams.of(2, 10, 1).withSubscribers(3).withBroadcast(false));
        final RunSpec custom = parse("experiment", "custom",
            "matrix", List.of(Map.of("r", 100, "u", 1, "t", 10, "ex", 5, "timer", "1.5s")));
        assertThat(custom.matrix().get(0).targetRowsPerSecond()).isEqualTo(10_000.0);
        assertThat(custom.matrix().get(0).ex()).isEqualTo(5);
        assertThat(custom.matrix().get(0).timerMillis()).isEqualTo(1500);
    }

    @Test
    void shouldRunThroughputQsBulksAndIoQsListByDefault() {
        final List<LabParams> throughput = parse("experiment", "throughput").matrix();
        assertThat(throughput).extracting(LabParams::r).containsExactly(1, 10, 100, 1000, 10_000);
        assertThat(throughput).extracting(LabParams::syms).containsOnly(1000);
        assertThat(parse("experiment", "throughput", "matrix", List.of(Map.of("r", 100_000, "syms", 10))).matrix().get(0))
            .as("a bulk far past the tickerplant lab's rate limit is a valid insert").extracting(LabParams::r, LabParams::syms)
            .containsExactly(100_000, 10);
        assertThat(parse("experiment", "io").matrix()).hasSize(1);
        assertThat(Experiment.THROUGHPUT.seedScript()).isTrue();
        assertThat(Experiment.IO.seedScript()).isTrue();
        assertThat(Experiment.BROADCAST.seedScript()).isFalse();
        assertThat(Experiment.REPLAY.seedScript()).isFalse();
        bad("matrix entry 1: r (rows per insert) must be 1..1000000 [r=0]", "experiment", "throughput", "matrix", List.of(Map.of("r", 0)));
        bad("syms must be 1..17576", "experiment", "throughput", "matrix", List.of(Map.of("syms", 20_000)));
    }

    @Test
    void shouldRejectBadParametersWithTheReason() {
        bad("matrix entry 1: r must be 1..1000000 [r=0]", "experiment", "rows-per-update", "matrix", List.of(Map.of("r", 0)));
        bad("unknown matrix key [key=lines", "experiment", "custom", "matrix", List.of(Map.of("lines", 1)));
        bad("unknown experiment [experiment=latency", "experiment", "latency");
        bad("experiment is required", "durationSeconds", 3);
        bad("unknown field [field=duration", "experiment", "custom", "duration", 3);
        bad("durationSeconds must be 1..600 [durationSeconds=0]", "experiment", "subscribers", "durationSeconds", 0);
        bad("needs a matrix", "experiment", "custom");
        bad("subscribers must be 1..200 [subscribers=500]", "experiment", "custom", "matrix", List.of(Map.of("subscribers", 500)));
        bad("too much load", "experiment", "custom", "matrix", List.of(Map.of("r", 1000, "u", 1000, "t", 1)));
        bad("exceeds the frame limit", "experiment", "custom", "matrix", List.of(Map.of("r", 1_000_000, "ex", 100, "t", 1000)));
        bad("timer batch would exceed", "experiment", "custom",
            "matrix", List.of(Map.of("r", 10_000, "u", 100, "t", 1000, "ex", 20, "mode", "timer-publish", "timer", 10_000)));
        bad("r must be a whole number [r=abc]", "experiment", "custom", "matrix", List.of(Map.of("r", "abc")));
        bad("r must be a whole number [r=1.5]", "experiment", "custom", "matrix", List.of(Map.of("r", 1.5)));
        bad("unknown publish mode", "experiment", "custom", "matrix", List.of(Map.of("mode", "sometimes")));
        bad("broadcast must be true or false", "experiment", "custom", "matrix", List.of(Map.of("broadcast", "yes")));
        bad("matrix must be a list", "experiment", "custom", "matrix", "r=1");
        bad("matrix entries must be objects", "experiment", "custom", "matrix", List.of(1));
        bad("unknown table", "experiment", "custom", "matrix", List.of(Map.of("table", "trades")));
        bad("run planned too long", "experiment", "rows-per-update", "durationSeconds", 600,
            "matrix", java.util.Collections.nCopies(30, Map.of("r", 1)));
    }

    private static void bad(final String message, final Object... kv) {
        assertThatThrownBy(() -> parse(kv)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }
}
