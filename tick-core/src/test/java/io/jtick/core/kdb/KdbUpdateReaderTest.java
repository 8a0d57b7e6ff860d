package io.jtick.core.kdb;

import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.KdbObjects;
import io.jtick.core.testing.KdbObjects.Obj;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateValidator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;

import static io.jtick.core.testing.KdbObjects.c;
import static io.jtick.core.testing.KdbObjects.call;
import static io.jtick.core.testing.KdbObjects.chars;
import static io.jtick.core.testing.KdbObjects.f;
import static io.jtick.core.testing.KdbObjects.floats;
import static io.jtick.core.testing.KdbObjects.i;
import static io.jtick.core.testing.KdbObjects.ints;
import static io.jtick.core.testing.KdbObjects.j;
import static io.jtick.core.testing.KdbObjects.list;
import static io.jtick.core.testing.KdbObjects.longs;
import static io.jtick.core.testing.KdbObjects.n;
import static io.jtick.core.testing.KdbObjects.reals;
import static io.jtick.core.testing.KdbObjects.shorts;
import static io.jtick.core.testing.KdbObjects.sym;
import static io.jtick.core.testing.KdbObjects.syms;
import static io.jtick.core.testing.KdbObjects.table;
import static io.jtick.core.testing.KdbObjects.timespans;
import static io.jtick.core.testing.KdbObjects.timestamps;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** kdb+ {@code .u.upd} arguments into native UPDATE frames: every form, conversions, and every refusal with its message. */
@ExtendWith(LeakCheck.class)
class KdbUpdateReaderTest {
    private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
    /** kdb-tick's sym.q, plus a table of every column type. */
    static final SchemaRegistry SCHEMAS = SchemaRegistry.fromYaml(new StringReader("""
        tables:
          trade: [time:timespan, sym:symbol, price:float, size:int]
          quote: [time:timespan, sym:symbol, bid:float, ask:float, bsize:int, asize:int]
          every: [time:timestamp, sym:symbol, f64:float64, f32:float32, i64:int64, i32:int32, i16:int16, flag:bool, c:char]
        """));
    /** 2026-11-24T00:00:00Z. */
    static final long DAY = 1_795_478_400_000_000_000L;
    private static final long HOUR = 3_600_000_000_000L;

    private final KdbUpdateReader reader = new KdbUpdateReader(SCHEMAS);
    private final KdbReader kdb = new KdbReader();

    /** The frame for {@code .u.upd[`table; data]}, as rows of strings, or the error "code: reason". */
    private List<String> convert(final boolean le, final String table, final Obj data) {
        final ByteBuf msg = KdbObjects.message(ALLOC, le, KdbDescriptor.ASYNC, call(".u.upd", sym(table), data));
        try {
            kdb.wrap(msg, 0, msg.readableBytes());
            final KdbCall call = new KdbCall();
            assertThat(call.parse(kdb)).isTrue();
            final ByteBuf frame = reader.read(kdb, call.argument(0), call.argument(1), ALLOC, DAY);
            if (frame == null) {
                return List.of(reader.code().tag() + ": " + reader.reason());
            }
            try {
                return rows(frame);
            } finally {
                frame.release();
            }
        } finally {
            msg.release();
        }
    }

    private static List<String> rows(final ByteBuf frame) {
        final UpdateValidator validator = new UpdateValidator(SCHEMAS);
        assertThat(validator.validate(frame, 0, frame.readableBytes())).as(validator.reason()).isEqualTo(ErrorCode.NONE);
        final UpdateDecoder d = new UpdateDecoder().wrap(frame, 0);
        final TableSchema schema = validator.table();
        final List<String> out = new ArrayList<>();
        final boolean stamp = (d.flags() & FrameDescriptor.FLAG_STAMP_TIME) != 0;
        for (int r = 0; r < d.rowCount(); r++) {
            final StringBuilder sb = new StringBuilder(stamp ? "stamp" : Long.toString(d.timestamp(r)));
            sb.append(' ').append(d.symString(d.symCode(r)));
            for (int col = 2; col < schema.columnCount(); col++) {
                sb.append(' ');
                switch (schema.type(col)) {
                    case FLOAT64 -> sb.append(d.float64(col, r));
                    case FLOAT32 -> sb.append(d.float32(col, r));
                    case INT64, TIMESTAMP -> sb.append(d.int64(col, r));
                    case INT32 -> sb.append(d.int32(col, r));
                    case INT16 -> sb.append(d.int16(col, r));
                    case CHAR -> sb.append((char) d.int8(col, r));
                    default -> sb.append(d.int8(col, r));
                }
            }
            out.add(sb.toString());
        }
        return out;
    }

    @Test
    void shouldConvertColumnsInEitherByteOrderAddingTheDateToTimespans() {
        final Obj data = list(timespans(9 * HOUR, 10 * HOUR), syms("IBM", "MSFT"), floats(101.5, 202.25), ints(100, 200));
        final List<String> expected = List.of((DAY + 9 * HOUR) + " IBM 101.5 100", (DAY + 10 * HOUR) + " MSFT 202.25 200");
        assertThat(convert(true, "trade", data)).isEqualTo(expected);
        assertThat(convert(false, "trade", data)).as("big-endian, as javakdb sends").isEqualTo(expected);
    }

