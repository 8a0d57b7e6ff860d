package io.jtick.core.wire;

import io.jtick.core.testing.LeakCheck;
import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.TestSupport;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(LeakCheck.class)
class UpdateCodecTest {
    private static final TableSchema ALL_TYPES = TableSchema.of("all",
        new ColumnDef("f64", ColumnType.FLOAT64), new ColumnDef("f32", ColumnType.FLOAT32), new ColumnDef("i64", ColumnType.INT64),
        new ColumnDef("i32", ColumnType.INT32), new ColumnDef("i16", ColumnType.INT16), new ColumnDef("b", ColumnType.BYTE),
        new ColumnDef("flag", ColumnType.BOOL), new ColumnDef("c", ColumnType.CHAR), new ColumnDef("ts", ColumnType.TIMESTAMP));
    private static final SchemaRegistry REGISTRY = new SchemaRegistry(List.of(ALL_TYPES, TableSchema.trade(0)));

    private static ByteBuf allTypes(final int rows) {
        final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        buf.writeBytes(new byte[5]); // frames need not start at index 0
        buf.readerIndex(5);
        final UpdateEncoder enc = new UpdateEncoder().wrap(buf, ALL_TYPES, rows, 16);
        enc.addSym("AAPL".getBytes(StandardCharsets.US_ASCII));
        enc.addSym("X".getBytes(StandardCharsets.US_ASCII));
        for (int r = 0; r < rows; r++) {
            enc.timestamp(0, r, 1_700_000_000_000_000_000L + r).sym(r, r % 2)
                .float64(2, r, r * 1.5).float32(3, r, r * 0.25f).int64(4, r, Long.MAX_VALUE - r).int32(5, r, -r)
                .int16(6, r, (short) (r * 3)).int8(7, r, r).int8(8, r, r % 2).int8(9, r, 'a' + r % 26).timestamp(10, r, r);
        }
        enc.sequence(42).feedTime(7).finish();
        return buf;
    }

    @Test
    void shouldRoundTripEveryTypeIncludingEmptyAndOneRowUpdates() {
        for (final int rows : new int[] {0, 1, 3, 1000}) {
            final ByteBuf buf = allTypes(rows);
            try {
                final int len = buf.readableBytes();
                final UpdateValidator v = new UpdateValidator(REGISTRY);
                assertThat(v.validate(buf, buf.readerIndex(), len)).as(v.reason()).isEqualTo(ErrorCode.NONE);
                final UpdateDecoder d = new UpdateDecoder().wrap(buf, buf.readerIndex());
                assertThat(d.rowCount()).isEqualTo(rows);
                assertThat(d.tableName()).isEqualTo("all");
                assertThat(d.sequence()).isEqualTo(42);
                assertThat(d.feedTime()).isEqualTo(7);
                assertThat(d.updateCount()).isEqualTo(1);
                assertThat(d.symCount()).isEqualTo(2);
                assertThat(d.symString(0)).isEqualTo("AAPL");
                for (int r = 0; r < rows; r++) {
                    assertThat(d.timestamp(r)).isEqualTo(1_700_000_000_000_000_000L + r);
                    assertThat(d.symString(d.symCode(r))).isEqualTo(r % 2 == 0 ? "AAPL" : "X");
                    assertThat(d.float64(2, r)).isEqualTo(r * 1.5);
                    assertThat(d.float32(3, r)).isEqualTo(r * 0.25f);
                    assertThat(d.int64(4, r)).isEqualTo(Long.MAX_VALUE - r);
                    assertThat(d.int32(5, r)).isEqualTo(-r);
                    assertThat(d.int16(6, r)).isEqualTo((short) (r * 3));
                    assertThat(d.int8(7, r)).isEqualTo((byte) r);
                    assertThat(d.int8(8, r)).isEqualTo((byte) (r % 2));
                    assertThat((char) d.int8(9, r)).isEqualTo((char) ('a' + r % 26));
                    assertThat(d.int64(10, r)).isEqualTo(r);
                }
            } finally {
                buf.release();
            }
        }
    }

