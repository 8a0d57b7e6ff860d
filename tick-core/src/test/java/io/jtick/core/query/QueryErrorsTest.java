package io.jtick.core.query;

import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.TestTables.Layout;
import io.jtick.core.query.model.Json;
import io.jtick.core.query.model.QueryException;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.query.result.JsonResultWriter;
import io.jtick.core.table.QuerySource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayOutputStream;

import static io.jtick.core.query.TestTables.DAY2;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every kind of bad query gets a {@link QueryException} whose message names the problem; nothing else escapes. */
class QueryErrorsTest {
    private final QuerySource source = TestTables.source(Layout.RDB, DAY2, TestTables.trades(5, 200, DAY2),
        TestTables.quotes(6, 200, DAY2));

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "'{\"table\":' | malformed query JSON at offset 9",
        "'[1,2]' | a query must be a JSON object",
        "'' | empty query",
        "'{\"table\":\"trade\"} x' | unexpected text after the document",
        "'{\"table\":\"trade\",\"table\":\"quote\"}' | duplicate key [key=table]",
        "'{\"tabel\":\"trade\"}' | unknown query field [field=tabel]",
        "'{\"select\":[\"price\"]}' | table is required",
        "'{\"table\":\"nope\"}' | unknown table [table=nope]",
        "'{\"table\":\"trade\",\"asof\":{\"table\":\"nope\"}}' | unknown table [table=nope]",
        "'{\"table\":\"trade\",\"select\":[\"pirce\"]}' | unknown column [table=trade, column=pirce]",
        "'{\"table\":\"trade\",\"where\":{\"pirce\":1}}' | unknown column [table=trade, column=pirce]",
        "'{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"ex\"}' | unknown column [table=trade, column=ex]",
        "'{\"table\":\"trade\",\"select\":{\"v\":{\"sum\":\"volume\"}}}' | unknown column [table=trade, column=volume]",
        "'{\"table\":\"trade\",\"asof\":{\"table\":\"quote\",\"select\":[\"mid\"]}}' | unknown column [table=quote, column=mid]",
        "'{\"table\":\"trade\",\"orderBy\":[\"volume\"]}' | orderBy column is not in the result [column=volume",
        "'{\"table\":\"trade\",\"where\":{\"size\":\"abc\"}}' "
            + "| type mismatch [column=size, type=int64, value=\"abc\"]: expected an integer",
        "'{\"table\":\"trade\",\"where\":{\"size\":{\">\":1.5}}}' | type mismatch [column=size, type=int64, value=1.5]",
        "'{\"table\":\"trade\",\"where\":{\"price\":{\"<\":\"cheap\"}}}' | type mismatch [column=price, type=float64, value=\"cheap\"]",
        "'{\"table\":\"trade\",\"where\":{\"cond\":\"AB\"}}' | type mismatch [column=cond, type=char, value=\"AB\"]",
        "'{\"table\":\"trade\",\"where\":{\"sym\":1}}' | type mismatch [column=sym, type=symbol, value=1]",
        "'{\"table\":\"trade\",\"where\":{\"time\":{\">\":\"yesterday\"}}}' | bad time [column=time, value=yesterday]",
        "'{\"table\":\"trade\",\"where\":{\"time\":true}}' | type mismatch [column=time, type=timestamp, value=true]",
        "'{\"table\":\"trade\",\"where\":{\"sym\":{\">\":\"A\"}}}' | operator > not supported on symbol column [column=sym]",
        "'{\"table\":\"trade\",\"where\":{\"size\":{\"like\":1}}}' | unknown operator [column=size, op=like]",
        "'{\"table\":\"trade\",\"where\":{\"size\":{\"within\":[1]}}}' | within takes [low, high] [column=size",
        "'{\"table\":\"trade\",\"where\":{\"size\":{\"in\":5}}}' | in takes a list [column=size, value=5]",
        "'{\"table\":\"trade\",\"select\":{\"s\":{\"sum\":\"sym\"}}}' | aggregate sum on a symbol column [column=sym]",
        "'{\"table\":\"trade\",\"select\":{\"a\":{\"avg\":\"cond\"}},\"by\":\"sym\"}' | aggregate avg on a char column [column=cond]",
        "'{\"table\":\"trade\",\"select\":{\"m\":{\"median\":\"sym\"}}}' | aggregate median on a symbol column",
        "'{\"table\":\"trade\",\"select\":{\"x\":{\"+\":[\"sym\",1]}}}' | arithmetic + on a symbol column [column=sym]",
        "'{\"table\":\"trade\",\"select\":[\"price\"],\"by\":\"sym\"}' "
            + "| select item must be an aggregate when the query has by or aggregates [column=price]",
        "'{\"table\":\"trade\",\"select\":{\"p\":\"price\",\"n\":{\"count\":\"*\"}}}' | select item must be an aggregate",
        "'{\"table\":\"trade\",\"select\":{\"x\":{\"sum\":{\"max\":\"price\"}}}}' | aggregates cannot be nested [function=max]",
        "'{\"table\":\"trade\",\"select\":{\"x\":{\"mode\":\"price\"}}}' | unknown function [function=mode]",
        "'{\"table\":\"trade\",\"select\":{\"x\":{\"wavg\":\"price\"}}}' | wavg takes a list of 2 arguments",
        "'{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":{\"b\":{\"xbar\":[\"1 minute\",\"time\"]}}}' "
            + "| bad duration [xbar=1 minute]",
        "'{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":{\"b\":{\"xbar\":[-5,\"size\"]}}}' "
            + "| xbar size must be a positive integer",
        "'{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":{\"b\":{\"xbar\":[\"1m\",\"sym\"]}}}' | xbar on a symbol column",
        "'{\"table\":\"trade\",\"limit\":0}' | limit must be a positive integer [limit=0]",
        "'{\"table\":\"trade\",\"limit\":\"ten\"}' | limit must be a positive integer [limit=ten]",
        "'{\"table\":\"trade\",\"dates\":\"21/11/2026\"}' | bad date [dates=21/11/2026]",
        "'{\"table\":\"trade\",\"dates\":{\"from\":\"2026-11-21\",\"to\":\"2026-11-01\"}}' | dates: from is after to",
        "'{\"table\":\"trade\",\"select\":{\"sym\":\"price\",\"sym\":\"size\"}}' | duplicate key [key=sym]",
        "'{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"sym\",\"orderBy\":[{\"n\":\"down\"}]}' "
            + "| orderBy direction is asc or desc",
        "'{\"table\":\"trade\",\"asof\":{\"table\":\"quote\",\"select\":[\"sym\"]}}' | asof adds the sym of the left table already",
        "'{\"table\":\"trade\",\"asof\":{\"table\":\"quote\",\"select\":[\"time\"]}}' "
            + "| asof column collides with another column [column=time]",
        "'{\"table\":\"trade\",\"asof\":{\"table\":\"quote\",\"on\":[\"sym\"]}}' | asof joins on [\"sym\",\"time\"] only",
        "'{\"table\":\"trade\",\"asof\":{\"table\":\"quote\",\"tolerance\":\"soon\"}}' | bad duration [asof.tolerance=soon]",
        "'{\"table\":\"trade\",\"where\":{\"bid\":1.0},\"asof\":{\"table\":\"quote\"}}' | as-of columns cannot be filtered [column=bid]",
        "'{\"table\":\"trade\",\"where\":{\"date\":\"2026-11-21\"}}' | select dates with the dates field",
        "'{\"table\":\"trade\",\"select\":{\"x\":{\"count\":\"*\"}},\"by\":{\"n\":1}}' | by needs a column",
        "'{\"table\":\"trade\",\"select\":[\"price\",\"price\"]}' | duplicate result column [column=price]",
        "'{\"table\":\"trade\",\"select\":{\"1x\":\"price\"}}' | bad result column name [name=1x]",
    })
    void shouldNameTheProblem(final String json, final String message) {
        assertThatThrownBy(() -> new QueryEngine().query(json, source))
            .isInstanceOf(QueryException.class)
            .hasMessageContaining(message)
            .extracting(e -> ((QueryException) e).reason()).isEqualTo(QueryException.Reason.BAD_QUERY);
    }

    @Test
    void shouldRefuseResultsOverTheRowLimitWith413() {
        final TickMetrics metrics = new TickMetrics();
        final QueryEngine small = new QueryEngine(metrics, new QueryLimits(50, 1 << 20));
        assertThatThrownBy(() -> small.query("{\"table\":\"trade\"}", source))
            .isInstanceOf(QueryException.class)
            .hasMessageStartingWith("result over the row limit [rows>50, maxRows=50]")
            .extracting(e -> ((QueryException) e).reason()).isEqualTo(QueryException.Reason.TOO_LARGE);
        assertThatThrownBy(() -> small.query("{\"table\":\"trade\",\"select\":{\"n\":{\"count\":\"*\"}},\"by\":\"time\"}", source))
            .isInstanceOf(QueryException.class).hasMessageStartingWith("result over the row limit [groups>50");
        assertThat(small.query("{\"table\":\"trade\",\"limit\":50}", source).rowCount()).isEqualTo(50);
        assertThat(metrics.counters().get("tick.query.rejected").get()).isEqualTo(2);
    }

    @Test
    void shouldRefuseResultsOverTheByteLimitBeforeWritingWhenItCan() {
        final QueryEngine small = new QueryEngine(new TickMetrics(), new QueryLimits(1_000_000, 2048));
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThatThrownBy(() -> small.run("{\"table\":\"trade\"}", source, q -> new JsonResultWriter(out, 2048)))
            .isInstanceOf(QueryException.class).hasMessageStartingWith("result over the byte limit [rows=200");
        assertThat(out.size()).isZero();
    }

    @Test
    void shouldStopStreamingAtTheByteLimitAndEndTheDocumentWithTheError() {
        final QueryEngine small = new QueryEngine(new TickMetrics(), new QueryLimits(1_000_000, 9000));
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final JsonResultWriter[] writer = new JsonResultWriter[1];
        assertThatThrownBy(() -> small.run("{\"table\":\"trade\"}", source, q -> writer[0] = new JsonResultWriter(out, 9000, 1024)))
            .isInstanceOf(QueryException.class).hasMessageStartingWith("result over the byte limit [bytes>9000");
        assertThat(writer[0].committed()).isTrue();
        writer[0].abort("result over the byte limit");
        final String json = out.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(json).startsWith("{\"columns\":[\"time\",\"sym\",\"price\",\"size\",\"cond\"]")
            .endsWith("],\"error\":\"result over the byte limit\",\"truncated\":true}");
        assertThat(Json.parse(json)).isInstanceOf(java.util.Map.class);
    }
}
