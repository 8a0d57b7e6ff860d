package io.jtick.lab.profiling;

import io.jtick.lab.run.Window;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SettleRuleTest {
    private static final SettleRule RULE = SettleRule.DEFAULT;

    private static Window w(final double tpupd, final double rdbrecv) {
        return new Window(1, 100, 100, tpupd, rdbrecv);
    }

    @Test
    void shouldSettleWhenTheLastWindowsAgreeWithinTheTolerance() {
        assertThat(RULE.settled(List.of(w(50, 200), w(20, 80), w(21, 82), w(20.5, 79)))).isTrue();
        assertThat(RULE.settled(List.of(w(20, 80), w(21, 82)))).as("fewer windows than the rule needs").isFalse();
    }

    @Test
    void shouldNotSettleWhileAMedianDrifts() {
        assertThat(RULE.settled(List.of(w(20, 80), w(20, 90), w(20, 100)))).isFalse();
        assertThat(RULE.settled(List.of(w(20, 80), w(25, 80), w(30, 80)))).isFalse();
    }

    @Test
    void shouldAllowAMicrosecondOfJitterOnSmallMedians() {
        assertThat(RULE.settled(List.of(w(2.1, 40), w(2.9, 40), w(2.4, 41)))).isTrue();
        assertThat(RULE.settled(List.of(w(2.1, 40), w(3.5, 40), w(2.4, 41)))).isFalse();
    }

    @Test
    void shouldIgnoreWindowsWithTooFewValues() {
        final Window thin = new Window(1, 3, 3, 20.0, 80.0);
        assertThat(RULE.settled(List.of(w(20, 80), w(20, 80), thin))).isFalse();
        assertThat(RULE.settled(List.of(w(20, 80), w(20, 80), new Window(1, 100, 100, 20.0, null)))).isFalse();
    }
}
