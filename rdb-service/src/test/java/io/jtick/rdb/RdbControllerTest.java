package io.jtick.rdb;

import io.jtick.boot.QueryEndpoint;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.QueryEngine;
import io.jtick.core.query.model.QueryLimits;
import io.jtick.core.rdb.RealtimeDatabase;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.ResultActions;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasSize;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

@WebMvcTest(RdbController.class)
class RdbControllerTest {
    /** 2026-11-21T09:30:00Z in epoch ns. */
    static final long T0 = 1_795_253_400_000_000_000L;

    @TestConfiguration
    @EnableConfigurationProperties(RdbProperties.class)
    static class Feed {
        /** The real engine with a row limit of 3, so a whole-table query is over it. */
        @Bean
        QueryEndpoint queryEndpoint() {
            return new QueryEndpoint(new QueryEngine(new TickMetrics(), new QueryLimits(3, 1 << 20)));
        }

        /** A real RDB fed through its listener methods, as the subscription thread would. */
        @Bean
        RealtimeDatabase realtimeDatabase() {
            final RealtimeDatabase rdb = new RealtimeDatabase(new TickMetrics());
            final TableSchema trade = TableSchema.trade(0);
            final Map<String, TableSchema> schemas = new LinkedHashMap<>();
            schemas.put("trade", trade);
            schemas.put("quote", TableSchema.quote(0));
            rdb.onSubscribed(new ControlFrames.Subscribed(0, 0, 20_778, schemas));
            final ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer();
            try {
                final String[] syms = {"AAPL", "IBM", "AAPL", "MSFT"};
                final UpdateEncoder enc = new UpdateEncoder().wrap(buf, trade, syms.length, 64);
                enc.sequence(1).tpTime(T0);
                final int aapl = enc.addSym("AAPL".getBytes(StandardCharsets.US_ASCII));
                final int ibm = enc.addSym("IBM".getBytes(StandardCharsets.US_ASCII));
                final int msft = enc.addSym("MSFT".getBytes(StandardCharsets.US_ASCII));
                final int[] codes = {aapl, ibm, aapl, msft};
                for (int r = 0; r < syms.length; r++) {
                    enc.timestamp(0, r, T0 + r * 1_000_000_000L).sym(r, codes[r]).float64(2, r, 100.5 + r).int64(3, r, 10 * (r + 1))
                        .int8(4, r, 'N');
                }
                enc.finish();
                rdb.onUpdate(trade, new UpdateDecoder().wrap(buf, 0), T0);
            } finally {
                buf.release();
            }
            return rdb;
        }
    }

    @Autowired
    private MockMvc mvc;

    @Autowired
    private RealtimeDatabase rdb;

    private ResultActions query(final String json) throws Exception {
        return mvc.perform(post("/api/query").contentType(MediaType.APPLICATION_JSON).content(json));
    }

    @Test
    void shouldAnswerQueryWithRows() throws Exception {
        assertThat(rdb.rowCount("trade")).isEqualTo(4);
        query("{\"table\":\"trade\",\"syms\":[\"AAPL\"],\"columns\":[\"time\",\"sym\",\"price\",\"size\"],\"limit\":10}")
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.columns", contains("time", "sym", "price", "size")))
            .andExpect(jsonPath("$.rows", hasSize(2)))
            .andExpect(jsonPath("$.rows[0][0]").value("2026-11-21T09:30:00Z"))
            .andExpect(jsonPath("$.rows[0][1]").value("AAPL"))
            .andExpect(jsonPath("$.rows[0][2]").value(100.5))
            .andExpect(jsonPath("$.rows[0][3]").value(10))
            .andExpect(jsonPath("$.rows[1][0]").value("2026-11-21T09:30:02Z"))
            .andExpect(jsonPath("$.rowsScanned").value(2));
    }

