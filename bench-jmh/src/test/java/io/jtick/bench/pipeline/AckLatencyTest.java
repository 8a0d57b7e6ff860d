package io.jtick.bench.pipeline;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Feed → acknowledgement latency on a clock the test moves. */
class AckLatencyTest {
    private final AtomicLong now = new AtomicLong(1_000_000);

    @Test
    void shouldTimeEachUpdateACumulativeAcknowledgementCovers() {
        final AckLatency acks = AckLatency.numbered(now::get, 1, 8);
        acks.sent(1_000_000);
        acks.sent(1_000_100);
        acks.sent(1_000_200);
        now.set(1_000_500);
        acks.acknowledgedThrough(2);
        now.set(1_001_200);
        acks.acknowledgedThrough(2);
        acks.acknowledgedThrough(3);

        assertThat(acks.count()).as("each update once, a repeated number adds nothing").isEqualTo(3);
        final Histogram h = acks.histogram();
        assertThat(h.getTotalCount()).isEqualTo(3);
        assertThat(h.getMinValue()).isEqualTo(h.lowestEquivalentValue(400));
        assertThat(h.getMaxValue()).isEqualTo(h.highestEquivalentValue(1_000));
    }

    @Test
    void shouldNumberFromWhereTheFeedStandsAndRefuseToOverrunItsRing() {
        final AckLatency acks = AckLatency.numbered(now::get, 41, 3);
        for (int k = 0; k < 4; k++) {
            acks.sent(now.get());
        }
        assertThatThrownBy(() -> acks.sent(now.get())).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("unacknowledged=4, ring=4");
        acks.acknowledgedThrough(41);
        acks.sent(now.get());
        acks.acknowledgedThrough(45);
        assertThat(acks.count()).isEqualTo(5);
    }

    @Test
    void shouldForgetTheWarmUpAndWaitForTheRest() {
        final AckLatency acks = AckLatency.perUpdate(now::get);
        now.set(5_000_000);
        acks.acknowledged(0);
        acks.await(1, 1_000, () -> null);
        acks.reset();
        acks.acknowledged(now.get() - 2_000);

        final Histogram h = acks.histogram();
        assertThat(h.getTotalCount()).isEqualTo(1);
        assertThat(h.getMaxValue()).isEqualTo(h.highestEquivalentValue(2_000));
        assertThatThrownBy(() -> acks.await(3, 1_000, () -> "producer failed")).hasMessageContaining("acknowledged 2 of 3")
            .hasMessageContaining("producer failed");
    }
}
