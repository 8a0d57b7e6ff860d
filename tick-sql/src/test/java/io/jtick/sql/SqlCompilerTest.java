package io.jtick.sql;

import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.query.result.ResultTable;
import io.jtick.core.table.MemorySource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SqlCompilerTest {
    private static final MemorySource SOURCE = SqlTestData.source(4000);
    private static final long NOW = java.time.Instant.parse("2026-11-21T16:00:00Z").getEpochSecond() * 1_000_000_000L;
    private final QueryEngine engine = new QueryEngine(new TickMetrics(), QueryLimits.DEFAULT, 1);
    private final SqlRunner runner = new SqlRunner(engine, () -> NOW);

    /** The six questions of the query benchmark: as SQL, the same answer as the document, value for value. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "count by sym|{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}"
            + "|SELECT sym, count(*) AS n FROM trade GROUP BY sym",
        "vwap by sym|{\"table\":\"trade\",\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]},\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}"
            + "|SELECT sym, sum(price * size) / sum(size) AS vwap, count(*) AS n FROM trade GROUP BY sym",
        "vwap as wavg|{\"table\":\"trade\",\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]},\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}"
            + "|SELECT sym, wavg(size, price) vwap, count() n FROM trade GROUP BY 1 ORDER BY sym",
        "one sym|{\"table\":\"trade\",\"where\":{\"sym\":\"S07\"},\"select\":[\"time\",\"sym\",\"price\",\"size\",\"cond\"]}"
            + "|SELECT time, sym, price, size, cond FROM trade WHERE sym = 'S07'",
        "bars 1m|{\"table\":\"trade\",\"where\":{\"sym\":\"S07\"},\"select\":{\"open\":{\"first\":\"price\"},\"high\":{\"max\":\"price\"},"
            + "\"low\":{\"min\":\"price\"},\"close\":{\"last\":\"price\"},\"volume\":{\"sum\":\"size\"}},\"by\":{\"minute\":"
            + "{\"xbar\":[\"1m\",\"time\"]}}}"
            + "|SELECT date_bin('1 minute', time, TIMESTAMP '2000-01-01 00:00:00') AS minute, first(price) AS open, max(price) AS high, "
            + "min(price) AS low, last(price) AS close, sum(size) AS volume FROM trade WHERE sym = 'S07' GROUP BY minute",
        "bars sample by|{\"table\":\"trade\",\"where\":{\"sym\":\"S07\"},\"select\":{\"open\":{\"first\":\"price\"},\"high\":"
            + "{\"max\":\"price\"},"
            + "\"low\":{\"min\":\"price\"},\"close\":{\"last\":\"price\"},\"volume\":{\"sum\":\"size\"}},\"by\":{\"time\":"
            + "{\"xbar\":[\"1m\",\"time\"]}}}"
            + "|SELECT time, first(price) open, max(price) high, min(price) low, last(price) close, sum(size) volume FROM trade "
            + "WHERE sym = 'S07' SAMPLE BY 1m",
        "bars time_bucket|{\"table\":\"trade\",\"where\":{\"sym\":\"S07\"},\"select\":{\"open\":{\"first\":\"price\"},\"high\":"
            + "{\"max\":\"price\"},"
            + "\"low\":{\"min\":\"price\"},\"close\":{\"last\":\"price\"},\"volume\":{\"sum\":\"size\"}},\"by\":{\"minute\":"
            + "{\"xbar\":[\"1m\",\"time\"]}}}"
            + "|SELECT time_bucket(INTERVAL '1 minute', time) AS minute, first(price) AS open, max(price) AS high, "
            + "min(price) AS low, last(price) AS close, sum(size) AS volume FROM trade WHERE sym = 'S07' GROUP BY 1 ORDER BY 1",
        "asof|{\"table\":\"trade\",\"where\":{\"sym\":\"S07\"},\"select\":[\"time\",\"price\",\"size\",\"bid\",\"ask\"],"
            + "\"asof\":{\"table\":\"quote\",\"select\":[\"bid\",\"ask\"]}}"
            + "|SELECT t.time, t.price, t.size, q.bid, q.ask FROM trade t ASOF JOIN quote q ON (sym) WHERE t.sym = 'S07'",
        "spread by sym|{\"table\":\"quote\",\"where\":{\"time\":{\"within\":[\"2026-11-21T10:00:00Z\",\"2026-11-21T11:00:00Z\"]}},"
            + "\"select\":{\"spread\":{\"avg\":{\"-\":[\"ask\",\"bid\"]}}},\"by\":\"sym\"}"
            + "|SELECT sym, avg(ask - bid) AS spread FROM quote WHERE time BETWEEN '2026-11-21 10:00:00+00' AND '2026-11-21T11:00:00Z' "
            + "GROUP BY sym",
        "last per sym, distinct on|{\"table\":\"trade\",\"select\":{\"time\":{\"last\":\"time\"},\"price\":{\"last\":\"price\"}},"
            + "\"by\":\"sym\"}"
            + "|SELECT DISTINCT ON (sym) sym, time, price FROM trade ORDER BY sym, time DESC",
        "last per sym, latest on|{\"table\":\"trade\",\"select\":{\"time\":{\"last\":\"time\"},\"price\":{\"last\":\"price\"}},"
            + "\"by\":\"sym\"}"
            + "|SELECT sym, time, price FROM trade LATEST ON time PARTITION BY sym",
        "date range|{\"table\":\"trade\",\"dates\":{\"from\":\"2026-11-21\",\"to\":\"2026-11-21\"},\"select\":{\"n\":{\"count\":"
            + "\"*\"}},\"by\":\"date\"}"
            + "|SELECT date, count(*) n FROM trade WHERE date BETWEEN '2026-11-21' AND '2026-11-30' GROUP BY date",
        "top volume|{\"table\":\"trade\",\"select\":{\"vol\":{\"sum\":\"size\"}},\"by\":\"sym\",\"orderBy\":[{\"vol\":\"desc\"}],"
            + "\"limit\":3}"
            + "|SELECT sym, sum(size) AS vol FROM trade GROUP BY sym ORDER BY vol DESC LIMIT 3",
        "filters|{\"table\":\"trade\",\"where\":{\"size\":{\">\":1000},\"cond\":{\"in\":[\"F\",\"I\"]},\"sym\":{\"in\":[\"S01\",\"S02\"]}},"
            + "\"select\":[\"time\",\"sym\",\"size\"]}"
            + "|SELECT time, sym, size FROM trade WHERE size > 1000 AND cond IN ('F', 'I') AND (sym = 'S01' OR sym = 'S02')",
        "now and intervals|{\"table\":\"trade\",\"where\":{\"time\":{\">=\":\"2026-11-21T15:00:00Z\"}},\"select\":{\"n\":"
            + "{\"count\":\"*\"}}}"
            + "|SELECT count(*) AS n FROM trade WHERE time >= now() - INTERVAL '1 hour'",
    })
    void shouldAnswerAsTheDocumentDoes(final String name, final String json, final String sql) {
        final ResultTable expected = engine.query(json, SOURCE);
        final ResultTable actual = run(sql, SqlParams.NONE);
        assertThat(expected.rowCount()).as("the question has rows").isPositive();
        assertThat(actual.columns()).isEqualTo(expected.columns());
        assertThat(actual.types()).isEqualTo(expected.types());
        assertThat(actual.rows()).isEqualTo(expected.rows());
    }

    /** A Grafana time-series panel's statement, its $__timeFilter macro expanded as Grafana sends it. */
    @Test
    void shouldRunGrafanasTimeSeriesStatement() {
        final ResultTable t = run("SELECT date_bin('1 minute', time, TIMESTAMP '2000-01-01') AS time, sum(price * size) / "
            + "sum(size) AS vwap "
            + "FROM trade WHERE time BETWEEN '2026-11-21T09:30:00Z' AND '2026-11-21T16:00:00Z' AND sym = 'S03' GROUP BY 1 ORDER BY 1",
            SqlParams.NONE);
        final ResultTable json = engine.query("{\"table\":\"trade\",\"where\":{\"time\":{\"within\":[\"2026-11-21T09:30:00Z\","
            + "\"2026-11-21T16:00:00Z\"]},\"sym\":\"S03\"},\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]}},"
            + "\"by\":{\"time\":{\"xbar\":[\"1m\",\"time\"]}},\"orderBy\":[\"time\"]}", SOURCE);
        assertThat(t.columns()).containsExactly("time", "vwap");
        assertThat(t.rows()).isEqualTo(json.rows()).isNotEmpty();
    }

    /**
     * The same panel written with Grafana's other macros, as its PostgreSQL data source expands them
     * (pkg/tsdb/grafana-postgresql-datasource/macros.go): {@code $__timeGroupAlias(time,'1m')},
     * {@code $__timeGroup} in GROUP BY, the TimescaleDB variant, {@code $__timeFrom()}/{@code $__timeTo()}
     * and {@code $__unixEpochNanoFilter(time)}; each answers as the document does.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "timeGroupAlias|SELECT floor(extract(epoch from time)/60)*60 AS \"time\", sum(price * size) / sum(size) AS vwap FROM trade "
            + "WHERE time BETWEEN '2026-11-21T09:30:00Z' AND '2026-11-21T16:00:00Z' AND sym = 'S03' GROUP BY 1 ORDER BY 1",
        "timeGroup in group by|SELECT floor(extract(epoch from time)/60)*60 AS time, sum(price * size) / sum(size) AS vwap FROM trade "
            + "WHERE time BETWEEN '2026-11-21T09:30:00.000000000Z' AND '2026-11-21T16:00:00Z' AND sym = 'S03' "
            + "GROUP BY floor(extract(epoch from time)/60)*60 ORDER BY floor(extract(epoch from time)/60)*60",
        "timescaledb|SELECT time_bucket('60.000s',time) AS \"time\", sum(price * size) / sum(size) AS vwap FROM trade "
            + "WHERE time BETWEEN '2026-11-21T09:30:00Z' AND '2026-11-21T16:00:00Z' AND sym = 'S03' GROUP BY 1 ORDER BY 1",
        "timeFrom timeTo|SELECT floor(extract(epoch from time)/60)*60 AS \"time\", sum(price * size) / sum(size) AS vwap FROM trade "
            + "WHERE time >= '2026-11-21T09:30:00Z' AND time <= '2026-11-21T16:00:00Z' AND sym = 'S03' GROUP BY 1 ORDER BY 1",
        "unixEpochNanoFilter|SELECT floor(extract(epoch from time)/60)*60 AS \"time\", sum(price * size) / sum(size) AS vwap "
            + "FROM trade WHERE time >= 1795253400000000000 AND time <= 1795276800000000000 AND sym = 'S03' GROUP BY 1 ORDER BY 1",
    })
    void shouldRunGrafanasMacrosAsExpanded(final String name, final String sql) {
        final ResultTable t = run(sql, SqlParams.NONE);
        final ResultTable json = engine.query("{\"table\":\"trade\",\"where\":{\"time\":{\"within\":[\"2026-11-21T09:30:00Z\","
            + "\"2026-11-21T16:00:00Z\"]},\"sym\":\"S03\"},\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]}},"
            + "\"by\":{\"time\":{\"xbar\":[\"1m\",\"time\"]}},\"orderBy\":[\"time\"]}", SOURCE);
        assertThat(t.columns()).containsExactly("time", "vwap");
        assertThat(t.types()).isEqualTo(json.types());
        assertThat(t.rows()).isEqualTo(json.rows()).isNotEmpty();
    }

    @Test
    void shouldRefuseAnEpochExpressionThatIsNotATimeBucket() {
        assertThatThrownBy(() -> run("SELECT floor(extract(epoch from time)/60)*30 AS t, count(*) FROM trade GROUP BY 1", SqlParams.NONE))
            .isInstanceOf(SqlException.class).hasMessageContaining("Grafana's time bucket")
            .extracting(e -> ((SqlException) e).sqlState()).isEqualTo("0A000");
    }

    @Test
    void shouldGroupByManyKeys() {
        final ResultTable t = run("SELECT date, sym, count(*) AS n FROM trade WHERE date BETWEEN '2026-11-01' AND '2026-11-20' "
            + "GROUP BY date, sym ORDER BY date, sym LIMIT 3", SqlParams.NONE);
        final ResultTable json = engine.query("{\"table\":\"trade\",\"dates\":{\"from\":\"2026-11-01\",\"to\":\"2026-11-20\"},"
            + "\"select\":{\"n\":{\"count\":\"*\"}},\"by\":[\"date\",\"sym\"],\"limit\":3}", SOURCE);
        assertThat(t.rows()).isEqualTo(json.rows()).hasSize(3);
    }

    @Test
    void shouldOrderProjectAndOffsetAsSqlSays() {
        final ResultTable t = run("SELECT count(*), sym FROM trade GROUP BY sym ORDER BY sym LIMIT 2 OFFSET 1", SqlParams.NONE);
        final ResultTable all = engine.query("{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}", SOURCE);
        assertThat(t.columns()).containsExactly("count", "sym");
        assertThat(t.rows()).containsExactly(List.of(all.get(1, 1), all.get(1, 0)), List.of(all.get(2, 1), all.get(2, 0)));
        final ResultTable hidden = run("SELECT price FROM trade WHERE sym = 'S03' ORDER BY size DESC, time LIMIT 1", SqlParams.NONE);
        assertThat(hidden.columns()).containsExactly("price");
        assertThat(hidden.rowCount()).isEqualTo(1);
    }

    @Test
    void shouldBindParametersAsTheColumnsTypes() {
        final ResultTable t = run("SELECT time, price FROM trade WHERE sym = $1 AND size >= $2 ORDER BY time DESC LIMIT $3",
            SqlParams.of(List.of("S05", "1500", "2")));
        assertThat(t.rowCount()).isEqualTo(2);
        final ResultTable json = engine.query("{\"table\":\"trade\",\"where\":{\"sym\":\"S05\",\"size\":{\">=\":1500}},"
            + "\"select\":[\"time\",\"price\"],\"orderBy\":[\"-time\"],\"limit\":2}", SOURCE);
        assertThat(t.rows()).isEqualTo(json.rows());
        final SqlRunner.Prepared described = runner.prepare("SELECT time, price FROM trade WHERE sym = $1", SOURCE, SqlParams.DESCRIBE);
        assertThat(described.names()).containsExactly("time", "price");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "SELECT * FROM nope|42P01",
        "SELECT pirce FROM trade|42703",
        "SELECT * FROM trade t JOIN quote q ON t.sym = q.sym|0A000",
        "SELECT sym, price FROM trade GROUP BY sym|42803",
        "SELECT * FROM trade WHERE size > 'abc'|22P02",
        "SELECT * FROM trade WHERE sym = 'A' OR size > 5|0A000",
        "SELECT max(price) - min(price) FROM trade|0A000",
        "SELEC * FROM trade|42601",
        "INSERT INTO trade VALUES (1)|0A000",
        "SELECT * FROM trade UNION SELECT * FROM trade|0A000",
        "SELECT sum(sym) FROM trade|42804",
        "SELECT * FROM trade WHERE time > 'yesterday'|22P02",
    })
    void shouldRefuseWithTheSqlState(final String sql, final String state) {
        assertThatThrownBy(() -> run(sql, SqlParams.NONE)).isInstanceOfSatisfying(SqlException.class,
            e -> assertThat(e.sqlState()).as(e.getMessage()).isEqualTo(state));
    }

    private ResultTable run(final String sql, final SqlParams params) {
        final ResultTable t = new ResultTable();
        runner.execute(runner.prepare(sql, SOURCE, params), SOURCE, t);
        return t;
    }
}
