package io.jtick.core.query.exec;

import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.query.plan.Plan;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.table.MemorySource;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Edge rows ({@link SegmentBinder}): the last (first) row of each sym and {@code ORDER BY time DESC LIMIT n}
 * read only the rows that can reach the answer, and answer exactly what the full scan answers (the same
 * query with a residual condition that holds for every row, which turns the cut off).
 */
class EdgeRowsTest {
    private static final TableSchema TRADE = TableSchema.trade(0);
    private static final int D1 = 20_000;
    private static final int D2 = 20_001;
    private static final long T1 = D1 * 86_400_000_000_000L;
    private static final long T2 = D2 * 86_400_000_000_000L;
    private static final String ALL_ROWS = "{\"size\":{\">\":0}}";

    /** An RDB-like day (arrival order = time order, a row list per sym) and an HDB-like parted one. */
    private static MemorySource source() {
        final MemorySegment rdb = MemorySegment.builder(TRADE, D1)
            .row(T1 + 1, "B", 10.0, 100L, 'N')
            .row(T1 + 2, "A", 20.0, 200L, 'X')
            .row(T1 + 3, "B", 30.0, 300L, 'N')
            .row(T1 + 4, "A", 40.0, 400L, 'N')
            .row(T1 + 5, "B", 50.0, 500L, 'N')
            .build();
        final MemorySegment hdb = MemorySegment.builder(TRADE, D2)
            .row(T2 + 1, "B", 11.0, 10L, 'N')
            .row(T2 + 2, "A", 21.0, 20L, 'N')
            .row(T2 + 3, "B", 31.0, 30L, 'N')
            .buildParted();
        return new MemorySource().add(hdb).add(rdb);
    }

    private static ExecRig.Recorder run(final String json) {
        final MemorySource source = source();
        final Plan plan = ExecRig.plan(json, source.schema("trade"));
        final ExecRig.Recorder sink = new ExecRig.Recorder();
        new Execution(plan, source, QueryLimits.DEFAULT, System.nanoTime(), 1).run(sink);
        return sink;
    }

    /** The query as given, and with {@code where} plus a condition every row meets: the same rows. */
    private static ExecRig.Recorder same(final String table, final String where, final String rest) {
        final ExecRig.Recorder cut = run("{\"table\":\"" + table + "\"" + (where == null ? "" : ",\"where\":" + where) + rest + "}");
        final String all = where == null ? ALL_ROWS : "[" + where + "," + ALL_ROWS + "]";
        final ExecRig.Recorder full = run("{\"table\":\"" + table + "\",\"where\":" + all + rest + "}");
        assertThat(cut.rows).isEqualTo(full.rows);
        assertThat(cut.columns).isEqualTo(full.columns);
        return cut;
    }

    private static List<Object> list(final Object... values) {
        return Arrays.asList(values);
    }

    @Test
    void shouldReadOnlyTheLastRowOfEachSym() {
        final ExecRig.Recorder out = same("trade", null, ",\"by\":\"sym\"");
        assertThat(out.rows).containsExactly(list("A", T2 + 2, 21.0, 20L, (long) 'N'), list("B", T2 + 3, 31.0, 30L, (long) 'N'));
        assertThat(out.stats.rowsScanned()).as("one row per sym and date").isEqualTo(4);

        final ExecRig.Recorder one = same("trade", "{\"sym\":\"B\",\"time\":{\"<\":\"" + java.time.Instant.ofEpochSecond(0, T1 + 4)
            + "\"}}", ",\"by\":\"sym\",\"dates\":{\"from\":\"" + java.time.LocalDate.ofEpochDay(D1) + "\",\"to\":\""
            + java.time.LocalDate.ofEpochDay(D1) + "\"}");
        assertThat(one.rows).as("the last row before the time bound").containsExactly(list("B", T1 + 3, 30.0, 300L, (long) 'N'));
        assertThat(one.stats.rowsScanned()).isEqualTo(1);
    }

    @Test
    void shouldReadOnlyTheFirstRowOfEachSymForFirst() {
        final ExecRig.Recorder out = same("trade", null, ",\"select\":{\"open\":{\"first\":\"price\"},\"t\":{\"first\":\"time\"}},"
            + "\"by\":\"sym\"");
        assertThat(out.rows).containsExactly(list("A", 20.0, T1 + 2), list("B", 10.0, T1 + 1));
        assertThat(out.stats.rowsScanned()).isEqualTo(4);
    }

    @Test
    void shouldReadOnlyTheLatestRowsForOrderByTimeDescWithALimit() {
        final ExecRig.Recorder out = same("trade", "{\"sym\":\"B\"}", ",\"select\":[\"time\",\"price\"],\"orderBy\":[\"-time\"],"
            + "\"limit\":1");
        assertThat(out.rows).containsExactly(list(T2 + 3, 31.0));
        assertThat(out.stats.rowsScanned()).as("one row of B per date").isEqualTo(2);

        final ExecRig.Recorder two = same("trade", "{\"sym\":{\"in\":[\"A\",\"B\"]}}", ",\"select\":[\"time\",\"sym\"],"
            + "\"orderBy\":[\"-time\"],\"limit\":2");
        assertThat(two.rows).containsExactly(list(T2 + 3, "B"), list(T2 + 2, "A"));
        assertThat(two.stats.rowsScanned()).as("two rows of each sym per date at most").isEqualTo(7);

        final ExecRig.Recorder oldest = same("trade", null, ",\"select\":[\"time\",\"sym\"],\"orderBy\":[\"time\"],\"limit\":2");
        assertThat(oldest.rows).containsExactly(list(T1 + 1, "B"), list(T1 + 2, "A"));
    }

    @Test
    void shouldScanAsBeforeWhenAConditionRemains() {
        final ExecRig.Recorder out = run("{\"table\":\"trade\",\"where\":{\"size\":{\"<\":450}},\"by\":\"sym\",\"dates\":{\"from\":\""
            + java.time.LocalDate.ofEpochDay(D1) + "\",\"to\":\"" + java.time.LocalDate.ofEpochDay(D1) + "\"}}");
        assertThat(out.rows).containsExactly(list("A", T1 + 4, 40.0, 400L, (long) 'N'), list("B", T1 + 3, 30.0, 300L, (long) 'N'));
        assertThat(out.stats.rowsScanned()).isEqualTo(5);
    }
}