    @Test
    void shouldWriteTheSameBytesWithWrapForFillAsWithWrapWhenEveryValueIsSet() {
        for (final int rows : new int[] {0, 1, 3, 17}) {
            final ByteBuf zeroed = PooledByteBufAllocator.DEFAULT.directBuffer(64);
            final ByteBuf filled = PooledByteBufAllocator.DEFAULT.directBuffer(64);
            try {
                filled.writeBytes(new byte[4096]);
                for (int i = 0; i < 4096; i++) {
                    filled.setByte(i, 0x5a); // garbage where the frame will go: only values may be left unwritten
                }
                filled.clear();
                for (final ByteBuf b : new ByteBuf[] {zeroed, filled}) {
                    final UpdateEncoder enc = b == zeroed ? new UpdateEncoder().wrap(b, ALL_TYPES, rows, 5)
                        : new UpdateEncoder().wrapForFill(b, ALL_TYPES, rows, 5);
                    enc.addSym("AAPL".getBytes(StandardCharsets.US_ASCII));
                    for (int r = 0; r < rows; r++) {
                        enc.timestamp(0, r, 1_700_000_000_000_000_000L + r).sym(r, 0).float64(2, r, r * 1.5).float32(3, r, r * 0.25f)
                            .int64(4, r, -r).int32(5, r, r).int16(6, r, (short) r).int8(7, r, r).int8(8, r, 1).int8(9, r, 'z')
                            .timestamp(10, r, r);
                    }
                    enc.sequence(9).finish();
                }
                assertThat(ByteBufUtil.hexDump(filled)).as("rows=%d", rows).isEqualTo(ByteBufUtil.hexDump(zeroed));
                final UpdateValidator v = new UpdateValidator(REGISTRY);
                assertThat(v.validate(filled, filled.readerIndex(), filled.readableBytes())).as(v.reason()).isEqualTo(ErrorCode.NONE);
            } finally {
                zeroed.release();
                filled.release();
            }
        }
    }

    /** The frame {@link #allTypes} writes, into {@code buf} (after 5 bytes), with a dictionary of {@code syms} syms. */
    private static String encodedInto(final ByteBuf buf, final int rows, final int syms) {
        buf.writeBytes(new byte[5]);
        buf.readerIndex(5);
        final UpdateEncoder enc = new UpdateEncoder().wrap(buf, ALL_TYPES, rows, 0);
        for (int s = 0; s < syms; s++) {
            enc.addSym(("SYM" + s).getBytes(StandardCharsets.US_ASCII));
        }
        for (int r = 0; r < rows; r++) {
            enc.timestamp(0, r, 1_700_000_000_000_000_000L + r).sym(r, r % syms).float64(2, r, r * 1.5).float32(3, r, r * 0.25f)
                .int64(4, r, Long.MAX_VALUE - r).int32(5, r, -r).int16(6, r, (short) (r * 3)).int8(7, r, r).int8(8, r, r % 2)
                .int8(9, r, 'a' + r % 26).timestamp(10, r, r);
        }
        enc.sequence(42).feedTime(7).finish();
        return ByteBufUtil.hexDump(buf);
    }

    @Test
    void shouldWriteTheSameFrameIntoDirectHeapAndCompositeBuffersAndKeepWritingAfterTheDictionaryGrowsTheBuffer() {
        // a dictionary of 300 syms reserved as 0 bytes: addSym grows each buffer (a new memory block) before the values are set
        final ByteBuf direct = PooledByteBufAllocator.DEFAULT.directBuffer(16);
        final ByteBuf heap = Unpooled.buffer(16);
        final ByteBuf composite = Unpooled.compositeBuffer();
        try {
            final String expected = encodedInto(direct, 50, 300);
            assertThat(direct.capacity()).isGreaterThan(16);
            assertThat(encodedInto(heap, 50, 300)).isEqualTo(expected);
            assertThat(encodedInto(composite, 50, 300)).isEqualTo(expected);
            final UpdateValidator v = new UpdateValidator(REGISTRY);
            assertThat(v.validate(direct, direct.readerIndex(), direct.readableBytes())).as(v.reason()).isEqualTo(ErrorCode.NONE);
            final UpdateDecoder d = new UpdateDecoder().wrap(direct, direct.readerIndex());
            assertThat(d.symCount()).isEqualTo(300);
            assertThat(d.symString(299)).isEqualTo("SYM299");
            assertThat(d.symString(d.symCode(49))).isEqualTo("SYM49");
            assertThat(d.int64(4, 49)).isEqualTo(Long.MAX_VALUE - 49);
            assertThat((char) d.int8(9, 49)).isEqualTo((char) ('a' + 49 % 26));
        } finally {
            direct.release();
            heap.release();
            composite.release();
        }
    }

