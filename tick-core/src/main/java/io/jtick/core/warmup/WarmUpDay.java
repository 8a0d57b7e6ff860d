package io.jtick.core.warmup;

import io.jtick.core.rdb.RealtimeTable;
import io.jtick.core.rdb.SymbolCatalog;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The generated trading day a warm-up queries: a {@code trade} and a {@code quote} table (kdb+tick's
 * schemas) of {@code rows} rows each over {@code syms} symbols, arrival-ordered through a 6.5-hour
 * session, put into {@link RealtimeTable}s through the RDB's own insert path (update frames of
 * {@value #FRAME_ROWS} rows, each with its own sym dictionary, as a tickerplant sends them). The same
 * tables are what the HDB warm-up writes as a partition. Values look like a real feed's, so that the
 * HDB's {@code auto} encodings pick for them the transforms they pick for real days (and the warm-up
 * compiles those decoders): times on whole microseconds, prices a random walk per sym in cents,
 * quotes a cent or more either side of their own walk. Values are seeded, so every start queries
 * the same day.
 */
final class WarmUpDay {
    static final int FRAME_ROWS = 10_000;
    /** The day's date (2024-10-04): any date works, the tables are private to the warm-up. */
    static final int EPOCH_DAY = 20_000;
    private static final long DAY_NANOS = 86_400_000_000_000L;
    private static final long OPEN = EPOCH_DAY * DAY_NANOS + 34_200_000_000_000L;
    private static final long SESSION = 23_400_000_000_000L;

    private WarmUpDay() {
    }

    /**
     * The sym id the one-sym questions ask for, a busy one: one row in {@value #ONE_SHARE} is drawn as
     * its own (with its share of the other draws, about 1 in 30), so its rows span several blocks of
     * an encoded HDB column and its one-minute bars are runs of many rows, as a large day's syms are,
     * where every other sym's rows fit in one block and its bars are runs of a few rows at most. The
     * day's first trade and its last two are its own, and the day's last two quotes are other syms',
     * so its as-of join meets a trade before its first quote and two after its last. Code compiled
     * without those paths was thrown away at a user's first queries of a large day.
     */
    static final int ONE = 7;
    /** One row in this many is sym {@link #ONE}'s. */
    static final int ONE_SHARE = 32;

    /** The symbol of sym id {@code i}. */
    static String sym(final int i) {
        return "W" + i;
    }

    /** The trade and the quote table of the day, in that order. */
    static List<RealtimeTable> tables(final int rows, final int syms) {
        final SymbolCatalog catalog = new SymbolCatalog();
        final TableSchema tradeSchema = TableSchema.trade(0);
        final TableSchema quoteSchema = TableSchema.quote(0);
        final RealtimeTable trade = new RealtimeTable(tradeSchema, catalog, rows, true);
        final RealtimeTable quote = new RealtimeTable(quoteSchema, catalog, rows, true);
        final byte[][] names = new byte[syms][];
        for (int i = 0; i < syms; i++) {
            names[i] = sym(i).getBytes(StandardCharsets.US_ASCII);
        }
        final int maxDictBytes = Math.min(FRAME_ROWS, syms) * 8;
        final ByteBuf buf = Unpooled.buffer(UpdateEncoder.frameLength(quoteSchema, FRAME_ROWS, maxDictBytes));
        final UpdateEncoder enc = new UpdateEncoder();
        final UpdateDecoder dec = new UpdateDecoder();
        final int[] code = new int[syms];
        final int[] stamp = new int[syms];
        final SplittableRandom r = new SplittableRandom(42);
        final long stepMicros = SESSION / 1000 / rows;
        final long jitter = Math.max(1, stepMicros / 2 - 1);
        final long[] tradeCents = new long[syms];
        final long[] midCents = new long[syms];
        for (int s = 0; s < syms; s++) {
            tradeCents[s] = 1_000 + r.nextInt(49_000);
            midCents[s] = tradeCents[s];
        }
        int frame = 0;
        for (int from = 0; from < rows; from += FRAME_ROWS) {
            final int n = Math.min(FRAME_ROWS, rows - from);
            frame++;
            buf.clear();
            enc.wrap(buf, tradeSchema, n, maxDictBytes);
            for (int i = 0; i < n; i++) {
                final int drawn = draw(r, syms);
                final int s = (from + i == 0 || from + i >= rows - 2) && ONE < syms ? ONE : drawn;
                if (stamp[s] != frame) {
                    stamp[s] = frame;
                    code[s] = enc.addSym(names[s]);
                }
                tradeCents[s] = Math.max(100, tradeCents[s] + r.nextInt(5) - 2);
                final long slot = OPEN + (from + i) * stepMicros * 1000;
                enc.timestamp(0, i, slot + r.nextLong(jitter) * 1000).sym(i, code[s]).float64(2, i, tradeCents[s] / 100.0)
                    .int64(3, i, 100L * r.nextInt(1, 20)).int8(4, i, 'A' + r.nextInt(4));
            }
            enc.finish();
            trade.append(tradeSchema, dec.wrap(buf, 0));
            frame++;
            buf.clear();
            enc.wrap(buf, quoteSchema, n, maxDictBytes);
            for (int i = 0; i < n; i++) {
                final int drawn = draw(r, syms);
                final int s = from + i >= rows - 2 && drawn == ONE ? (ONE + 1) % syms : drawn;
                if (stamp[s] != frame) {
                    stamp[s] = frame;
                    code[s] = enc.addSym(names[s]);
                }
                midCents[s] = Math.max(100, midCents[s] + r.nextInt(5) - 2);
                final int half = 1 + r.nextInt(3);
                final long slot = OPEN + (from + i) * stepMicros * 1000;
                enc.timestamp(0, i, slot + (stepMicros / 2 + r.nextLong(jitter)) * 1000).sym(i, code[s])
                    .float64(2, i, (midCents[s] - half) / 100.0).float64(3, i, (midCents[s] + half) / 100.0)
                    .int64(4, i, 100L * r.nextInt(1, 10)).int64(5, i, 100L * r.nextInt(1, 10));
            }
            enc.finish();
            quote.append(quoteSchema, dec.wrap(buf, 0));
        }
        return List.of(trade, quote);
    }

    /** A row's sym: {@link #ONE} once in {@value #ONE_SHARE}, else any. */
    private static int draw(final SplittableRandom r, final int syms) {
        return ONE < syms && r.nextInt(ONE_SHARE) == 0 ? ONE : r.nextInt(syms);
    }
}
