package io.jtick.core.schema;

import io.jtick.core.testing.LeakCheck;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(LeakCheck.class)
class SchemaRegistryTest {
    @Test
    void shouldLoadSchemasFromYamlWithExtraFloatsAndRejectBadOnes() {
        final SchemaRegistry r = SchemaRegistry.fromYaml(new StringReader("extraFloats: 2\ntables:\n  fx: [bid:float64, ask:float64]\n"));
        assertThat(r.get("trade").toSchemaString()).isEqualTo("time:timestamp,sym:symbol,price:float64,size:int64,cond:char,"
            + "ex0:float64,ex1:float64");
        assertThat(r.get("fx").toSchemaString()).isEqualTo("time:timestamp,sym:symbol,bid:float64,ask:float64");
        assertThatThrownBy(() -> SchemaRegistry.fromYaml(new StringReader("tables:\n  bad: [price:decimal]\n")))
            .hasMessageContaining("type=decimal");
        assertThatThrownBy(() -> new TableSchema("t", List.of(new ColumnDef("sym", ColumnType.SYMBOL),
            new ColumnDef("time", ColumnType.TIMESTAMP))))
            .hasMessageContaining("first two columns");
    }

    @Test
    void shouldFindTablesByNameIndexAndNameBytes() {
        final SchemaRegistry r = SchemaRegistry.builtIn(1);
        assertThat(r.size()).isEqualTo(2);
        assertThat(r.tables()).extracting(TableSchema::name).containsExactly("trade", "quote");
        assertThat(r.indexOf("quote")).isEqualTo(1);
        assertThat(r.indexOf("nope")).isEqualTo(-1);
        assertThat(r.get("nope")).isNull();
        final ByteBuf b = Unpooled.wrappedBuffer("xxquotexx".getBytes(StandardCharsets.US_ASCII));
        assertThat(r.indexOf(b, 2, 5)).isEqualTo(1);
        assertThat(r.get(b, 2, 5)).isSameAs(r.get(1));
        assertThat(r.indexOf(b, 2, 4)).as("a prefix is not the name").isEqualTo(-1);
        assertThat(r.get(b, 0, 5)).isNull();
        assertThat(r.get("trade").columnCount()).isEqualTo(6);
    }

    @Test
    void shouldRefuseDuplicateTablesAndYamlOfTheWrongShape() {
        assertThatThrownBy(() -> new SchemaRegistry(List.of(TableSchema.trade(0), TableSchema.trade(1))))
            .hasMessageContaining("duplicate table [table=trade]");
        assertThatThrownBy(() -> SchemaRegistry.fromYaml(new StringReader("- a\n- b\n"))).hasMessageContaining("must be a map");
        assertThatThrownBy(() -> SchemaRegistry.fromYaml(new StringReader("tables: 3\n"))).hasMessageContaining("'tables' must be a map");
        assertThatThrownBy(() -> SchemaRegistry.fromYaml(new StringReader("tables:\n  fx: bid\n")))
            .hasMessageContaining("must be a list [table=fx]");
        assertThatThrownBy(() -> SchemaRegistry.fromYaml(new StringReader("tables:\n  fx: [bid]\n")))
            .hasMessageContaining("name:type [table=fx, column=bid]");
        assertThat(SchemaRegistry.fromYaml(new StringReader("")).tables()).extracting(TableSchema::name).containsExactly("trade", "quote");
    }

    @Test
    void shouldLoadAFileOrTheBuiltInsWhenThereIsNone(@TempDir final Path dir) throws Exception {
        final Path file = dir.resolve("schemas.yaml");
        Files.writeString(file, "tables:\n  trade: [time:timestamp, sym:symbol, px:float64]\n");
        assertThat(SchemaRegistry.load(file, 5).get("trade").toSchemaString()).isEqualTo("time:timestamp,sym:symbol,px:float64");
        assertThat(SchemaRegistry.load(null, 1).get("quote").columnCount()).isEqualTo(7);
    }

    @Test
    void shouldLoadKdbTicksSymQAsTheShippedExampleWithTimeAsATimeOfDay() throws Exception {
        final SchemaRegistry symQ = SchemaRegistry.load(Path.of("../docs/examples/kdb-tick-sym.yml"), 0);
        assertThat(symQ.tables()).extracting(TableSchema::toString).containsExactlyInAnyOrder(
            "quote(time:timestamp,sym:symbol,bid:float64,ask:float64,bsize:int32,asize:int32)",
            "trade(time:timestamp,sym:symbol,price:float64,size:int32)");
        assertThat(symQ.tables()).allMatch(TableSchema::timeOfDay);
        assertThat(SchemaRegistry.builtIn(0).get("trade").timeOfDay()).isFalse();
        assertThat(symQ.get("trade")).as("time of day is part of the schema").isNotEqualTo(
            TableSchema.parse("trade", symQ.get("trade").toSchemaString()));
    }
}
