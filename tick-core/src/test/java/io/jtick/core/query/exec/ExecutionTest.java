package io.jtick.core.query.exec;

import io.jtick.core.query.model.QueryException;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.plan.Plan;
import io.jtick.core.query.result.ResultStats;
import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.table.MemorySource;
import io.jtick.core.table.QuerySource;
import io.jtick.core.table.RowSink;
import io.jtick.core.table.TableSegment;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A plan run over small in-memory segments, stage by stage as the engine does it: the row scan
 * ({@link RowScan}) and the grouped scan ({@link GroupedScan}), across dates, with the as-of join,
 * limits and ordering. Answers are worked out by hand from the rows below.
 */
class ExecutionTest {
    private static final TableSchema TRADE = TableSchema.trade(0);
    private static final TableSchema QUOTE = TableSchema.quote(0);
    private static final int D1 = 20_000;
    private static final int D2 = 20_001;
    private static final long NANOS_PER_DAY = 86_400_000_000_000L;
    private static final long T1 = D1 * NANOS_PER_DAY;
    private static final long T2 = D2 * NANOS_PER_DAY;

    /** An RDB-like day: arrival order, a row list per sym. */
    private static MemorySegment day1() {
        return MemorySegment.builder(TRADE, D1)
            .row(T1 + 1, "B", 10.0, 100L, 'N')
            .row(T1 + 2, "A", 20.0, 200L, 'X')
            .row(T1 + 3, "B", 30.0, 300L, 'N')
            .row(T1 + 4, "A", 40.0, 400L, 'N')
            .build();
    }

    /** An HDB-like day: parted, so its rows are A(+2), B(+1), B(+3). */
    private static MemorySegment day2() {
        return MemorySegment.builder(TRADE, D2)
            .row(T2 + 1, "B", 11.0, 10L, 'N')
            .row(T2 + 2, "A", 21.0, 20L, 'N')
            .row(T2 + 3, "B", 31.0, 30L, 'N')
            .buildParted();
    }

    private static MemorySource source() {
        return new MemorySource().add(day2()).add(day1());
    }

    private static ExecRig.Recorder run(final String json, final QuerySource source) {
        return run(json, source, QueryLimits.DEFAULT);
    }

    private static ExecRig.Recorder run(final String json, final QuerySource source, final QueryLimits limits) {
        final Plan plan = ExecRig.plan(json, source.schema("trade"), source.schema("quote"));
        final ExecRig.Recorder sink = new ExecRig.Recorder();
        new Execution(plan, source, limits, System.nanoTime(), 1).run(sink);
        return sink;
    }

    private static List<Object> list(final Object... values) {
        return Arrays.asList(values);
    }

    @Test
    void shouldWriteRowsInDateOrderThenInEachSegmentsRowOrder() {
        final ExecRig.Recorder out = run("{\"table\":\"trade\",\"select\":[\"time\",\"sym\",\"price\",\"date\"]}", source());

        assertThat(out.columns).containsExactly("time", "sym", "price", "date");
        assertThat(out.types).containsExactly(ValueType.TIMESTAMP, ValueType.SYMBOL, ValueType.FLOAT64, ValueType.DATE);
        assertThat(out.rows).containsExactly(
            list(T1 + 1, "B", 10.0, (long) D1),
            list(T1 + 2, "A", 20.0, (long) D1),
            list(T1 + 3, "B", 30.0, (long) D1),
            list(T1 + 4, "A", 40.0, (long) D1),
            list(T2 + 2, "A", 21.0, (long) D2),
            list(T2 + 1, "B", 11.0, (long) D2),
            list(T2 + 3, "B", 31.0, (long) D2));
        assertThat(out.stats.rows()).isEqualTo(7);
        assertThat(out.stats.segments()).isEqualTo(2);
    }

    @Test
    void shouldReadOneSymThroughTheIndex() {
        final ExecRig.Recorder out = run("{\"table\":\"trade\",\"where\":{\"sym\":\"A\"},\"select\":[\"time\",\"size\",\"cond\"]}",
            source());

        assertThat(out.rows).containsExactly(list(T1 + 2, 200L, (long) 'X'), list(T1 + 4, 400L, (long) 'N'), list(T2 + 2, 20L, (long) 'N'));
        assertThat(out.stats.rowsScanned()).as("only A's rows were read").isEqualTo(3);
    }

