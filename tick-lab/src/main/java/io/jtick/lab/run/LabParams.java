package io.jtick.lab.run;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.tp.PublishMode;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.UpdateEncoder;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One row of an experiment's matrix: the feed shape, the tickerplant's publish mode and the
 * subscribers. The feed sends {@code u} updates of {@code r} rows every {@code t} ms (the white
 * paper's knobs), each row with {@code ex} extra float columns, over {@code syms} symbols.
 *
 * @param table       trade or quote
 * @param r           rows per update
 * @param u           updates per feed timer tick
 * @param t           feed timer, ms
 * @param ex          extra float columns per row
 * @param mode        tickerplant publish mode: zero-latency, timer-publish, timer-log-publish
 * @param timerMillis tickerplant timer in the two timer modes, ms
 * @param subscribers subscriber connections (each an RDB on its own connection and thread)
 * @param broadcast   serialize once for all subscribers (true) or once per subscriber (false)
 * @param syms        distinct symbols the feed draws from (replay: of the synthetic day)
 * @param streams     replay: 1 = every consumer reads the same stream; N = the consumers read N independent streams
 *                    (each its own share of the syms)
 * @param data        replay: synthetic (a day of {@code rows} rows) or algoseek (a day of real quotes imported from the
 *                    shared data)
 * @param encoding    replay: how the day's partition is written (plain, lz4, auto/zstd:3...)
 * @param rows        replay: rows of the synthetic day
 */
public record LabParams(String table, int r, int u, int t, int ex, String mode, int timerMillis, int subscribers,
                        boolean broadcast, int syms, int streams, String data, String encoding, int rows) {
    /** Most subscribers one lab row may start (AquaQ's study goes to 100). */
    public static final int MAX_SUBSCRIBERS = 200;
    /** Most rows per second one lab row may ask for. */
    public static final long MAX_ROWS_PER_SECOND = 5_000_000;
    /** Matrix keys a caller may set. */
    public static final String KEYS = "table|r|u|t|ex|mode|timer|subscribers|broadcast|syms|consumers|streams|data|encoding|rows";
    /** Replay data sets. */
    public static final List<String> REPLAY_DATA = List.of("synthetic", "algoseek");
    /** Rows of the synthetic replay day unless an entry says otherwise. */
    public static final int REPLAY_ROWS = 10_000_000;

    /** The white paper's base: r=10, u=1, t=1 ms, no extra columns, zero latency, one subscriber, 100 syms. */
    public static LabParams base() {
        return new LabParams("trade", 10, 1, 1, 0, PublishMode.ZERO_LATENCY.id(), 100, 1, true, 100, 1, "synthetic", "plain",
            REPLAY_ROWS);
    }

    public static LabParams of(final int r, final int u, final int t) {
        return base().withFeed(r, u, t);
    }

    public LabParams withFeed(final int rows, final int updates, final int timer) {
        return new LabParams(table, rows, updates, timer, ex, mode, timerMillis, subscribers, broadcast, syms, streams, data, encoding,
            this.rows);
    }

    public LabParams withEx(final int extra) {
        return new LabParams(table, r, u, t, extra, mode, timerMillis, subscribers, broadcast, syms, streams, data, encoding, rows);
    }

    public LabParams withMode(final PublishMode m, final int timer) {
        return new LabParams(table, r, u, t, ex, m.id(), timer, subscribers, broadcast, syms, streams, data, encoding,
            rows);
    }

    public LabParams withSubscribers(final int n) {
        return new LabParams(table, r, u, t, ex, mode, timerMillis, n, broadcast, syms, streams, data, encoding, rows);
    }

    public LabParams withBroadcast(final boolean b) {
        return new LabParams(table, r, u, t, ex, mode, timerMillis, subscribers, b, syms, streams, data, encoding, rows);
    }

    /** A replay entry: {@code consumers} consumers of {@code streams} streams of a day of {@code data} in {@code encoding}. */
    public LabParams withReplay(final int consumers, final int streamCount, final String dataSet, final String enc) {
        return new LabParams(table, r, u, t, ex, mode, timerMillis, consumers, broadcast, syms, streamCount, dataSet, enc, rows);
    }

    /** The publish mode as the tickerplant's enum. */
    public PublishMode publishMode() {
        return PublishMode.parse(mode);
    }

    /** Rows per second the feed is asked for: r × u × 1000 / t (the paper's rps). */
    public double targetRowsPerSecond() {
        return (double) r * u * 1000.0 / t;
    }

    /** The schema the feed and tickerplant use. */
    public TableSchema schema() {
        return "quote".equals(table) ? TableSchema.quote(ex) : TableSchema.trade(ex);
    }

    /**
     * Overrides fields from a JSON-like map ({@code {"r":100,"mode":"timer-publish","timer":"100ms"}});
     * numbers may be JSON numbers or numeric strings. Throws {@link IllegalArgumentException} naming an
     * unknown key or a value of the wrong kind.
     */
    public LabParams with(final Map<String, ?> overrides) {
        String tb = table;
        int rr = r;
        int uu = u;
        int tt = t;
        int exx = ex;
        String m = mode;
        int timer = timerMillis;
        int subs = subscribers;
        boolean b = broadcast;
        int sy = syms;
        int st = streams;
        String dt = data;
        String en = encoding;
        int rw = rows;
        for (final Map.Entry<String, ?> e : overrides.entrySet()) {
            final String key = e.getKey();
            final Object v = e.getValue();
            switch (key) {
                case "table":
                    tb = text(key, v).toLowerCase(Locale.ROOT);
                    break;
                case "r":
                    rr = integer(key, v);
                    break;
                case "u":
                    uu = integer(key, v);
                    break;
                case "t":
                    tt = integer(key, v);
                    break;
                case "ex":
                    exx = integer(key, v);
                    break;
                case "mode":
                    m = PublishMode.parse(text(key, v)).id();
                    break;
                case "timer":
                    timer = millis(key, v);
                    break;
                case "subscribers":
                case "subs":
                case "consumers":
                    subs = integer(key, v);
                    break;
                case "streams":
                    st = integer(key, v);
                    break;
                case "data":
                    dt = text(key, v).toLowerCase(Locale.ROOT);
                    break;
                case "encoding":
                    en = text(key, v).toLowerCase(Locale.ROOT);
                    break;
                case "rows":
                    rw = integer(key, v);
                    break;
                case "broadcast":
                    b = bool(key, v);
                    break;
                case "syms":
                    sy = integer(key, v);
                    break;
                default:
                    throw new IllegalArgumentException("unknown matrix key [key=" + key + ", known=" + KEYS + "]");
            }
        }
        return new LabParams(tb, rr, uu, tt, exx, m, timer, subs, b, sy, st, dt, en, rw);
    }

    /** Checks every value and the load it implies; the message names the first problem. */
    public LabParams validate() {
        if (!"trade".equals(table) && !"quote".equals(table)) {
            throw new IllegalArgumentException("unknown table, expected trade or quote [table=" + table + "]");
        }
        range("r", r, 1, 1_000_000);
        range("u", u, 1, 100_000);
        range("t", t, 1, 3_600_000);
        range("ex", ex, 0, 1024);
        range("timer", timerMillis, 1, 60_000);
        range("subscribers", subscribers, 1, MAX_SUBSCRIBERS);
        range("syms", syms, 1, 1_000_000);
        range("streams", streams, 1, MAX_SUBSCRIBERS);
        range("rows", rows, 1_000, 200_000_000);
        if (!REPLAY_DATA.contains(data)) {
            throw new IllegalArgumentException("unknown replay data, expected " + String.join(" or ", REPLAY_DATA) + " [data=" + data
                + "]");
        }
        try {
            ColumnEncoding.parse(encoding);
        } catch (final IllegalArgumentException e) {
            throw new IllegalArgumentException("bad encoding [encoding=" + encoding + "]: " + e.getMessage(), e);
        }
        final PublishMode m = publishMode();
        if (targetRowsPerSecond() > MAX_ROWS_PER_SECOND) {
            throw new IllegalArgumentException("too much load for one lab row: r*u*1000/t rows per second over the limit [rowsPerSecond="
                + (long) targetRowsPerSecond() + ", max=" + MAX_ROWS_PER_SECOND + "]");
        }
        final int dict = Math.min(r, syms) * (1 + Math.max(4, Integer.toString(syms - 1).length()) + 1);
        final long frame = UpdateEncoder.frameLength(schema(), r, dict);
        if (frame > FrameDescriptor.DEFAULT_MAX_FRAME_LENGTH) {
            throw new IllegalArgumentException("one update of r rows exceeds the frame limit [r=" + r + ", ex=" + ex + ", bytes=" + frame
                + ", max=" + FrameDescriptor.DEFAULT_MAX_FRAME_LENGTH + "]");
        }
        if (m != PublishMode.ZERO_LATENCY) {
            final long merged = (long) Math.ceil(targetRowsPerSecond() * timerMillis / 1000.0);
            final long mergedBytes = merged * schema().rowWidth() + 4096L + 32L * schema().columnCount() + (long) syms * 8;
            if (mergedBytes > FrameDescriptor.DEFAULT_MAX_FRAME_LENGTH) {
                throw new IllegalArgumentException("one timer batch would exceed the frame limit: lower the rate or the timer"
                    + " [rowsPerTimer="
                    + merged + ", bytes~" + mergedBytes + ", max=" + FrameDescriptor.DEFAULT_MAX_FRAME_LENGTH + "]");
            }
        }
        return this;
    }

    /** The parameters as an ordered map (for tables and CSV). */
    public Map<String, Object> asMap() {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("table", table);
        m.put("r", r);
        m.put("u", u);
        m.put("t", t);
        m.put("ex", ex);
        m.put("mode", mode);
        m.put("timer", timerMillis);
        m.put("subscribers", subscribers);
        m.put("broadcast", broadcast);
        m.put("syms", syms);
        m.put("streams", streams);
        m.put("data", data);
        m.put("encoding", encoding);
        m.put("rows", rows);
        return m;
    }

    private static void range(final String key, final int v, final int min, final int max) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(key + " must be " + min + ".." + max + " [" + key + "=" + v + "]");
        }
    }

    private static String text(final String key, final Object v) {
        if (v instanceof String s && !s.isBlank()) {
            return s.trim();
        }
        throw new IllegalArgumentException(key + " must be a string [" + key + "=" + v + "]");
    }

    static int integer(final String key, final Object v) {
        if (v instanceof Number n) {
            final double d = n.doubleValue();
            if (d != Math.rint(d) || Math.abs(d) > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(key + " must be a whole number [" + key + "=" + v + "]");
            }
            return n.intValue();
        }
        if (v instanceof String s) {
            try {
                return Integer.parseInt(s.trim());
            } catch (final NumberFormatException e) {
                throw new IllegalArgumentException(key + " must be a whole number [" + key + "=" + v + "]", e);
            }
        }
        throw new IllegalArgumentException(key + " must be a whole number [" + key + "=" + v + "]");
    }

    private static int millis(final String key, final Object v) {
        if (v instanceof String s) {
            final String x = s.trim().toLowerCase(Locale.ROOT);
            if (x.endsWith("ms")) {
                return integer(key, x.substring(0, x.length() - 2).trim());
            }
            if (x.endsWith("s")) {
                try {
                    return (int) Math.round(Double.parseDouble(x.substring(0, x.length() - 1).trim()) * 1000);
                } catch (final NumberFormatException e) {
                    throw new IllegalArgumentException(key + " must be milliseconds or a duration like 100ms or 1s [" + key + "=" + v + "]",
                        e);
                }
            }
        }
        return integer(key, v);
    }

    private static boolean bool(final String key, final Object v) {
        if (v instanceof Boolean b) {
            return b;
        }
        if (v instanceof String s && ("true".equalsIgnoreCase(s.trim()) || "false".equalsIgnoreCase(s.trim()))) {
            return Boolean.parseBoolean(s.trim());
        }
        throw new IllegalArgumentException(key + " must be true or false [" + key + "=" + v + "]");
    }
}
