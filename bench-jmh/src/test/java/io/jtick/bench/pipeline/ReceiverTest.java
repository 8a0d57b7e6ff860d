package io.jtick.bench.pipeline;

import io.jtick.bench.TradeFrames;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The delivery check every system's subscriber runs: it must catch a gap, a duplicate and a reorder. */
class ReceiverTest {
    private static final TableSchema TRADE = SchemaRegistry.builtIn(0).get("trade");
    private static final byte[][] SYMS = TradeFrames.syms(3);

    private final PipelineSystem peer = new ChronicleSystem(TRADE, true, null, NanoClock.SYSTEM);

    private static void deliver(final Receiver r, final long first, final int rows) {
        final ByteBuf buf = Unpooled.buffer(TradeFrames.maxLength(TRADE, rows, SYMS));
        TradeFrames.encode(new UpdateEncoder(), buf, TRADE, rows, first, SYMS, 1, 1);
        r.onUpdate(new UpdateDecoder().wrap(buf, 0), 2);
    }

    @Test
    void shouldAcceptEveryRowOnceInOrder() {
        final Receiver r = peer.newReceiver(100);
        r.target(30);
        deliver(r, 0, 10);
        deliver(r, 10, 10);
        deliver(r, 20, 10);

        assertThat(r.rows()).isEqualTo(30);
        assertThat(r.doneNanos()).isPositive();
        assertThat(r.exactlyOnceInOrder(30)).isTrue();
        assertThat(r.latency().getTotalCount()).isEqualTo(3);
    }

    @Test
    void shouldCatchAGap() {
        final Receiver r = peer.newReceiver(100);
        deliver(r, 0, 10);
        deliver(r, 20, 10);

        assertThat(r.orderErrors()).isEqualTo(1);
        assertThat(r.firstError()).isEqualTo("row 20 where 10 was expected");
        assertThat(r.exactlyOnceInOrder(20)).isFalse();
    }

    @Test
    void shouldCatchADuplicateEvenWhenTheCountAddsUp() {
        final Receiver r = peer.newReceiver(100);
        deliver(r, 0, 10);
        deliver(r, 0, 10);

        assertThat(r.rows()).isEqualTo(20);
        assertThat(r.exactlyOnceInOrder(20)).isFalse();
    }

    @Test
    void shouldCatchAStoredTableThatDisagreesWithTheCount() {
        final Receiver r = peer.newReceiver(100);
        deliver(r, 0, 10);

        assertThat(Receiver.rowsInOrder(null, 10)).isFalse();
        assertThat(r.exactlyOnceInOrder(11)).isFalse();
        assertThat(r.exactlyOnceInOrder(10)).isTrue();
    }
}
