package io.jtick.core.query.plan;

import io.jtick.core.query.model.Literals.TimeLit;
import io.jtick.core.query.model.Query;
import io.jtick.core.query.model.Query.AggKind;
import io.jtick.core.query.model.Query.Op;
import io.jtick.core.query.model.QueryException;
import io.jtick.core.query.model.QueryParser;
import io.jtick.core.query.model.ValueType;
import io.jtick.core.query.plan.Plan.AggSpec;
import io.jtick.core.query.plan.Plan.ArithSpec;
import io.jtick.core.query.plan.Plan.ColSpec;
import io.jtick.core.query.plan.Plan.DateSpec;
import io.jtick.core.query.plan.Plan.KeySpec;
import io.jtick.core.query.plan.Plan.NumSpec;
import io.jtick.core.query.plan.Plan.PredSpec;
import io.jtick.core.query.plan.Plan.XbarSpec;
import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PlannerTest {
    /** time 0, sym 1, price 2, size 3, cond 4. */
    private static final TableSchema TRADE = TableSchema.trade(0);
    /** time 0, sym 1, bid 2, ask 3, bsize 4, asize 5. */
    private static final TableSchema QUOTE = TableSchema.quote(0);
    private static final TableSchema FLAGS = TableSchema.of("flags", new ColumnDef("on", ColumnType.BOOL),
        new ColumnDef("f", ColumnType.FLOAT32), new ColumnDef("n", ColumnType.INT32));
    private static final long MINUTE = 60_000_000_000L;

    private static Plan plan(final String json) {
        return Planner.plan(QueryParser.parse(json), TRADE, QUOTE);
    }

    private static Plan plan(final String json, final TableSchema schema) {
        return Planner.plan(QueryParser.parse(json), schema, null);
    }

    private static Query where(final Query.Cond... conds) {
        return new Query("trade", null, List.of(conds), null, List.of(), List.of(), null, List.of(), 0);
    }

    private static ColSpec col(final int slot, final ValueType type) {
        return new ColSpec(slot, type, false);
    }

    // ---- row queries ------------------------------------------------------------------------------

    @Test
    void shouldOutputEveryColumnOfARowQueryWithoutSelect() {
        final Plan p = plan("{\"table\":\"trade\"}");

        assertThat(p.grouped()).isFalse();
        assertThat(p.schema()).isSameAs(TRADE);
        assertThat(p.rowOutputs()).containsExactly(col(0, ValueType.TIMESTAMP), col(1, ValueType.SYMBOL), col(2, ValueType.FLOAT64),
            col(3, ValueType.INT64), col(4, ValueType.CHAR));
        assertThat(p.outNames()).containsExactly("time", "sym", "price", "size", "cond");
        assertThat(p.outTypes()).containsExactly(ValueType.TIMESTAMP, ValueType.SYMBOL, ValueType.FLOAT64, ValueType.INT64,
            ValueType.CHAR);
        assertThat(p.leftUsed()).containsExactly(true, true, true, true, true);
        assertThat(p.keys()).isEmpty();
        assertThat(p.aggs()).isEmpty();
        assertThat(p.preds()).isEmpty();
        assertThat(p.symIn()).as("unconstrained").isNull();
        assertThat(p.symNotIn()).isEmpty();
        assertThat(p.timeLower()).isEmpty();
        assertThat(p.timeUpper()).isEmpty();
        assertThat(p.orderColumns()).isEmpty();
        assertThat(p.hasAsof()).isFalse();
        assertThat(p.rightSchema()).as("no as-of: the right schema given is not kept").isNull();
        assertThat(p.rightColumns()).isEmpty();
        assertThat(p.leftColumns()).isEqualTo(5);
        assertThat(p.dateSlot()).isEqualTo(5);
        assertThat(p.slotCount()).isEqualTo(6);
        assertThat(p.limit()).isZero();
        assertThat(p.tolerance()).isEqualTo(-1);
        assertThat(p.needsRowOrder()).isTrue();
    }

    @Test
    void shouldReadOnlyTheSelectedColumnsPlusTimeAndSym() {
        final Plan p = plan("{\"table\":\"trade\",\"select\":[\"price\"]}");

        assertThat(p.rowOutputs()).containsExactly(col(2, ValueType.FLOAT64));
        assertThat(p.outNames()).containsExactly("price");
        assertThat(p.leftUsed()).containsExactly(true, true, true, false, false);
    }

    @Test
    void shouldBindNamedExpressionsArithmeticAndTheVirtualDate() {
        final Plan p = plan("{\"table\":\"trade\",\"select\":{\"d\":\"date\",\"notional\":{\"*\":[\"price\",\"size\"]},"
            + "\"half\":{\"%\":[\"size\",2]},\"two\":2.5}}");

        assertThat(p.outNames()).containsExactly("d", "notional", "half", "two");
        assertThat(p.rowOutputs()).containsExactly(new DateSpec(),
            new ArithSpec('*', col(2, ValueType.FLOAT64), col(3, ValueType.INT64)),
            new ArithSpec('/', col(3, ValueType.INT64), new NumSpec(2, 2, true)),
            new NumSpec(2.5, 2, false));
        assertThat(p.outTypes()).containsExactly(ValueType.DATE, ValueType.FLOAT64, ValueType.FLOAT64, ValueType.FLOAT64);
        assertThat(new NumSpec(3, 3, true).type()).isEqualTo(ValueType.INT64);
        assertThat(p.leftUsed()).containsExactly(true, true, true, true, false);
    }

    @Test
    void shouldKeepLimitAndOrderByAsResultColumns() {
        final Plan p = plan("{\"table\":\"trade\",\"select\":[\"sym\",\"size\",\"price\"],\"orderBy\":[\"-price\",\"sym\"],\"limit\":10}");

        assertThat(p.orderColumns()).containsExactly(2, 0);
        assertThat(p.orderDesc()).containsExactly(true, false);
        assertThat(p.limit()).isEqualTo(10);
    }

    // ---- grouped queries --------------------------------------------------------------------------

    @Test
    void shouldBindEachAggregateWithItsResultType() {
        final Plan p = plan("{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"},\"nc\":{\"count\":\"cond\"},"
            + "\"vwap\":{\"wavg\":[\"size\",\"price\"]},\"hi\":{\"max\":\"size\"},\"lo\":{\"min\":\"price\"},\"vol\":{\"sum\":\"size\"},"
            + "\"turn\":{\"sum\":\"price\"},\"open\":{\"first\":\"price\"},\"lastSym\":{\"last\":\"sym\"},\"mean\":{\"avg\":\"size\"},"
            + "\"med\":{\"median\":\"size\"},\"sd\":{\"dev\":\"price\"}},\"by\":\"sym\"}");

        final ColSpec price = col(2, ValueType.FLOAT64);
        final ColSpec size = col(3, ValueType.INT64);
        assertThat(p.grouped()).isTrue();
        assertThat(p.keys()).containsExactly(new KeySpec("sym", col(1, ValueType.SYMBOL), true));
        assertThat(p.aggs()).containsExactly(
            new AggSpec("n", AggKind.COUNT, null, null, ValueType.INT64),
            new AggSpec("nc", AggKind.COUNT, null, null, ValueType.INT64),
            new AggSpec("vwap", AggKind.WAVG, size, price, ValueType.FLOAT64),
            new AggSpec("hi", AggKind.MAX, size, null, ValueType.INT64),
            new AggSpec("lo", AggKind.MIN, price, null, ValueType.FLOAT64),
            new AggSpec("vol", AggKind.SUM, size, null, ValueType.INT64),
            new AggSpec("turn", AggKind.SUM, price, null, ValueType.FLOAT64),
            new AggSpec("open", AggKind.FIRST, price, null, ValueType.FLOAT64),
            new AggSpec("lastSym", AggKind.LAST, col(1, ValueType.SYMBOL), null, ValueType.SYMBOL),
            new AggSpec("mean", AggKind.AVG, size, null, ValueType.FLOAT64),
            new AggSpec("med", AggKind.MEDIAN, size, null, ValueType.FLOAT64),
            new AggSpec("sd", AggKind.DEV, price, null, ValueType.FLOAT64));
        assertThat(p.outNames()).containsExactly("sym", "n", "nc", "vwap", "hi", "lo", "vol", "turn", "open", "lastSym", "mean", "med",
            "sd");
        assertThat(p.outTypes()).startsWith(ValueType.SYMBOL, ValueType.INT64, ValueType.INT64, ValueType.FLOAT64, ValueType.INT64);
        assertThat(p.rowOutputs()).isEmpty();
        assertThat(p.leftUsed()).as("count of cond still reads cond").containsExactly(true, true, true, true, true);
        assertThat(p.needsRowOrder()).as("first/last within a sym follow the sym's own rows").isFalse();
    }

    @Test
    void shouldGroupIntoOneRowWhenAggregatesHaveNoBy() {
        final Plan sums = plan("{\"table\":\"trade\",\"select\":{\"vol\":{\"sum\":\"size\"}}}");
        final Plan firsts = plan("{\"table\":\"trade\",\"select\":{\"open\":{\"first\":\"price\"}}}");

        assertThat(sums.grouped()).isTrue();
        assertThat(sums.keys()).isEmpty();
        assertThat(sums.outNames()).containsExactly("vol");
        assertThat(sums.needsRowOrder()).isFalse();
        assertThat(firsts.needsRowOrder()).as("first over all syms needs the rows in time order").isTrue();
        assertThat(sums.leftUsed()).containsExactly(true, true, false, true, false);
    }

    @Test
    void shouldBucketTimeWithADurationAndNumbersWithTheirSize() {
        final Plan p = plan("{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"},\"close\":{\"last\":\"price\"}},"
            + "\"by\":[{\"m\":{\"xbar\":[\"5m\",\"time\"]}},{\"xbar\":[100,\"size\"]},{\"p\":{\"xbar\":[0.5,\"price\"]}},"
            + "{\"q\":{\"xbar\":[2,\"price\"]}}]}");

        assertThat(p.keys()).containsExactly(
            new KeySpec("m", new XbarSpec(5 * MINUTE, 0, col(0, ValueType.TIMESTAMP)), false),
            new KeySpec("size", new XbarSpec(100, 0, col(3, ValueType.INT64)), false),
            new KeySpec("p", new XbarSpec(0, 0.5, col(2, ValueType.FLOAT64)), false),
            new KeySpec("q", new XbarSpec(0, 2.0, col(2, ValueType.FLOAT64)), false));
        assertThat(p.outTypes()).containsExactly(ValueType.TIMESTAMP, ValueType.INT64, ValueType.FLOAT64, ValueType.FLOAT64,
            ValueType.INT64, ValueType.FLOAT64);
        assertThat(p.needsRowOrder()).as("last by a time bucket, not by sym").isTrue();
    }

    @Test
    void shouldGroupByDateAndSeveralColumns() {
        final Plan p = plan("{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":[\"date\",\"sym\",\"cond\"]}");

        assertThat(p.keys()).containsExactly(new KeySpec("date", new DateSpec(), false),
            new KeySpec("sym", col(1, ValueType.SYMBOL), true), new KeySpec("cond", col(4, ValueType.CHAR), false));
        assertThat(p.outTypes()).containsExactly(ValueType.DATE, ValueType.SYMBOL, ValueType.CHAR, ValueType.INT64);
    }

    @Test
    void shouldTakeTheLastOfEveryOtherColumnWhenGroupedWithoutSelect() {
        final Plan p = plan("{\"table\":\"trade\",\"by\":\"sym\"}");

        assertThat(p.aggs()).containsExactly(
            new AggSpec("time", AggKind.LAST, col(0, ValueType.TIMESTAMP), null, ValueType.TIMESTAMP),
            new AggSpec("price", AggKind.LAST, col(2, ValueType.FLOAT64), null, ValueType.FLOAT64),
            new AggSpec("size", AggKind.LAST, col(3, ValueType.INT64), null, ValueType.INT64),
            new AggSpec("cond", AggKind.LAST, col(4, ValueType.CHAR), null, ValueType.CHAR));
        assertThat(p.outNames()).containsExactly("sym", "time", "price", "size", "cond");
    }

    @Test
    void shouldOrderGroupedResultsByKeysOrAggregates() {
        final Plan p = plan("{\"table\":\"trade\",\"select\":{\"vol\":{\"sum\":\"size\"}},\"by\":\"sym\",\"orderBy\":[{\"vol\":\"desc\"}],"
            + "\"limit\":3}");

        assertThat(p.orderColumns()).containsExactly(1);
        assertThat(p.orderDesc()).containsExactly(true);
        assertThat(p.limit()).isEqualTo(3);
    }

    // ---- where ------------------------------------------------------------------------------------

    @Test
    void shouldTurnSymEqualityAndInIntoOneDeduplicatedList() {
        assertThat(plan("{\"table\":\"trade\",\"where\":{\"sym\":\"IBM\"}}").symIn()).containsExactly("IBM");
        assertThat(plan("{\"table\":\"trade\",\"where\":{\"sym\":{\"in\":[\"B\",\"A\",\"B\"]}}}").symIn()).containsExactly("B", "A");
        assertThat(plan("{\"table\":\"trade\",\"where\":{\"sym\":{\"in\":[]}}}").symIn()).as("in nothing: matches nothing").isEmpty();
    }

    @Test
    void shouldIntersectSeveralSymConditions() {
        final Plan p = Planner.plan(where(new Query.Cond("sym", Op.IN, List.of("A", "B", "C")),
            new Query.Cond("sym", Op.IN, List.of("C", "B", "D")), new Query.Cond("sym", Op.NE, List.of("X")),
            new Query.Cond("sym", Op.NE, List.of("Y", "Z"))), TRADE, null);

        assertThat(p.symIn()).containsExactly("B", "C");
        assertThat(p.symNotIn()).containsExactly("X", "Y", "Z");
        assertThat(p.preds()).as("sym conditions are not residual").isEmpty();
    }

    @Test
    void shouldTurnTimeComparisonsIntoInclusiveBounds() {
        final Plan p = Planner.plan(where(new Query.Cond("time", Op.GT, List.of(100L)), new Query.Cond("time", Op.GE, List.of(50L)),
            new Query.Cond("time", Op.LT, List.of(900L)), new Query.Cond("time", Op.LE, List.of(800L)),
            new Query.Cond("time", Op.EQ, List.of(500L))), TRADE, null);

        assertThat(p.timeLower()).containsExactly(new TimeLit(101, false), new TimeLit(50, false), new TimeLit(500, false));
        assertThat(p.timeUpper()).containsExactly(new TimeLit(899, false), new TimeLit(800, false), new TimeLit(500, false));
        assertThat(p.preds()).isEmpty();
    }

    @Test
    void shouldKeepATimeOfDayWindowForEachSegmentToResolve() {
        final Plan p = plan("{\"table\":\"trade\",\"where\":{\"time\":{\"within\":[\"09:30\",\"10:00:00.5\"]}}}");

        assertThat(p.timeLower()).containsExactly(new TimeLit(570 * MINUTE, true));
        assertThat(p.timeUpper()).containsExactly(new TimeLit(600 * MINUTE + 500_000_000L, true));
        assertThat(p.timeLower().get(0).resolve(1)).isEqualTo(24 * 60 * MINUTE + 570 * MINUTE);
    }

    @Test
    void shouldLeaveTimeInequalityAndInAsResidualConditions() {
        final Plan p = Planner.plan(where(new Query.Cond("time", Op.NE, List.of(5L)), new Query.Cond("time", Op.IN, List.of(1L, 2L))),
            TRADE, null);

        assertThat(p.preds()).containsExactly(
            new PredSpec(0, ValueType.TIMESTAMP, Op.NE, List.of(new TimeLit(5, false))),
            new PredSpec(0, ValueType.TIMESTAMP, Op.IN, List.of(new TimeLit(1, false), new TimeLit(2, false))));
        assertThat(p.timeLower()).isEmpty();
    }

    @Test
    void shouldBindLiteralsToTheKindOfTheirColumn() {
        final Plan p = plan("{\"table\":\"trade\",\"select\":[\"time\"],\"where\":{\"price\":{\">\":10},\"size\":{\"within\":[1,5]},"
            + "\"cond\":{\"in\":[\"N\",\"X\"]}}}");

        assertThat(p.preds()).containsExactly(
            new PredSpec(2, ValueType.FLOAT64, Op.GT, List.of(10.0)),
            new PredSpec(3, ValueType.INT64, Op.WITHIN, List.of(1L, 5L)),
            new PredSpec(4, ValueType.CHAR, Op.IN, List.of((long) 'N', (long) 'X')));
        assertThat(p.leftUsed()).as("filtered columns are read").containsExactly(true, true, true, true, true);
    }

    @Test
    void shouldBindBoolsAsZeroOrOneAndFloat32AndInt32Literals() {
        final Plan p = plan("{\"table\":\"flags\",\"where\":[{\"on\":true},{\"on\":{\"!=\":0}},{\"f\":{\"<\":1.5}},{\"n\":{\">=\":-3}}]}",
            FLAGS);

        assertThat(p.preds()).containsExactly(
            new PredSpec(2, ValueType.BOOL, Op.EQ, List.of(1L)),
            new PredSpec(2, ValueType.BOOL, Op.NE, List.of(0L)),
            new PredSpec(3, ValueType.FLOAT32, Op.LT, List.of(1.5)),
            new PredSpec(4, ValueType.INT32, Op.GE, List.of(-3L)));
    }

    // ---- as-of join -------------------------------------------------------------------------------

    @Test
    void shouldPlaceAsOfColumnsAfterTheLeftColumnsAndTheDateAfterThem() {
        final Plan p = plan("{\"table\":\"trade\",\"select\":[\"time\",\"price\",\"bid\",{\"d\":\"date\"}],"
            + "\"asof\":{\"table\":\"quote\",\"select\":[\"bid\",\"ask\"],\"tolerance\":\"2s\"}}");

        assertThat(p.hasAsof()).isTrue();
        assertThat(p.rightSchema()).isSameAs(QUOTE);
        assertThat(p.rightColumns()).containsExactly(2, 3);
        assertThat(p.dateSlot()).isEqualTo(7);
        assertThat(p.slotCount()).isEqualTo(8);
        assertThat(p.tolerance()).isEqualTo(2_000_000_000L);
        assertThat(p.rowOutputs()).containsExactly(col(0, ValueType.TIMESTAMP), col(2, ValueType.FLOAT64),
            new ColSpec(5, ValueType.FLOAT64, true), new DateSpec());
        assertThat(p.rowOutputs().get(2).nullable()).as("an unmatched row has no bid").isTrue();
    }

    @Test
    void shouldJoinEveryNonKeyColumnOfTheRightTableWhenNoneIsSelected() {
        final Plan p = plan("{\"table\":\"trade\",\"asof\":{\"table\":\"quote\"}}");

        assertThat(p.rightColumns()).containsExactly(2, 3, 4, 5);
        assertThat(p.outNames()).containsExactly("time", "sym", "price", "size", "cond", "bid", "ask", "bsize", "asize");
        assertThat(p.outTypes()).endsWith(ValueType.FLOAT64, ValueType.FLOAT64, ValueType.INT64, ValueType.INT64);
        assertThat(p.rowOutputs().get(8)).isEqualTo(new ColSpec(8, ValueType.INT64, true));
        assertThat(p.tolerance()).isEqualTo(-1);
    }

    @Test
    void shouldNameAsOfColumnsByTheirAlias() {
        final Plan p = plan("{\"table\":\"trade\",\"select\":{\"spread\":{\"avg\":{\"-\":[\"qa\",\"qb\"]}},\"last\":{\"last\":\"qb\"}},"
            + "\"by\":\"sym\",\"asof\":{\"table\":\"quote\",\"select\":{\"qb\":\"bid\",\"qa\":\"ask\"}}}");

        final ColSpec qb = new ColSpec(5, ValueType.FLOAT64, true);
        final ColSpec qa = new ColSpec(6, ValueType.FLOAT64, true);
        assertThat(p.rightColumns()).containsExactly(2, 3);
        assertThat(p.aggs()).containsExactly(
            new AggSpec("spread", AggKind.AVG, new ArithSpec('-', qa, qb), null, ValueType.FLOAT64),
            new AggSpec("last", AggKind.LAST, qb, null, ValueType.FLOAT64));
        assertThat(p.aggs().get(0).a().nullable()).isTrue();
    }

    @Test
    void shouldJoinOneRightColumnUnderTwoNames() {
        final Plan p = plan("{\"table\":\"trade\",\"asof\":{\"table\":\"quote\",\"select\":{\"x\":\"bid\",\"y\":\"ask\",\"y2\":\"ask\"}}}");

        assertThat(p.rightColumns()).containsExactly(2, 3, 3);
        assertThat(p.outNames()).endsWith("x", "y", "y2");
    }

    @Test
    void shouldTakeTheLastAsOfColumnsTooWhenGroupedWithoutSelect() {
        final Plan p = plan("{\"table\":\"trade\",\"by\":\"sym\",\"asof\":{\"table\":\"quote\",\"select\":[\"bid\"]}}");

        assertThat(p.outNames()).containsExactly("sym", "time", "price", "size", "cond", "bid");
        assertThat(p.aggs().get(4)).isEqualTo(new AggSpec("bid", AggKind.LAST, new ColSpec(5, ValueType.FLOAT64, true), null,
            ValueType.FLOAT64));
    }

    // ---- errors -----------------------------------------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        // tables
        "{'table':'nope'}|unknown table [table=nope]",
        "{'table':'trade','asof':{'table':'nope'}}|unknown table [table=nope]",
        // as-of columns
        "{'table':'trade','asof':{'table':'quote','select':['bidd']}}|unknown column [table=quote, column=bidd]",
        "{'table':'trade','asof':{'table':'quote','select':['sym']}}|asof adds the sym of the left table already; do not select it "
            + "[table=quote]",
        "{'table':'trade','asof':{'table':'quote','select':['time']}}|asof column collides with another column [column=time]: "
            + "rename it, like 'select':{'qtime':'time'}",
        // where
        "{'table':'trade','where':{'pirce':1}}|unknown column [table=trade, column=pirce]",
        "{'table':'trade','where':{'bid':1},'asof':{'table':'quote','select':['bid']}}|where applies to trade; as-of columns cannot "
            + "be filtered [column=bid]",
        "{'table':'trade','where':{'date':'2026-11-20'}}|select dates with the dates field, like 'dates':{'from':'2026-11-20',"
            + "'to':'2026-11-21'}",
        "{'table':'trade','where':{'sym':5}}|type mismatch [column=sym, type=symbol, value=5]: expected a symbol name",
        "{'table':'trade','where':{'sym':{'<':'M'}}}|operator < not supported on symbol column [column=sym]: use =, != or in",
        "{'table':'trade','where':{'sym':{'within':['A','M']}}}|operator within not supported on symbol column [column=sym]: "
            + "use =, != or in",
        "{'table':'trade','where':{'price':'cheap'}}|type mismatch [column=price, type=float64, value='cheap']: expected a number",
        "{'table':'trade','where':{'price':true}}|type mismatch [column=price, type=float64, value=true]: expected a number",
        "{'table':'trade','where':{'size':1.5}}|type mismatch [column=size, type=int64, value=1.5]: expected an integer",
        "{'table':'trade','where':{'size':'10'}}|type mismatch [column=size, type=int64, value='10']: expected an integer",
        "{'table':'trade','where':{'cond':'NX'}}|type mismatch [column=cond, type=char, value='NX']: expected a one-character string",
        "{'table':'trade','where':{'cond':78}}|type mismatch [column=cond, type=char, value=78]: expected a one-character string",
        "{'table':'flags','where':{'on':2}}|type mismatch [column=on, type=bool, value=2]: expected true or false",
        "{'table':'flags','where':{'on':'yes'}}|type mismatch [column=on, type=bool, value='yes']: expected true or false",
        "{'table':'trade','where':{'time':true}}|type mismatch [column=time, type=timestamp, value=true]: expected epoch "
            + "nanoseconds, an ISO-8601 time like 2026-11-21T09:30:00Z or a time of day like 09:30",
        // select and by
        "{'table':'trade','select':['pirce']}|unknown column [table=trade, column=pirce]",
        "{'table':'trade','select':{'n':{'count':'pirce'}}}|unknown column [table=trade, column=pirce]",
        "{'table':'trade','select':{'n':{'sum':'*'}}}|* is only for count, like {'count':'*'}",
        "{'table':'trade','select':{'n':{'count':'*'},'price':'price'}}|select item must be an aggregate when the query has by or "
            + "aggregates [column=price]: use first, last, sum... or drop by",
        "{'table':'trade','select':['price'],'by':'sym'}|select item must be an aggregate when the query has by or aggregates "
            + "[column=price]: use first, last, sum... or drop by",
        "{'table':'trade','select':{'n':{'count':'*'}},'by':{'k':5}}|by needs a column [by=k]",
        "{'table':'trade','select':{'n':{'count':'*'}},'by':'pirce'}|unknown column [table=trade, column=pirce]",
        "{'table':'trade','select':{'x':{'+':[{'sum':'size'},1]}}}|aggregate sum is only allowed at the top of a select item",
        "{'table':'trade','select':{'x':{'sum':{'max':'size'}}}}|aggregates cannot be nested [function=max]",
        "{'table':'trade','select':{'x':{'sum':'sym'}}}|aggregate sum on a symbol column [column=sym]: only count, first and last "
            + "take symbols",
        "{'table':'trade','select':{'x':{'avg':'cond'}}}|aggregate avg on a char column [column=cond]: only count, first and last "
            + "take chars",
        "{'table':'trade','select':{'x':{'max':'date'}}}|aggregate max on a date column [column=date]: only count, first and last "
            + "take dates",
        "{'table':'trade','select':{'x':{'wavg':['size','sym']}}}|aggregate wavg on a symbol column [column=sym]: only count, first "
            + "and last take symbols",
        "{'table':'flags','select':{'x':{'median':'on'}}}|aggregate median on a bool column [column=on]: only count, first and "
            + "last take bools",
        "{'table':'trade','select':{'x':{'-':['price','sym']}}}|arithmetic - on a symbol column [column=sym]",
        "{'table':'trade','select':{'x':{'*':['date',2]}}}|arithmetic * on a date column [column=date]",
        "{'table':'trade','select':{'x':{'sum':{'+':['cond',1]}}}}|arithmetic + on a char column [column=cond]",
        "{'table':'trade','select':{'n':{'count':'*'}},'by':{'s':{'xbar':[2,'sym']}}}|xbar on a symbol column [column=sym]",
        "{'table':'trade','select':{'n':{'count':'*'}},'by':{'p':{'xbar':[0,'price']}}}|xbar size must be a positive number "
            + "[column=float64, size=0]",
        "{'table':'trade','select':{'n':{'count':'*'}},'by':{'p':{'xbar':['1m','price']}}}|xbar size must be a positive number "
            + "[column=float64, size=1m]",
        "{'table':'trade','select':{'n':{'count':'*'}},'by':{'s':{'xbar':[2.5,'size']}}}|xbar size must be a positive integer "
            + "[column=int64, size=2.5]",
        "{'table':'trade','select':{'n':{'count':'*'}},'by':{'s':{'xbar':[-1,'size']}}}|xbar size must be a positive integer "
            + "[column=int64, size=-1]",
        // orderBy
        "{'table':'trade','select':{'n':{'count':'*'}},'by':'sym','orderBy':['price']}|orderBy column is not in the result "
            + "[column=price, result=[sym, n]]",
    })
    void shouldRejectWithAnExactMessage(final String query, final String message) {
        final String json = query.replace('\'', '"');
        final Query q = QueryParser.parse(json);
        final TableSchema left = "flags".equals(q.table()) ? FLAGS : "nope".equals(q.table()) ? null : TRADE;
        assertThatThrownBy(() -> Planner.plan(q, left, q.asof() != null && "nope".equals(q.asof().table()) ? null : QUOTE))
            .isInstanceOf(QueryException.class)
            .hasMessage(message.replace('\'', '"'))
            .extracting(e -> ((QueryException) e).reason()).isEqualTo(QueryException.Reason.BAD_QUERY);
    }

    @Test
    void shouldRejectAnAsOfNameUsedTwice() {
        final Query q = new Query("trade", null, List.of(), null, List.of(), List.of(),
            new Query.AsOf("quote", List.of("bid", "ask"), List.of("q", "q"), -1), List.of(), 0);

        assertThatThrownBy(() -> Planner.plan(q, TRADE, QUOTE))
            .isInstanceOf(QueryException.class)
            .hasMessage("asof column collides with another column [column=q]: rename it, like \"select\":{\"qq\":\"ask\"}");
    }
}