    @Test
    void shouldAnswerSqlAsItsQueryDocument() throws Exception {
        final String json = query("{\"table\":\"trade\",\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]},"
            + "\"n\":{\"count\":\"*\"}},\"by\":\"sym\"}").andExpect(status().isOk()).andReturn().getResponse().getContentAsString();
        final String sql = mvc.perform(post("/api/sql").contentType(MediaType.TEXT_PLAIN)
                .content("SELECT sym, sum(price * size) / sum(size) AS vwap, count(*) AS n FROM trade GROUP BY sym"))
            .andExpect(status().isOk())
            .andExpect(header().string("X-Jtick-Types", "symbol,float64,int64"))
            .andReturn().getResponse().getContentAsString();
        assertThat(sql.replaceAll(",\"elapsedMicros\":\\d+", "")).isEqualTo(json.replaceAll(",\"elapsedMicros\":\\d+", ""));
        mvc.perform(post("/api/sql").contentType(MediaType.TEXT_PLAIN).accept("text/csv")
                .content("SELECT sym, price FROM trade WHERE sym IN ('AAPL', 'MSFT') ORDER BY price DESC LIMIT 2 OFFSET 1"))
            .andExpect(status().isOk())
            .andExpect(content().string("sym,price\nAAPL,102.5\nAAPL,100.5\n"));
    }

    @Test
    void shouldRefuseSqlWithItsSqlState() throws Exception {
        mvc.perform(post("/api/sql").contentType(MediaType.TEXT_PLAIN).content("SELECT pirce FROM trade"))
            .andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.sqlstate").value("42703"))
            .andExpect(jsonPath("$.error").value("unknown column [table=trade, column=pirce]"));
        mvc.perform(post("/api/sql").contentType(MediaType.TEXT_PLAIN).content("DELETE FROM trade"))
            .andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.sqlstate").value("0A000"));
        mvc.perform(post("/api/sql").contentType(MediaType.TEXT_PLAIN).content("SELECT * FROM trade"))
            .andExpect(status().isPayloadTooLarge())
            .andExpect(jsonPath("$.sqlstate").value("53400"));
    }

    @Test
    void shouldFilterByTimeGivenAsNanosOrIso() throws Exception {
        query("{\"table\":\"trade\",\"from\":" + (T0 + 1_000_000_000L) + ",\"to\":\"2026-11-21T09:30:02Z\",\"columns\":[\"sym\"]}")
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.rows", hasSize(2)))
            .andExpect(jsonPath("$.rows[0][0]").value("IBM"))
            .andExpect(jsonPath("$.rows[1][0]").value("AAPL"));
        query("{\"table\":\"trade\",\"from\":\"" + (T0 + 3_000_000_000L) + "\"}")
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.columns", hasSize(5)))
            .andExpect(jsonPath("$.rows", hasSize(1)))
            .andExpect(jsonPath("$.rows[0][1]").value("MSFT"))
            .andExpect(jsonPath("$.rows[0][4]").value("N"));
    }

    @Test
    void shouldAnswer400ForUnknownTable() throws Exception {
        query("{\"table\":\"nope\"}")
            .andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.error").value("unknown table [table=nope]"))
            .andExpect(jsonPath("$.status").value(400));
    }

    @Test
    void shouldAnswer400ForUnknownColumn() throws Exception {
        query("{\"table\":\"trade\",\"columns\":[\"time\",\"bogus\"]}")
            .andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.error").value("unknown column [table=trade, column=bogus]"));
    }

    @Test
    void shouldAnswer400ForBadBodies() throws Exception {
        query("{\"table\":").andExpect(status().isBadRequest()).andExpect(jsonPath("$.error", containsString("malformed")));
        query("{\"syms\":[\"AAPL\"]}").andExpect(status().isBadRequest()).andExpect(jsonPath("$.error", containsString("table")));
        query("{\"table\":\"trade\",\"limit\":0}").andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.error", containsString("limit")));
        query("{\"table\":\"trade\",\"from\":\"yesterday\"}").andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.error", containsString("bad time [column=time, value=yesterday]")));
        query("{\"table\":\"trade\",\"from\":true}").andExpect(status().isBadRequest());
        query("{\"table\":\"trade\",\"from\":10,\"to\":5}").andExpect(status().isBadRequest())
            .andExpect(jsonPath("$.error", containsString("from is after to")));
    }

