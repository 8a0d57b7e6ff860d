package io.jtick.core.schema;

import io.jtick.core.testing.LeakCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(LeakCheck.class)
class TableSchemaTest {

    @Test
    void shouldRoundTripItsSchemaStringAndDescribeItsRows() {
        final TableSchema trade = TableSchema.trade(2);
        assertThat(trade.toSchemaString())
            .isEqualTo("time:timestamp,sym:symbol,price:float64,size:int64,cond:char,ex0:float64,ex1:float64");
        assertThat(TableSchema.parse("trade", trade.toSchemaString())).isEqualTo(trade).hasSameHashCodeAs(trade);
        assertThat(trade.rowWidth()).isEqualTo(8 + 4 + 8 + 8 + 1 + 8 + 8);
        assertThat(trade.indexOf("size")).isEqualTo(3);
        assertThat(trade.indexOf("nope")).isEqualTo(-1);
        assertThat(trade.type(TableSchema.SYM)).isEqualTo(ColumnType.SYMBOL);
        assertThat(trade.nameBytes()).isEqualTo("trade".getBytes(StandardCharsets.US_ASCII));
        assertThat(TableSchema.quote(0).columns()).extracting(ColumnDef::name)
            .containsExactly("time", "sym", "bid", "ask", "bsize", "asize");
        assertThat(TableSchema.parse("fx", "time:timestamp,sym:sym,bid:double,n:long"))
            .isEqualTo(TableSchema.of("fx", new ColumnDef("bid", ColumnType.FLOAT64), new ColumnDef("n", ColumnType.INT64)));
        assertThat(trade).isNotEqualTo(TableSchema.trade(1));
    }

    @Test
    void shouldRefuseWhatKdbTickCouldNotHold() {
        assertThatThrownBy(() -> TableSchema.of("1trade")).hasMessageContaining("bad table name [table=1trade]");
        assertThatThrownBy(() -> TableSchema.of("t".repeat(65))).hasMessageContaining("bad table name");
        assertThatThrownBy(() -> TableSchema.of("t", new ColumnDef("price", ColumnType.FLOAT64), new ColumnDef("price", ColumnType.INT64)))
            .hasMessageContaining("duplicate column [table=t, column=price]");
        assertThatThrownBy(() -> TableSchema.of("t", new ColumnDef("venue", ColumnType.SYMBOL)))
            .hasMessageContaining("only the sym column may be a symbol [table=t, column=venue]");
        assertThatThrownBy(() -> new TableSchema("t", List.of(new ColumnDef("time", ColumnType.TIMESTAMP))))
            .hasMessageContaining("first two columns");
        assertThatThrownBy(() -> TableSchema.trade(1025)).hasMessageContaining("extra float columns out of range [ex=1025]");
        assertThatThrownBy(() -> TableSchema.parse("t", "time:timestamp,sym"))
            .hasMessageContaining("bad schema string [table=t, part=sym]");
        assertThatThrownBy(() -> ColumnType.parse("decimal")).hasMessageContaining("unknown column type [type=decimal]");
    }

    @Test
    void shouldMapEveryColumnTypeToItsWireCodeWidthAndArray() {
        for (final ColumnType t : ColumnType.values()) {
            assertThat(ColumnType.fromCode(t.code())).isSameAs(t);
            assertThat(ColumnType.parse(t.typeName())).isSameAs(t);
            assertThat(java.lang.reflect.Array.getLength(t.newArray(3))).isEqualTo(3);
        }
        assertThat(ColumnType.fromCode(0)).isNull();
        assertThat(ColumnType.fromCode(99)).isNull();
        assertThat(ColumnType.INT16.width()).isEqualTo(2);
        assertThat(ColumnType.FLOAT32.newArray(1)).isInstanceOf(float[].class);
        assertThat(ColumnType.SYMBOL.isNumeric()).isFalse();
        assertThat(ColumnType.INT32.isNumeric()).isTrue();
    }
}
