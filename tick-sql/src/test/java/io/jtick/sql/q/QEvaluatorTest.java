package io.jtick.sql.q;

import io.jtick.core.kdb.KdbType;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySource;
import io.jtick.sql.SqlRunner;
import io.jtick.sql.SqlTestData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QEvaluatorTest {
    private static final MemorySource SOURCE = SqlTestData.source(4000);
    private final QueryEngine engine = new QueryEngine(new TickMetrics(), QueryLimits.DEFAULT, 1);
    private final SqlRunner runner = new SqlRunner(engine, () -> 0L);
    private final QEvaluator hdb = new QEvaluator(runner, SOURCE, () -> List.of(TableSchema.trade(0), TableSchema.quote(0)), true);
    private final QEvaluator rdb = new QEvaluator(runner, SOURCE, () -> List.of(TableSchema.trade(0), TableSchema.quote(0)), false);

    /** Each q question answers what its document (docs/query.md) answers, value for value, columns named as q names them. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "select count i by sym from trade|{\"table\":\"trade\",\"select\":{\"x\":{\"count\":\"*\"}},\"by\":\"sym\"}|1",
        "select vwap:size wavg price, n:count i by sym from trade"
            + "|{\"table\":\"trade\",\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]},\"n\":{\"count\":\"*\"}},\"by\":[\"sym\"]}|1",
        "select time, sym, price, size, cond from trade where sym=`S07"
            + "|{\"table\":\"trade\",\"where\":{\"sym\":\"S07\"},\"select\":[\"time\",\"sym\",\"price\",\"size\",\"cond\"]}|0",
        "select open:first price, high:max price, low:min price, close:last price, volume:sum size by minute:1 xbar time.minute "
            + "from trade where sym=`S07|{\"table\":\"trade\",\"where\":{\"sym\":\"S07\"},\"select\":{\"open\":{\"first\":\"price\"},"
            + "\"high\":{\"max\":\"price\"},\"low\":{\"min\":\"price\"},\"close\":{\"last\":\"price\"},\"volume\":{\"sum\":\"size\"}},"
            + "\"by\":{\"minute\":{\"xbar\":[\"1m\",\"time\"]}}}|1",
        "aj[`sym`time; select time, sym, price, size from trade where sym=`S07; select time, sym, bid, ask from quote]"
            + "|{\"table\":\"trade\",\"where\":{\"sym\":\"S07\"},\"select\":[\"time\",\"sym\",\"price\",\"size\",\"bid\",\"ask\"],"
            + "\"asof\":{\"table\":\"quote\",\"select\":[\"bid\",\"ask\"]}}|0",
        "select spread:avg ask-bid by sym from quote where time within 10:00 11:00"
            + "|{\"table\":\"quote\",\"where\":{\"time\":{\"within\":[\"10:00\",\"11:00\"]}},\"select\":{\"spread\":{\"avg\":{\"-\":"
            + "[\"ask\",\"bid\"]}}},\"by\":\"sym\"}|1",
        "select by sym from trade|{\"table\":\"trade\",\"by\":\"sym\"}|1",
        "`price xdesc select time, sym, price from trade where sym=`S07|{\"table\":\"trade\",\"where\":{\"sym\":\"S07\"},"
            + "\"select\":[\"time\",\"sym\",\"price\"],\"orderBy\":[\"-price\"]}|0",
        "5#`sym`time xasc select from trade where sym in `S07`S01|{\"table\":\"trade\",\"where\":{\"sym\":{\"in\":[\"S07\","
            + "\"S01\"]}},\"orderBy\":[\"sym\",\"time\"],\"limit\":5}|0",
        "`n xdesc select n:count i by sym from trade|{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"sym\","
            + "\"orderBy\":[\"-n\"]}|1",
        "select from trade where time<.z.p, sym=`S03|{\"table\":\"trade\",\"where\":{\"sym\":\"S03\"}}|0",
        "select slip:avg price-bid by sym from aj[`sym`time; trade; quote]|{\"table\":\"trade\",\"select\":{\"slip\":{\"avg\":"
            + "{\"-\":[\"price\",\"bid\"]}}},\"by\":\"sym\",\"asof\":{\"table\":\"quote\",\"select\":[\"bid\"]}}|1",
        "select med price, dev price by sym from trade where date within 2026.11.20 2026.11.21|{\"table\":\"trade\",\"dates\":"
            + "{\"from\":\"2026-11-20\",\"to\":\"2026-11-21\"},\"select\":{\"price\":{\"median\":\"price\"},\"price1\":"
            + "{\"dev\":\"price\"}},\"by\":\"sym\"}|1",
        "trade|{\"table\":\"trade\"}|0",
        "select[5] from trade where size>1000, cond in \"FI\""
            + "|{\"table\":\"trade\",\"where\":{\"size\":{\">\":1000},\"cond\":{\"in\":[\"F\",\"I\"]}},\"limit\":5}|0",
        "3#select from trade where sym in `S01`S02, price<105.5"
            + "|{\"table\":\"trade\",\"where\":{\"sym\":{\"in\":[\"S01\",\"S02\"]},\"price\":{\"<\":105.5}},\"limit\":3}|0",
        "select n:count i by date from trade where date within 2026.11.20 2026.11.21"
            + "|{\"table\":\"trade\",\"dates\":{\"from\":\"2026-11-20\",\"to\":\"2026-11-21\"},\"select\":{\"n\":{\"count\":\"*\"}},"
            + "\"by\":\"date\"}|1",
        "select sum size, avg price, wsum:size wsum price by sym, cond from trade where date=2026.11.21, sym<>`S03"
            + "|{\"table\":\"trade\",\"dates\":\"2026-11-21\",\"where\":{\"sym\":{\"!=\":\"S03\"}},\"select\":{\"size\":{\"sum\":\"size\"},"
            + "\"price\":{\"avg\":\"price\"},\"wsum\":{\"sum\":{\"*\":[\"size\",\"price\"]}}},\"by\":[\"sym\",\"cond\"]}|2",
        "select n:count i by 5 xbar time.minute from trade where sym like \"S1*\", time>=2026.11.21D10:00:00.000000000"
            + "|{\"table\":\"trade\",\"where\":{\"sym\":{\"in\":[\"S10\",\"S11\",\"S12\",\"S13\",\"S14\",\"S15\"]},\"time\":{\">=\":"
            + "\"2026-11-21T10:00:00Z\"}},\"select\":{\"n\":{\"count\":\"*\"}},\"by\":{\"minute\":{\"xbar\":[\"5m\",\"time\"]}}}|1",
        "select mx:max price, mn:min price, f:first sym, l:last time from trade where time within 2026.11.21D10:00 2026.11.21D10:30"
            + "|{\"table\":\"trade\",\"where\":{\"time\":{\"within\":[\"2026-11-21T10:00:00Z\",\"2026-11-21T10:30:00Z\"]}},"
            + "\"select\":{\"mx\":{\"max\":\"price\"},\"mn\":{\"min\":\"price\"},\"f\":{\"first\":\"sym\"},\"l\":{\"last\":\"time\"}}}|0",
    })
    void shouldAnswerAsTheDocumentDoes(final String q, final String json, final int keys) {
        final ResultTable expected = engine.query(json, SOURCE);
        final QValue actual = rdb.evaluate(q);
        assertThat(expected.rowCount()).as("the question has rows").isPositive();
        assertThat(actual.type()).isEqualTo(keys > 0 ? KdbType.DICT : KdbType.TABLE);
        if (keys > 0) {
            assertThat(QAnswers.names(QValues.parts(actual)[0])).hasSize(keys);
        }
        assertThat(QAnswers.names(actual)).isEqualTo(expected.columns());
        assertThat(QAnswers.rows(actual)).isEqualTo(expected.rows());
    }

    @Test
    void shouldKeepExactTypes() {
        final QValue t = rdb.evaluate("select time, sym, price, size, cond from trade where sym=`S07");
        final QValue cols = QValues.parts(t)[1];
        assertThat(List.of(cols.item(0).type(), cols.item(1).type(), cols.item(2).type(), cols.item(3).type(), cols.item(4).type()))
            .containsExactly(KdbType.TIMESTAMP, KdbType.SYMBOL, KdbType.FLOAT, KdbType.LONG, KdbType.CHAR);
        final QValue d = QValues.parts(QValues.parts(hdb.evaluate("select n:count i by date from trade"))[0])[1].item(0);
        assertThat(d.type()).isEqualTo(KdbType.DATE);
        assertThat(d.count()).isEqualTo(2);
    }

    @Test
    void shouldAnswerTheCatalogAsQDoes() {
        assertThat((String[]) rdb.evaluate("tables[]").data()).containsExactly("quote", "trade");
        assertThat((String[]) rdb.evaluate("cols trade").data()).containsExactly("time", "sym", "price", "size", "cond");
        assertThat((String[]) hdb.evaluate("cols `trade").data()).containsExactly("date", "time", "sym", "price", "size", "cond");
        assertThat(rdb.evaluate("count trade")).isEqualTo(new QValue(-KdbType.LONG, 8000L));
        assertThat(rdb.evaluate("count select from trade where sym=`S07").longValue())
            .isEqualTo(engine.query("{\"table\":\"trade\",\"where\":{\"sym\":\"S07\"}}", SOURCE).rowCount());
        final QValue meta = hdb.evaluate("meta trade");
        assertThat(QAnswers.rows(meta)).containsExactly(List.of("date", (long) 'd', "", ""), List.of("time", (long) 'p', "", ""),
            List.of("sym", (long) 's', "", "p"), List.of("price", (long) 'f', "", ""), List.of("size", (long) 'j', "", ""),
            List.of("cond", (long) 'c', "", ""));
        assertThat(QAnswers.rows(hdb.evaluate("select from trade where date=2026.11.21, sym=`S07")).get(0).get(0))
            .isEqualTo(SqlTestData.DAY2.toEpochDay());
    }

    @Test
    void shouldExecVectorsAtomsAndDictionaries() {
        assertThat(rdb.evaluate("exec price from trade where sym=`S07").type()).isEqualTo(KdbType.FLOAT);
        final QValue total = rdb.evaluate("exec sum size from trade");
        assertThat(total.type()).isEqualTo(-KdbType.LONG);
        assertThat(total.longValue()).isEqualTo(engine.query("{\"table\":\"trade\",\"select\":{\"s\":{\"sum\":\"size\"}}}", SOURCE)
            .getLong(0, 0));
        final QValue bySym = rdb.evaluate("exec sum size by sym from trade");
        assertThat(bySym.type()).isEqualTo(KdbType.DICT);
        assertThat(QValues.parts(bySym)[0].type()).isEqualTo(KdbType.SYMBOL);
        assertThat(QValues.parts(bySym)[0].count()).isEqualTo(16);
    }

    @Test
    void shouldTakeTheLastRowsOldestFirstForSelectMinusN() {
        final List<List<Object>> all = QAnswers.rows(rdb.evaluate("select from trade where sym=`S07"));
        assertThat(all).hasSizeGreaterThan(3);
        assertThat(QAnswers.rows(rdb.evaluate("select[-3] from trade where sym=`S07"))).isEqualTo(all.subList(all.size() - 3, all.size()));
        assertThatThrownBy(() -> hdb.evaluate("select[-3] from trade")).isInstanceOf(QException.class).message()
            .startsWith("nyi [select[-n] on the HDB");
    }

    @Test
    void shouldReadTheClockAsQDoes() {
        final long before = System.currentTimeMillis() * 1_000_000L;
        final QValue p = QParser.clock(".z.p");
        assertThat(p.type()).isEqualTo(-KdbType.TIMESTAMP);
        assertThat(p.longValue()).isBetween(before, System.currentTimeMillis() * 1_000_000L + 1_000_000L);
        assertThat(QParser.clock(".z.d").longValue()).isEqualTo(java.time.LocalDate.now(java.time.ZoneOffset.UTC).toEpochDay());
        assertThat(QParser.clock(".z.n").type()).isEqualTo(-KdbType.TIMESPAN);
        assertThat(QParser.clock(".z.x")).isNull();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "select from nope|nope",
        "select pirce from trade|pirce",
        "select from trade where sym=10|type [sym is a symbol column, compared with a long [where=sym=10]]",
        "select from trade where size=`a|type [size is an integer column, compared with a symbol [where=size=`a]]",
        "`price xasc select[2] from trade|nyi [xasc/xdesc of a select[n]",
        "`price xasc 1 2|nyi [xasc of 1 2",
        "select from trade where price within 1|length [within takes two values [where=price within 1]]",
        "update x:1 from trade|nyi [update",
        "select[-3] price from trade|nyi [select[-n] without the time column",
        "select[-3] count i by sym from trade|nyi [select[-n] with by",
        "select price by sym from trade|nyi [a column that is not an aggregate beside by",
        "{x+y}[1;2]|parse [",
        "select from trade where|parse [",
    })
    void shouldAnswerQErrors(final String q, final String error) {
        assertThatThrownBy(() -> rdb.evaluate(q)).isInstanceOf(QException.class).message().startsWith(error);
    }
}