    @Test
    void shouldAnswerTheQueryModelWithAggregatesAndTheTradingDay() throws Exception {
        query("{\"table\":\"trade\",\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]},\"n\":{\"count\":\"*\"}},\"by\":[\"sym\"]}")
            .andExpect(status().isOk())
            .andExpect(header().string("X-Jtick-Day", "2026-11-21"))
            .andExpect(header().string("X-Jtick-Types", "symbol,float64,int64"))
            .andExpect(jsonPath("$.columns", contains("sym", "vwap", "n")))
            .andExpect(jsonPath("$.types", contains("symbol", "float64", "int64")))
            .andExpect(jsonPath("$.rows", hasSize(3)))
            .andExpect(jsonPath("$.rows[0][0]").value("AAPL"))
            .andExpect(jsonPath("$.rows[0][1]").value((10 * 100.5 + 30 * 102.5) / 40))
            .andExpect(jsonPath("$.rows[0][2]").value(2))
            .andExpect(jsonPath("$.rowCount").value(3))
            .andExpect(jsonPath("$.rowsScanned").value(4));
    }

    @Test
    void shouldStreamCsvWhenAsked() throws Exception {
        final String csv = mvc.perform(post("/api/query").contentType(MediaType.APPLICATION_JSON).accept("text/csv")
                .content("{\"table\":\"trade\",\"where\":{\"sym\":\"IBM\"},\"select\":[\"time\",\"sym\",\"size\",\"cond\"]}"))
            .andExpect(status().isOk())
            .andExpect(header().string("Content-Type", containsString("text/csv")))
            .andExpect(header().string("X-Jtick-Types", "timestamp,symbol,int64,char"))
            .andReturn().getResponse().getContentAsString();
        assertThat(csv).isEqualTo("time,sym,size,cond\n2026-11-21T09:30:01Z,IBM,20,N\n");
    }

    @Test
    void shouldAnswer413OverTheRowLimit() throws Exception {
        query("{\"table\":\"trade\"}")
            .andExpect(status().isPayloadTooLarge())
            .andExpect(jsonPath("$.status").value(413))
            .andExpect(jsonPath("$.error", containsString("result over the row limit [rows>3, maxRows=3]")));
    }

    @Test
    void shouldListTables() throws Exception {
        mvc.perform(get("/api/tables"))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$", hasSize(2)))
            .andExpect(jsonPath("$[0].name").value("trade"))
            .andExpect(jsonPath("$[0].rows").value(4))
            .andExpect(jsonPath("$[0].columns[*].name", contains("time", "sym", "price", "size", "cond")))
            .andExpect(jsonPath("$[0].columns[2].type").value("float64"))
            .andExpect(jsonPath("$[1].name").value("quote"))
            .andExpect(jsonPath("$[1].rows").value(0));
    }

    @Test
    void shouldReportStatus() throws Exception {
        mvc.perform(get("/api/status"))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.connected").value(false))
            .andExpect(jsonPath("$.subscribed").value(false))
            .andExpect(jsonPath("$.caughtUp").value(false))
            .andExpect(jsonPath("$.lastSequence").value(1))
            .andExpect(jsonPath("$.tables.trade").value(4))
            .andExpect(jsonPath("$.updates").value(1))
            .andExpect(jsonPath("$.duplicates").value(0))
            .andExpect(jsonPath("$.endOfDayFailures").value(0))
            .andExpect(jsonPath("$.memory.tables.trade.rows").value(4))
            .andExpect(jsonPath("$.memory.tables.trade.bytes").value(greaterThan(4 * 29)))
            .andExpect(jsonPath("$.memory.tables.trade.bytesPerRow").value(greaterThan(29.0)))
            .andExpect(jsonPath("$.memory.heapMaxBytes").value(greaterThan(0L)));
    }
}