    @Test
    void shouldStopAtTheLimitInRowOrder() {
        final ExecRig.Recorder out = run("{\"table\":\"trade\",\"where\":{\"price\":{\">\":15}},\"select\":[\"price\"],\"limit\":2}",
            source());

        assertThat(out.rows).containsExactly(list(20.0), list(30.0));
    }

    @Test
    void shouldOrderAllRowsBeforeTheLimit() {
        final ExecRig.Recorder out = run("{\"table\":\"trade\",\"select\":[\"sym\",\"price\"],\"orderBy\":[\"-price\"],\"limit\":3}",
            source());

        assertThat(out.rows).containsExactly(list("A", 40.0), list("B", 31.0), list("B", 30.0));
    }

    @Test
    void shouldEvaluateExpressionsPerRow() {
        final ExecRig.Recorder out = run("{\"table\":\"trade\",\"where\":{\"sym\":\"B\"},\"select\":{\"notional\":{\"*\":[\"price\","
            + "\"size\"]},\"bar\":{\"xbar\":[2,\"size\"]}}}", source());

        assertThat(out.rows).containsExactly(list(1000.0, 100L), list(9000.0, 300L), list(110.0, 10L), list(930.0, 30L));
    }

    @Test
    void shouldGroupAcrossDatesWithKeysSortedBySymName() {
        final ExecRig.Recorder out = run("{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"},\"vol\":{\"sum\":\"size\"},"
            + "\"open\":{\"first\":\"price\"},\"close\":{\"last\":\"price\"}},\"by\":\"sym\"}", source());

