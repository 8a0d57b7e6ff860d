package io.jtick.core.kdb;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.KdbObjects;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.testing.TestSupport;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;
import java.util.Map;

import static io.jtick.core.testing.KdbObjects.call;
import static io.jtick.core.testing.KdbObjects.floats;
import static io.jtick.core.testing.KdbObjects.ints;
import static io.jtick.core.testing.KdbObjects.list;
import static io.jtick.core.testing.KdbObjects.sym;
import static io.jtick.core.testing.KdbObjects.syms;
import static io.jtick.core.testing.KdbObjects.timespans;
import static org.assertj.core.api.Assertions.assertThat;

/** Native UPDATE frames written as the {@code (`upd;`t;table)} kdb+ subscribers receive. */
@ExtendWith(LeakCheck.class)
class KdbUpdateWriterTest {
    private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

    @Test
    void shouldWriteABuiltInTradeWithKdbTimestamps() {
        final TableSchema trade = TableSchema.trade(0);
        final long t = 1_795_500_000_123_456_789L;
        final ByteBuf frame = TestSupport.tradeFrame(trade, 3, "IBM", "KX", "IBM");
        frame.setLongLE(new io.jtick.core.wire.UpdateDecoder().wrap(frame, 0).dataOffset(0), t);
        final ByteBuf msg = new KdbUpdateWriter().write(frame, 0, trade, 0, ALLOC);
        try {
            final KdbObjects.Message m = KdbObjects.read(msg);
            assertThat(m.type()).isEqualTo(KdbDescriptor.ASYNC);
            assertThat(msg.getByte(0)).as("little-endian").isEqualTo((byte) 1);
            final List<?> upd = (List<?>) m.value();
            assertThat(upd.get(0)).isEqualTo(new KdbObjects.Sym("upd"));
            assertThat(upd.get(1)).isEqualTo(new KdbObjects.Sym("trade"));
            final Map<?, ?> table = (Map<?, ?>) upd.get(2);
            assertThat(List.copyOf((java.util.Set<?>) table.keySet())).isEqualTo(List.of("time", "sym", "price", "size", "cond"));
            final KdbObjects.Temporal time = (KdbObjects.Temporal) table.get("time");
            assertThat(time.type()).isEqualTo(KdbType.TIMESTAMP);
            assertThat(time.values()[0]).isEqualTo(t - KdbDescriptor.NANOS_1970_2000);
            assertThat((String[]) table.get("sym")).containsExactly("IBM", "KX", "IBM");
            assertThat((double[]) table.get("price")).containsExactly(103.0, 103.01, 103.02);
            assertThat((long[]) table.get("size")).containsExactly(3000, 3001, 3002);
            assertThat(KdbObjects.show(table.get("cond"))).isEqualTo("ABC");
        } finally {
            msg.release();
            frame.release();
        }
    }

    @Test
    void shouldGiveBackTheTimespansAKdbFeedSentToATimeOfDayTable() {
        final long hour = 3_600_000_000_000L;
        final ByteBuf in = KdbObjects.message(ALLOC, false, 0, call(".u.upd", sym("trade"), list(timespans(9 * hour, 16 * hour),
            syms("A", "B"), floats(1.5, 2.5), ints(10, 20))));
        final KdbReader r = new KdbReader().wrap(in, 0, in.readableBytes());
        final KdbCall call = new KdbCall();
        call.parse(r);
        final ByteBuf frame = new KdbUpdateReader(KdbUpdateReaderTest.SCHEMAS).read(r, call.argument(0), call.argument(1), ALLOC,
            KdbUpdateReaderTest.DAY);
        final ByteBuf out = new KdbUpdateWriter().write(frame, 0, KdbUpdateReaderTest.SCHEMAS.get("trade"), KdbUpdateReaderTest.DAY,
            ALLOC);
        try {
            assertThat(KdbObjects.show(KdbObjects.read(out).value())).isEqualTo(
                "(`upd;`trade;[time:timespan[" + 9 * hour + ", " + 16 * hour + "] sym:[A, B] price:[1.5, 2.5] size:[10, 20]])");
        } finally {
            out.release();
            frame.release();
            in.release();
        }
    }

    @Test
    void shouldWriteEmptyTablesWithEachColumnsKdbType() {
        final ByteBuf b = KdbWriter.begin(ALLOC, KdbDescriptor.RESPONSE, 64);
        KdbWriter.emptyTable(b, KdbUpdateReaderTest.SCHEMAS.get("every"));
        KdbWriter.end(b);
        final int[] types = new int[9];
        int p = 8 + 3;
        final KdbReader r = new KdbReader().wrap(b, 0, b.readableBytes());
        p = r.skip(p);
        p = KdbReader.values(p);
        for (int c = 0; c < 9; c++) {
            types[c] = r.type(p);
            assertThat(r.count(p)).isZero();
            p = r.skip(p);
        }
        assertThat(types).containsExactly(KdbType.TIMESTAMP, KdbType.SYMBOL, KdbType.FLOAT, KdbType.REAL, KdbType.LONG, KdbType.INT,
            KdbType.SHORT, KdbType.BOOLEAN, KdbType.CHAR);
        assertThat(p).isEqualTo(b.readableBytes());
        b.release();
    }
}
