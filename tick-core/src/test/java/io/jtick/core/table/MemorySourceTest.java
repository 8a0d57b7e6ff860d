package io.jtick.core.table;

import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class MemorySourceTest {
    private static final TableSchema OLD = TableSchema.trade(0);
    private static final TableSchema NEW = TableSchema.trade(1);
    private static final ScanHint ALL = new ScanHint(List.of("time", "sym"), null);

    private static MemorySegment day(final TableSchema schema, final int epochDay) {
        return MemorySegment.builder(schema, epochDay).build();
    }

    @Test
    void shouldReturnSegmentsOldestDateFirstWhateverTheOrderAdded() {
        final MemorySegment d3 = day(OLD, 3);
        final MemorySegment d1 = day(OLD, 1);
        final MemorySegment d2 = day(OLD, 2);
        final MemorySource source = new MemorySource().add(d3).add(d1).add(d2);

        assertThat(source.segments("trade", QuerySource.ALL_DAYS_FROM, QuerySource.ALL_DAYS_TO, ALL)).containsExactly(d1, d2, d3);
    }

    @Test
    void shouldPruneToTheInclusiveDayRange() {
        final MemorySegment d1 = day(OLD, 1);
        final MemorySegment d2 = day(OLD, 2);
        final MemorySegment d3 = day(OLD, 3);
        final MemorySource source = new MemorySource().add(d1).add(d2).add(d3);

        assertThat(source.segments("trade", 2, 3, ALL)).containsExactly(d2, d3);
        assertThat(source.segments("trade", 2, 2, ALL)).containsExactly(d2);
        assertThat(source.segments("trade", 4, 9, ALL)).isEmpty();
        assertThat(source.segments("quote", 1, 3, ALL)).isEmpty();
    }

    @Test
    void shouldKeepSeveralSegmentsOfOneDateInTheOrderAdded() {
        final MemorySegment a = day(OLD, 5);
        final MemorySegment b = day(OLD, 5);

        assertThat(new MemorySource().add(a).add(b).segments("trade", 5, 5, ALL)).containsExactly(a, b);
    }

    @Test
    void shouldTakeTheSchemaOfTheNewestDate() {
        final MemorySource source = new MemorySource().add(day(NEW, 2)).add(day(OLD, 1));

        assertThat(source.schema("trade")).isEqualTo(NEW);
        assertThat(source.schema("quote")).isNull();
    }

    @Test
    void shouldDeclareATableWithoutSegmentsAndNotOverrideAKnownSchema() {
        final TableSchema quote = TableSchema.quote(0);
        final TableSchema other = TableSchema.of("trade", new ColumnDef("x", ColumnType.INT64));
        final MemorySource source = new MemorySource().add(day(OLD, 1)).table(quote).table(other);

        assertThat(source.schema("quote")).isEqualTo(quote);
        assertThat(source.segments("quote", QuerySource.ALL_DAYS_FROM, QuerySource.ALL_DAYS_TO, ALL)).isEmpty();
        assertThat(source.schema("trade")).isEqualTo(OLD);
    }

    @Test
    void shouldHandTheCallerANewListEachTime() {
        final MemorySource source = new MemorySource().add(day(OLD, 1));
        final List<TableSegment> first = source.segments("trade", 0, 9, ALL);

        first.clear();

        assertThat(source.segments("trade", 0, 9, ALL)).hasSize(1);
    }
}
