package io.jtick.bench.query;

/**
 * The six questions (KX's performance pages time these), asked of each system in its own language:
 * jtick's JSON document, DuckDB's and QuestDB's SQL.
 */
public enum BenchQuery {
    /** {@code select n:count i by sym from trade}. */
    COUNT_BY_SYM,
    /** {@code select vwap:size wavg price, n:count i by sym from trade}. */
    VWAP_BY_SYM,
    /** {@code select time, sym, price, size, cond from trade where sym=`S}. */
    ONE_SYM,
    /**
     * {@code select open:first price, high:max price, low:min price, close:last price, volume:sum size
     * by 1 xbar time.minute from trade where sym=`S}.
     */
    BARS_1M,
    /** {@code aj[`sym`time; select time, price, size from trade where sym=`S; select time, sym, bid, ask from quote where sym=`S]}. */
    ASOF,
    /** {@code select spread:avg ask-bid by sym from quote where time within (t0; t1)}. */
    SPREAD_BY_SYM
}