    @Test
    void shouldRefuseAValueOutsideTheBufferInsteadOfWritingPastIt() {
        final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(64, 4096);
        try {
            final UpdateEncoder enc = new UpdateEncoder().wrap(buf, ALL_TYPES, 2, 8);
            assertThatThrownBy(() -> enc.int64(4, 1_000_000, 1L))
                .isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> enc.int8(7, -1_000_000, 1))
                .isInstanceOf(IndexOutOfBoundsException.class);
        } finally {
            buf.release();
        }
    }

    @Test
    void shouldNameWhatIsWrongWithEveryKindOfBadFrame() {
        final ByteBuf good = TestSupport.tradeFrame(TableSchema.trade(0), 1, "A", "B");
        final byte[] bytes = new byte[good.readableBytes()];
        good.getBytes(0, bytes);
        good.release();
        final UpdateValidator v = new UpdateValidator(REGISTRY);
        assertThat(v.validate(Unpooled.wrappedBuffer(bytes), 0, bytes.length)).isEqualTo(ErrorCode.NONE);

        assertThat(check(v, bytes, b -> { }, bytes.length - 1)).isEqualTo(ErrorCode.MALFORMED_FRAME);
        assertThat(check(v, bytes, b -> b.setByte(FrameDescriptor.VERSION_OFFSET, 2), bytes.length))
            .isEqualTo(ErrorCode.UNSUPPORTED_VERSION);
        assertThat(check(v, bytes, b -> b.setByte(FrameDescriptor.TYPE_OFFSET, MessageType.HELLO), bytes.length))
            .isEqualTo(ErrorCode.UNEXPECTED_MESSAGE);
        assertThat(check(v, bytes, b -> b.setByte(FrameDescriptor.TABLE_NAME_OFFSET, 'q'), bytes.length))
            .isEqualTo(ErrorCode.UNKNOWN_TABLE);
        assertThat(v.reason()).contains("table=qrade");
        assertThat(check(v, bytes, b -> b.setShortLE(FrameDescriptor.COLUMN_COUNT_OFFSET, 4), bytes.length))
            .isEqualTo(ErrorCode.WRONG_COLUMNS);
        assertThat(check(v, bytes, b -> b.setIntLE(FrameDescriptor.ROW_COUNT_OFFSET, 3), bytes.length))
            .isEqualTo(ErrorCode.MALFORMED_FRAME);
        assertThat(check(v, bytes, b -> b.setIntLE(FrameDescriptor.ROW_COUNT_OFFSET, -1), bytes.length))
            .isEqualTo(ErrorCode.MALFORMED_FRAME);
        // sym column (second block) code pointing past the dictionary
        final int symData = FrameDescriptor.TABLE_NAME_OFFSET + 8 + 8 + 16 + 8;
        assertThat(check(v, bytes, b -> b.setIntLE(symData, 9), bytes.length)).isEqualTo(ErrorCode.BAD_SYMBOL);
        assertThat(v.reason()).contains("code=9");
        // price block declared as int64
        final int priceHeader = FrameDescriptor.TABLE_NAME_OFFSET + 8 + 8 + 16 + 8 + 8;
        assertThat(check(v, bytes, b -> b.setByte(priceHeader, ColumnType.INT64.code()), bytes.length)).isEqualTo(ErrorCode.WRONG_TYPE);
        assertThat(v.reason()).contains("column=price", "expected=float64");
        assertThat(check(v, bytes, b -> b.setIntLE(FrameDescriptor.DICT_OFFSET_OFFSET, 8), bytes.length))
            .isEqualTo(ErrorCode.MALFORMED_FRAME);
        assertThat(UpdateValidator.checkHeader(Unpooled.wrappedBuffer(bytes), 0, 4)).satisfies(p -> {
            assertThat(p.code()).isEqualTo(ErrorCode.MALFORMED_FRAME);
            assertThat(p.reason()).contains("length");
        });
        final ByteBuf future = Unpooled.wrappedBuffer(bytes.clone());
        future.setByte(FrameDescriptor.VERSION_OFFSET, 9);
        assertThat(UpdateValidator.checkHeader(future, 0, bytes.length)).satisfies(p -> {
            assertThat(p.code()).isEqualTo(ErrorCode.UNSUPPORTED_VERSION);
            assertThat(p.reason()).contains("version=9");
        });
        assertThat(UpdateValidator.checkHeader(Unpooled.wrappedBuffer(bytes), 0, bytes.length)).isNull();
    }

    @Test
    void shouldCheckEverySymCodeAndEachChangedDictionaryWhenAFeedRepeatsItsDictionary() {
        final ByteBuf good = TestSupport.tradeFrame(TableSchema.trade(0), 1, "A", "B");
        final byte[] bytes = new byte[good.readableBytes()];
        good.getBytes(good.readerIndex(), bytes);
        good.release();
        final int dict = Unpooled.wrappedBuffer(bytes).getIntLE(FrameDescriptor.DICT_OFFSET_OFFSET) + 4;
        final int symData = FrameDescriptor.TABLE_NAME_OFFSET + 8 + 8 + 16 + 8;
        final UpdateValidator v = new UpdateValidator(REGISTRY);
        assertThat(direct(v, bytes, b -> { })).isEqualTo(ErrorCode.NONE);
        assertThat(direct(v, bytes, b -> { })).as("the same dictionary again").isEqualTo(ErrorCode.NONE);
        assertThat(direct(v, bytes, b -> b.setIntLE(symData, 2))).as("a known dictionary, a code past it").isEqualTo(ErrorCode.BAD_SYMBOL);
        assertThat(direct(v, bytes, b -> b.setByte(dict, 0))).as("same length, an empty symbol").isEqualTo(ErrorCode.BAD_SYMBOL);
        assertThat(v.reason()).contains("empty symbol");
        assertThat(direct(v, bytes, b -> b.setByte(dict, 2))).as("same length, entries that overrun the frame")
            .isEqualTo(ErrorCode.MALFORMED_FRAME);
        assertThat(direct(v, bytes, b -> b.setByte(dict + 1, 'C'))).as("another dictionary of the same length").isEqualTo(ErrorCode.NONE);
        assertThat(direct(v, bytes, b -> b.setIntLE(dict - 4, 1))).as("fewer entries than the bytes hold")
            .isEqualTo(ErrorCode.MALFORMED_FRAME);
        assertThat(direct(v, bytes, b -> { })).isEqualTo(ErrorCode.NONE);
    }

    /** Validates a copy of {@code good} in a pooled direct buffer (read by address) after {@code corrupt}. */
    private static ErrorCode direct(final UpdateValidator v, final byte[] good, final java.util.function.Consumer<ByteBuf> corrupt) {
        final ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(good.length).writeBytes(good);
        try {
            corrupt.accept(b);
            return v.validate(b, 0, good.length);
        } finally {
            b.release();
        }
    }

    private static ErrorCode check(final UpdateValidator v, final byte[] good, final java.util.function.Consumer<ByteBuf> corrupt,
                                   final int length) {
        final ByteBuf b = Unpooled.wrappedBuffer(good.clone());
        corrupt.accept(b);
        return v.validate(b, 0, length);
    }
}