    @Test
    void shouldLetTheTickerplantStampATimeLeftOutAsTickQDoes() {
        assertThat(convert(true, "trade", list(syms("IBM", "IBM", "KX"), floats(1, 2, 3), ints(1, 2, 3))))
            .containsExactly("stamp IBM 1.0 1", "stamp IBM 2.0 2", "stamp KX 3.0 3");
        assertThat(convert(true, "trade", list(sym("IBM"), f(1.5), i(7)))).as("one row of atoms").containsExactly("stamp IBM 1.5 7");
        assertThat(convert(true, "trade", list(n(HOUR), sym("IBM"), f(1.5), i(7)))).containsExactly((DAY + HOUR) + " IBM 1.5 7");
    }

    @Test
    void shouldMatchTableColumnsByNameInAnyOrder() {
        assertThat(convert(true, "trade", table(new String[] {"size", "price", "sym"}, ints(5, 6), floats(1.25, 2.5),
            syms("A", "B")))).containsExactly("stamp A 1.25 5", "stamp B 2.5 6");
        assertThat(convert(false, "trade", table(new String[] {"sym", "time", "price", "size"}, syms("A"), timespans(0),
            floats(3), ints(9)))).containsExactly(DAY + " A 3.0 9");
    }

    @Test
    void shouldTakeKdbTimestampsAndEveryColumnType() {
        final long t2000 = 1_000_000_000L;
        final Obj data = list(timestamps(t2000, KdbDescriptor.NULL_LONG), syms("A", "B"), floats(1.5, Double.NaN), reals(2.5f, 3.5f),
            longs(Long.MAX_VALUE, KdbDescriptor.NULL_LONG), ints(-1, Integer.MIN_VALUE), shorts((short) 7, Short.MIN_VALUE),
            KdbObjects.bools(true, false), chars("XY"));
        assertThat(convert(true, "every", data)).containsExactly(
            (KdbDescriptor.NANOS_1970_2000 + t2000) + " A 1.5 2.5 " + Long.MAX_VALUE + " -1 7 1 X",
            Long.MIN_VALUE + " B NaN 3.5 " + Long.MIN_VALUE + " " + Integer.MIN_VALUE + " -32768 0 Y");
    }

    @Test
    void shouldWidenLosslesslyKeepingNullsNull() {
        final Obj data = list(timestamps(0), syms("A"), reals(0.1f), reals(0.5f), ints(Integer.MIN_VALUE), shorts(Short.MIN_VALUE),
            shorts((short) 3), KdbObjects.bools(true), chars("Z"));
        assertThat(convert(true, "every", data)).containsExactly(KdbDescriptor.NANOS_1970_2000 + " A " + (double) 0.1f + " 0.5 "
            + Long.MIN_VALUE + " " + Integer.MIN_VALUE + " 3 1 Z");
        assertThat(convert(true, "trade", list(syms("A"), floats(1), shorts((short) 12)))).containsExactly("stamp A 1.0 12");
    }

    @Test
    void shouldTakeListsOfAtomsAndStringsAsPythonAndPolarsClientsSendThem() {
        assertThat(convert(true, "trade", list(list(sym("IBM"), sym("KX")), list(f(1), f(2)), list(i(3), i(4)))))
            .containsExactly("stamp IBM 1.0 3", "stamp KX 2.0 4");
        assertThat(convert(true, "trade", table(new String[] {"sym", "price", "size"}, list(chars("IBM"), chars("MSFT")), floats(1, 2),
            ints(5, 6)))).containsExactly("stamp IBM 1.0 5", "stamp MSFT 2.0 6");
        assertThat(convert(true, "trade", list(chars("IBM"), f(1), i(2)))).as("one row, sym as a string")
            .containsExactly("stamp IBM 1.0 2");
    }