        assertThat(out.columns).containsExactly("sym", "n", "vol", "open", "close");
        assertThat(out.rows).containsExactly(list("A", 3L, 620L, 20.0, 21.0), list("B", 4L, 440L, 10.0, 31.0));
    }

    @Test
    void shouldGroupByDate() {
        final ExecRig.Recorder out = run("{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"date\"}", source());

        assertThat(out.rows).containsExactly(list((long) D1, 4L), list((long) D2, 3L));
    }

    @Test
    void shouldCountBySymFromTheIndexWithoutReadingRows() {
        final ExecRig.Recorder out = run("{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}", source());

        assertThat(out.rows).containsExactly(list("A", 3L), list("B", 4L));
    }

    @Test
    void shouldResolveATimeOfDayWindowOnEachDate() {
        final ExecRig.Recorder out = run("{\"table\":\"trade\",\"where\":{\"time\":{\"within\":[\"00:00:00.000000002\","
            + "\"00:00:00.000000003\"]}},\"select\":{\"vol\":{\"sum\":\"size\"}},\"by\":\"sym\"}", source());

        assertThat(out.rows).containsExactly(list("A", 220L), list("B", 330L));
    }

    @Test
    void shouldOrderAndLimitGroups() {
        final ExecRig.Recorder out = run("{\"table\":\"trade\",\"select\":{\"vol\":{\"sum\":\"size\"}},\"by\":\"sym\","
            + "\"orderBy\":[{\"vol\":\"desc\"}],\"limit\":1}", source());

        assertThat(out.rows).containsExactly(list("A", 620L));
    }

    @Test
    void shouldJoinTheQuotesOfTheSameDateAndGiveNullsWhereNoneMatches() {
        final MemorySource src = source().add(MemorySegment.builder(QUOTE, D1)
            .row(T1 + 1, "A", 1.0, 1.5, 1L, 1L)
            .row(T1 + 3, "B", 3.0, 3.5, 1L, 1L)
            .build());

        final ExecRig.Recorder out = run("{\"table\":\"trade\",\"select\":[\"time\",\"sym\",\"bid\"],"
            + "\"asof\":{\"table\":\"quote\",\"select\":[\"bid\"]}}", src);

        assertThat(out.rows).containsExactly(
            list(T1 + 1, "B", Double.NaN), // a float null: sinks write NaN as null
            list(T1 + 2, "A", 1.0),
            list(T1 + 3, "B", 3.0),
            list(T1 + 4, "A", 1.0),
            list(T2 + 2, "A", Double.NaN),
            list(T2 + 1, "B", Double.NaN),
            list(T2 + 3, "B", Double.NaN));
    }

    @Test
    void shouldRefuseMoreRowsOrGroupsThanTheLimit() {
        assertThatThrownBy(() -> run("{\"table\":\"trade\"}", source(), new QueryLimits(6, 1L << 20)))
            .isInstanceOf(QueryException.class)
            .hasMessage("result over the row limit [rows>6, maxRows=6]: narrow the query, add a limit or raise tick.query.max-rows");
        assertThatThrownBy(() -> run("{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}", source(),
            new QueryLimits(1, 1L << 20)))
            .isInstanceOf(QueryException.class)
            .hasMessage("result over the row limit [groups>1, maxRows=1]: narrow the query or group more coarsely");
        final MemorySegment.Builder many = MemorySegment.builder(TRADE, D1);
        for (int i = 0; i < 30; i++) {
            many.row(T1 + i, "A", 1.0, 1L, 'N');
        }
        final MemorySource big = new MemorySource().add(many.build());
        // at least 3 + 23 (timestamp) + 13 (date) bytes a row: 30 rows are 1170 bytes
        assertThatThrownBy(() -> run("{\"table\":\"trade\",\"select\":[\"time\",\"date\"]}", big, new QueryLimits(100, 1024)))
            .isInstanceOf(QueryException.class)
            .hasMessage("result over the byte limit [rows=30, bytes>=1170, maxBytes=1024]: narrow the query, add a limit or raise "
                + "tick.query.max-bytes");
        assertThat(run("{\"table\":\"trade\",\"select\":[\"time\",\"date\"],\"limit\":26}", big, new QueryLimits(100, 1024)).rows)
            .as("26 rows are 1014 bytes").hasSize(26);
        assertThat(run("{\"table\":\"trade\"}", source(), new QueryLimits(7, 1L << 20)).rows).hasSize(7);
        assertThat(run("{\"table\":\"trade\",\"limit\":6}", source(), new QueryLimits(6, 1L << 20)).rows).hasSize(6);
    }

    @Test
    void shouldCloseEverySegmentEvenWhenTheQueryFails() {
        final AtomicInteger closed = new AtomicInteger();
        final TableSchema oldTrade = TableSchema.of("trade", new ColumnDef("price", ColumnType.INT64), new ColumnDef("size",
            ColumnType.INT64), new ColumnDef("cond", ColumnType.CHAR));
        final MemorySource src = new MemorySource()
            .add(new Closing(MemorySegment.builder(oldTrade, D1).row(T1, "A", 1L, 1L, 'N').build(), closed))
            .add(new Closing(day2(), closed));

        assertThatThrownBy(() -> run("{\"table\":\"trade\",\"select\":[\"price\"]}", src))
            .isInstanceOf(QueryException.class)
            .hasMessage("column type differs in segment [table=trade, date=2024-10-04, column=price, type=int64, expected=float64]");
        assertThat(closed).hasValue(2);

        run("{\"table\":\"trade\",\"select\":[\"size\"]}", src);
        assertThat(closed).as("a column the query does not read may differ").hasValue(4);
    }

    /** A segment that counts its closing. */
    private record Closing(TableSegment seg, AtomicInteger closed) implements TableSegment {
        @Override
        public TableSchema schema() {
            return seg.schema();
        }

        @Override
        public int epochDay() {
            return seg.epochDay();
        }

        @Override
        public int rowCount() {
            return seg.rowCount();
        }

        @Override
        public boolean timeSorted() {
            return seg.timeSorted();
        }

        @Override
        public boolean symParted() {
            return seg.symParted();
        }

        @Override
        public int symId(final String sym) {
            return seg.symId(sym);
        }

        @Override
        public String symName(final int symId) {
            return seg.symName(symId);
        }

        @Override
        public int symIdLimit() {
            return seg.symIdLimit();
        }

        @Override
        public void symRows(final int symId, final RowSink sink) {
            seg.symRows(symId, sink);
        }

        @Override
        public void read(final int column, final int from, final int length, final ColumnChunk chunk) {
            seg.read(column, from, length, chunk);
        }

        @Override
        public void read(final int column, final int[] rows, final int at, final int length, final ColumnChunk chunk) {
            seg.read(column, rows, at, length, chunk);
        }

        @Override
        public void close() {
            closed.incrementAndGet();
        }
    }

    @Test
    void shouldReportWhatItRead() {
        final ExecRig.Recorder out = run("{\"table\":\"trade\",\"where\":{\"sym\":\"B\"},\"select\":[\"price\"]}", source());
        final ResultStats stats = out.stats;

        assertThat(stats.rows()).isEqualTo(4);
        assertThat(stats.segments()).isEqualTo(2);
        assertThat(stats.elapsedNanos()).isNotNegative();
    }
}
