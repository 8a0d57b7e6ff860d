package io.jtick.core.feed;

import java.util.List;

/**
 * What to feed: every field is optional and defaults to the {@link FeedSupervisor.Settings}
 * (feed-sim takes it as the body of {@code POST /api/feed/start}).
 *
 * @param source          synthetic (default), taq, algoseek, lobster or hdb (a past day replayed by the HDB)
 * @param table           trade or quote
 * @param r               rows per update
 * @param u               updates per timer tick
 * @param t               timer period, ms
 * @param syms            synthetic syms
 * @param ex              extra float columns
 * @param seed            synthetic random seed
 * @param stampTime       synthetic: leave the time column to the tickerplant
 * @param durationSeconds stop after this long (0 or absent = no limit)
 * @param maxRows         stop after this many rows (0 or absent = no limit)
 * @param file            replay: the file (taq) or folder (algoseek, lobster), relative to the data folder
 * @param symbols         algoseek, hdb: symbols to replay (absent = all)
 * @param dates           algoseek: dates yyyyMMdd to replay (absent = all)
 * @param pace            timer (synthetic default), recorded (replay default) or max
 * @param speed           recorded pace: replay this many times faster than recorded
 * @param tables          hdb: tables to replay, merged by time (absent = {@code table})
 * @param from            hdb: first date, yyyy-MM-dd (required)
 * @param to              hdb: last date (absent = {@code from})
 * @param rowIds          synthetic: number the rows 1, 2, 3... in the size column (trade) or bsize (quote), so that
 *                        what reaches the RDB and the HDB can be checked row by row (every row exactly once, in order)
 */
public record FeedRequest(String source, String table, Integer r, Integer u, Integer t, Integer syms, Integer ex, Long seed,
                          Boolean stampTime, Long durationSeconds, Long maxRows, String file, List<String> symbols,
                          List<String> dates, String pace, Double speed, List<String> tables, String from, String to,
                          Boolean rowIds) {
    /** All defaults. */
    public static FeedRequest defaults() {
        return new FeedRequest(null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
            null, null);
    }
}