    @Test
    void shouldNeverNarrowAndNameWhatIsWrong() {
        assertThat(convert(true, "trade", list(syms("A"), longs(1), ints(1)))).containsExactly(
            "wrong-type: type [table=trade column=price expected=float got=long]");
        assertThat(convert(true, "trade", list(syms("A"), floats(1), longs(1)))).containsExactly(
            "wrong-type: type [table=trade column=size expected=int got=long]");
        assertThat(convert(true, "every", list(timestamps(0), syms("A"), floats(1), floats(1), longs(1), ints(1), shorts((short) 1),
            KdbObjects.bools(true), chars("x")))).containsExactly("wrong-type: type [table=every column=f32 expected=real got=float]");
        assertThat(convert(true, "trade", list(timestamps(0), syms("A"), floats(1), ints(1)))).as("a timestamp fits a time of day column")
            .hasSize(1).allMatch(s -> s.startsWith(Long.toString(KdbDescriptor.NANOS_1970_2000)));
        assertThat(convert(true, "every", list(timespans(HOUR), syms("A"), floats(1), reals(1), longs(1), ints(1), shorts((short) 1),
            KdbObjects.bools(true), chars("x")))).as("a time of day fits a timestamp time column too: the trading date is added")
            .containsExactly((DAY + HOUR) + " A 1.0 1.0 1 1 1 1 x");
        assertThat(convert(true, "every", list(timestamps(0), syms("A"), floats(1), reals(1), longs(1), ints(1), shorts((short) 1),
            KdbObjects.bools(true), KdbObjects.bools(true))))
            .containsExactly("wrong-type: type [table=every column=c expected=char got=boolean]");
        assertThat(convert(true, "trade", list(longs(0), syms("A"), floats(1), ints(1)))).containsExactly(
            "wrong-type: type [table=trade column=time expected=timespan got=long]");
        assertThat(convert(true, "trade", list(sym("A"), f(1), j(1)))).containsExactly(
            "wrong-type: type [table=trade column=size expected=int got=long]");
        assertThat(convert(true, "trade", list(list(sym("A"), c('B')), floats(1, 2), ints(1, 2)))).containsExactly(
            "wrong-type: type [table=trade column=sym expected=symbol got=char]");
        assertThat(convert(true, "trade", floats(1, 2))).containsExactly(
            "wrong-type: type [table=trade argument=data expected=table|list got=float]");
    }

    @Test
    void shouldRefuseUnknownTablesWrongShapesAndNullSymbols() {
        assertThat(convert(true, "nope", list(syms("A"), floats(1), ints(1)))).containsExactly("unknown-table: unknown table [table=nope]");
        assertThat(convert(true, "trade", list(syms("A"), floats(1)))).containsExactly(
            "wrong-columns: length [table=trade columns=2 expected=4 or 3 without time]");
        assertThat(convert(true, "trade", list(syms("A", "B"), floats(1), ints(1, 2)))).containsExactly(
            "wrong-columns: length [table=trade column=price rows=1 expected=2]");
        assertThat(convert(true, "trade", table(new String[] {"sym", "price"}, syms("A"), floats(1)))).containsExactly(
            "wrong-columns: missing column [table=trade column=size]");
        assertThat(convert(true, "trade", table(new String[] {"sym", "price", "size", "venue"}, syms("A"), floats(1), ints(1), syms("X"))))
            .containsExactly("wrong-columns: unknown column [table=trade column=venue]");
        assertThat(convert(true, "trade", list(syms("A", ""), floats(1, 2), ints(1, 2)))).containsExactly(
            "bad-symbol: null symbol [table=trade column=sym row=1]");
        assertThat(convert(true, "trade", list(syms("x".repeat(256)), floats(1), ints(1)))).containsExactly(
            "bad-symbol: symbol too long [table=trade column=sym row=0 length=256 max=255]");
    }

    @Test
    void shouldBuildTheDictionaryOncePerDistinctSym() {
        final String[] s = new String[1000];
        final int[] sizes = new int[1000];
        final double[] prices = new double[1000];
        for (int k = 0; k < s.length; k++) {
            s[k] = "S" + (k % 37);
            sizes[k] = k;
            prices[k] = k / 4.0;
        }
        final ByteBuf msg = KdbObjects.message(ALLOC, true, 0, call(".u.upd", sym("trade"), list(syms(s), floats(prices), ints(sizes))));
        kdb.wrap(msg, 0, msg.readableBytes());
        final KdbCall call = new KdbCall();
        call.parse(kdb);
        final ByteBuf frame = reader.read(kdb, call.argument(0), call.argument(1), ALLOC, DAY);
        final UpdateDecoder d = new UpdateDecoder().wrap(frame, 0);
        assertThat(d.symCount()).isEqualTo(37);
        for (int r = 0; r < 1000; r++) {
            assertThat(d.symString(d.symCode(r))).isEqualTo(s[r]);
            assertThat(d.int32(3, r)).isEqualTo(r);
        }
        frame.release();
        msg.release();
    }

    @Test
    void shouldThrowMalformedForTruncatedObjects() {
        final ByteBuf msg = KdbObjects.message(ALLOC, true, 0, call(".u.upd", sym("trade"), list(syms("A"), floats(1), ints(1))));
        final ByteBuf cut = msg.retainedSlice(0, msg.readableBytes() - 3);
        cut.setIntLE(4, cut.readableBytes());
        kdb.wrap(cut, 0, cut.readableBytes());
        final KdbCall call = new KdbCall();
        assertThat(call.parse(kdb)).as("the call's shape is read; its data is checked as it is converted").isTrue();
        assertThatThrownBy(() -> reader.read(kdb, call.argument(0), call.argument(1), ALLOC, DAY)).isInstanceOf(KdbReader.Malformed.class)
            .hasMessageContaining("ends early");
        cut.release();
        msg.release();
    }
}
