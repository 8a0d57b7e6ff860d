package io.jtick.core.table;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class SymbolTableTest {
    @Test
    void shouldGiveDenseIdsInTheOrderSymbolsFirstCame() {
        final SymbolTable syms = new SymbolTable();

        assertThat(syms.intern("IBM")).isZero();
        assertThat(syms.intern("MSFT")).isEqualTo(1);
        assertThat(syms.intern("IBM")).isZero();
        assertThat(syms.intern("AAPL")).isEqualTo(2);

        assertThat(syms.size()).isEqualTo(3);
        assertThat(syms.name(1)).isEqualTo("MSFT");
        assertThat(syms.bytes(2)).isEqualTo("AAPL".getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void shouldFindWithoutAddingAndAnswerMinusOneForAnUnknownSymbol() {
        final SymbolTable syms = new SymbolTable();
        syms.intern("IBM");

        assertThat(syms.find("IBM")).isZero();
        assertThat(syms.find("IB")).isEqualTo(-1);
        assertThat(syms.find("IBMX")).isEqualTo(-1);
        assertThat(syms.find("")).isEqualTo(-1);
        assertThat(syms.size()).isEqualTo(1);
    }

    @Test
    void shouldInternFromABufferRangeAsFromTheSameString() {
        final SymbolTable syms = new SymbolTable();
        final ByteBuf buf = Unpooled.copiedBuffer("xxMSFTyyIBM", StandardCharsets.US_ASCII);
        try {
            assertThat(syms.find(buf, 2, 4)).isEqualTo(-1);
            assertThat(syms.intern(buf, 2, 4)).isZero();
            assertThat(syms.intern("IBM")).isEqualTo(1);

            assertThat(syms.find(buf, 8, 3)).isEqualTo(1);
            assertThat(syms.intern(buf, 8, 3)).isEqualTo(1);
            assertThat(syms.find("MSFT")).isZero();
            assertThat(syms.name(0)).isEqualTo("MSFT");
            assertThat(syms.find(buf, 2, 3)).as("a prefix is another symbol").isEqualTo(-1);
            assertThat(syms.size()).isEqualTo(2);
        } finally {
            buf.release();
        }
    }

    @Test
    void shouldCopyTheSymbolOutOfTheBuffer() {
        final SymbolTable syms = new SymbolTable();
        final ByteBuf buf = Unpooled.copiedBuffer("ABC", StandardCharsets.US_ASCII);
        try {
            syms.intern(buf, 0, 3);
            buf.setByte(0, 'X');

            assertThat(syms.name(0)).isEqualTo("ABC");
            assertThat(syms.find("ABC")).isZero();
            assertThat(syms.find(buf, 0, 3)).isEqualTo(-1);
        } finally {
            buf.release();
        }
    }

    @Test
    void shouldKeepEveryIdThroughGrowthBeyondTheExpectedSize() {
        final SymbolTable syms = new SymbolTable(1);
        for (int i = 0; i < 5_000; i++) {
            assertThat(syms.intern("S" + i)).isEqualTo(i);
        }

        assertThat(syms.size()).isEqualTo(5_000);
        for (int i = 0; i < 5_000; i++) {
            assertThat(syms.find("S" + i)).isEqualTo(i);
            assertThat(syms.name(i)).isEqualTo("S" + i);
        }
        assertThat(syms.find("S5000")).isEqualTo(-1);
    }

    @Test
    void shouldTellTheEmptySymbolFromNone() {
        final SymbolTable syms = new SymbolTable();

        assertThat(syms.intern("")).isZero();
        assertThat(syms.find("")).isZero();
        assertThat(syms.name(0)).isEmpty();
    }
}
