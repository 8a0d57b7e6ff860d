package io.jtick.bench.query;

import io.jtick.core.auth.AccessSettings;
import io.jtick.core.kdb.KdbDescriptor;
import io.jtick.core.kdb.KdbReader;
import io.jtick.core.kdb.KdbSettings;
import io.jtick.core.kdb.KdbWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.query.result.JsonResultWriter;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.time.NanoClock;
import io.jtick.sql.SqlRunner;
import io.jtick.sql.kdb.KdbQueryServer;
import io.jtick.sql.kdb.KdbQuerySettings;
import io.jtick.sql.kdb.KdbValueReader;
import io.jtick.sql.pg.PgServer;
import io.jtick.sql.pg.PgSettings;
import io.jtick.sql.q.QValue;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.HdrHistogram.Histogram;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.List;

/**
 * The six questions in q over the RDB's kdb+ port (a blocking client made of the project's own
 * codec: the answer read whole and every value decoded) beside the engine's own time and the engine
 * writing {@code POST /api/query}'s JSON (no HTTP) on the same data in the same JVM; then one sym's
 * last trade sync on one connection, in rounds that take turns: q over the kdb+ port
 * ({@code select by sym from trade where sym=`X}), SQL over the PostgreSQL port (pgJDBC, prepared
 * {@code ... ORDER BY time DESC LIMIT 1}, every value read) and the engine writing {@code POST /api/query}'s
 * JSON for its document: queries/s and latency percentiles per round.
 * {@code KdbWireCheck [rows] [syms] [repeats] [seconds] [rounds]}.
 */
public final class KdbWireCheck {
    private static final DateTimeFormatter Q_TIMESTAMP = DateTimeFormatter.ofPattern("yyyy.MM.dd'D'HH:mm:ss.SSSSSSSSS")
        .withZone(ZoneOffset.UTC);

    private KdbWireCheck() {
    }

    /** The question in q, as docs/kdb-ipc.md writes it. */
    static String q(final BenchQuery q, final TickData d) {
        return switch (q) {
            case COUNT_BY_SYM -> "select n:count i by sym from trade";
            case VWAP_BY_SYM -> "select vwap:size wavg price, n:count i by sym from trade";
            case ONE_SYM -> "select time, sym, price, size, cond from trade where sym=`" + d.oneSym;
            case BARS_1M -> "select open:first price, high:max price, low:min price, close:last price, volume:sum size "
                + "by minute:1 xbar time.minute from trade where sym=`" + d.oneSym;
            case ASOF -> "aj[`sym`time; select time, sym, price, size from trade where sym=`" + d.oneSym
                + "; select time, sym, bid, ask from quote]";
            case SPREAD_BY_SYM -> "select spread:avg ask-bid by sym from quote where time within " + ts(d.windowFrom) + " "
                + ts(d.windowTo);
        };
    }

    private static String ts(final long nanos) {
        return Q_TIMESTAMP.format(Instant.ofEpochSecond(0, nanos));
    }

    /** A blocking kdb+ client: handshake, then sync q text and the answer read whole. */
    static final class Client implements AutoCloseable {
        private final Socket socket;
        private final OutputStream out;
        private final DataInputStream in;
        private byte[] buffer = new byte[1 << 16];

        Client(final int port) throws IOException {
            socket = new Socket("127.0.0.1", port);
            socket.setTcpNoDelay(true);
            out = socket.getOutputStream();
            in = new DataInputStream(socket.getInputStream());
            out.write("bench:\u0003\u0000".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            if (in.read() != 3) {
                throw new IOException("kdb+ login refused");
            }
        }

        /** Sends q text sync; returns the answer decoded (every value read). */
        QValue sync(final String q) throws IOException {
            final ByteBuf m = KdbWriter.begin(ByteBufAllocator.DEFAULT, KdbDescriptor.SYNC, q.length() + 8);
            try {
                KdbWriter.chars(m, q);
                KdbWriter.end(m);
                m.readBytes(out, m.readableBytes());
                out.flush();
            } finally {
                m.release();
            }
            in.readFully(buffer, 0, 8);
            final int length = Unpooled.wrappedBuffer(buffer, 0, 8).getIntLE(4);
            if (length > buffer.length) {
                buffer = Arrays.copyOf(buffer, Integer.highestOneBit(length) << 1);
            }
            in.readFully(buffer, 8, length - 8);
            final KdbReader reader = new KdbReader().wrap(Unpooled.wrappedBuffer(buffer, 0, length), 0, length);
            return new KdbValueReader(reader).read(reader.body());
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    public static void main(final String[] args) throws Exception {
        final int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        final int syms = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        final int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        final int seconds = args.length > 3 ? Integer.parseInt(args[3]) : 10;
        final int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 3;
        final TickData data = TickData.load("synthetic", rows, syms);
        try (JtickQuerySystem jtick = new JtickQuerySystem(data, JtickQuerySystem.Layout.RDB);
             KdbQueryServer kdb = new KdbQueryServer(new KdbQuerySettings("127.0.0.1", KdbSettings.onPort(0), 16 << 20, 2, false),
                 new SqlRunner(jtick.engine(), NanoClock.SYSTEM), jtick.source(),
                 () -> List.of(TableSchema.trade(0), TableSchema.quote(0)), new TickMetrics(), "bench");
             PgServer pg = new PgServer(new PgSettings("127.0.0.1", 0, AccessSettings.DEFAULT, 16 << 20, 2),
                 new SqlRunner(jtick.engine(), NanoClock.SYSTEM), jtick.source(),
                 () -> List.of(TableSchema.trade(0), TableSchema.quote(0)), new TickMetrics(), "bench");
             Connection sql = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + pg.port()
                 + "/jtick?user=jtick&binaryTransfer=true&prepareThreshold=1");
             PreparedStatement last = sql.prepareStatement("SELECT * FROM trade WHERE sym = ? ORDER BY time DESC LIMIT 1");
             Client c = new Client(kdb.port())) {
            System.out.printf("%s; kdb+ port %d, q text, answer decoded%n", data, kdb.port());
            System.out.printf("%-14s %12s %12s %8s %14s %8s%n", "median ms", "engine", "kdb+ IPC", "ratio", "engine+JSON", "rows");
            final byte[] json = new byte[1 << 16];
            for (final BenchQuery q : BenchQuery.values()) {
                final String text = q(q, data);
                final String doc = JtickQuerySystem.json(q, data);
                final long[] engine = new long[repeats];
                final long[] wire = new long[repeats];
                final long[] rest = new long[repeats];
                for (int w = 0; w < 3; w++) {
                    jtick.run(q);
                    c.sync(text);
                }
                int n = 0;
                for (int r = 0; r < repeats; r++) {
                    long s0 = System.nanoTime();
                    jtick.run(q);
                    engine[r] = System.nanoTime() - s0;
                    s0 = System.nanoTime();
                    n = count(c.sync(text));
                    wire[r] = System.nanoTime() - s0;
                    s0 = System.nanoTime();
                    jtick.engine().run(doc, jtick.source(), p -> new JsonResultWriter(OutputStream.nullOutputStream(), Long.MAX_VALUE,
                        json));
                    rest[r] = System.nanoTime() - s0;
                }
                Arrays.sort(engine);
                Arrays.sort(wire);
                Arrays.sort(rest);
                final double e = engine[repeats / 2] / 1e6;
                final double k = wire[repeats / 2] / 1e6;
                System.out.printf("%-14s %12.3f %12.3f %8.2f %14.3f %8d%n", q, e, k, k / e, rest[repeats / 2] / 1e6, n);
            }
            final byte[] buffer = new byte[1 << 16];
            final String[] docs = new String[data.syms.length];
            for (int i = 0; i < docs.length; i++) {
                docs[i] = "{\"table\":\"trade\",\"where\":{\"sym\":\"" + data.syms[i] + "\"},\"by\":\"sym\"}";
            }
            System.out.printf("%nsmall queries (one sym's last trade), one connection, %d rounds of %d s each, taking turns:%n", rounds,
                seconds);
            for (int r = 0; r < rounds; r++) {
                smallQueries("q, kdb+ port", data, seconds, k -> count(c.sync("select by sym from trade where sym=`" + data.syms[k])));
                smallQueries("SQL, PostgreSQL port", data, seconds, k -> {
                    last.setString(1, data.syms[k]);
                    return readAll(last);
                });
                smallQueries("engine + /api/query JSON", data, seconds, k -> (int) jtick.engine().run(docs[k], jtick.source(),
                    p -> new JsonResultWriter(OutputStream.nullOutputStream(), Long.MAX_VALUE, buffer)).rows());
            }
        }
    }

    /** Reads every value of the statement's answer; returns the rows. */
    private static int readAll(final PreparedStatement ps) throws SQLException {
        int rows = 0;
        try (ResultSet rs = ps.executeQuery()) {
            final int cols = rs.getMetaData().getColumnCount();
            long sink = 0;
            while (rs.next()) {
                for (int i = 1; i <= cols; i++) {
                    final Object o = rs.getObject(i);
                    sink += o == null ? 0 : o.hashCode();
                }
                rows++;
            }
            if (sink == 42) {
                System.out.print("");
            }
        }
        return rows;
    }

    /** One small query for the sym of index k; returns its rows. */
    private interface SmallQuery {
        int run(int k) throws Exception;
    }

    /** Rows of a table or keyed table answer. */
    private static int count(final QValue v) {
        final QValue[] parts = (QValue[]) v.data();
        if (v.type() == 99) {
            return count(parts[0]);
        }
        return parts[1].item(0).count();
    }

    /** One sym's last trade, as fast as one connection goes: queries/s and latency percentiles. */
    private static void smallQueries(final String who, final TickData data, final int seconds, final SmallQuery query) throws Exception {
        final Histogram h = new Histogram(60_000_000_000L, 3);
        int i = 0;
        final long warm = System.nanoTime() + 2_000_000_000L;
        while (System.nanoTime() < warm) {
            query.run(i++ % data.syms.length);
        }
        final long start = System.nanoTime();
        final long end = start + seconds * 1_000_000_000L;
        long done = 0;
        while (System.nanoTime() < end) {
            final int k = i++ % data.syms.length;
            final long s0 = System.nanoTime();
            if (query.run(k) != 1) {
                throw new IllegalStateException("no last trade [system=" + who + ", sym=" + data.syms[k] + "]");
            }
            h.recordValue(System.nanoTime() - s0);
            done++;
        }
        final double secs = (System.nanoTime() - start) / 1e9;
        System.out.printf("  %-26s %8.0f queries/s; latency us p50 %7.1f, p99 %8.1f, p99.9 %8.1f, max %8.1f (%d queries)%n", who,
            done / secs, h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3,
            h.getMaxValue() / 1e3, done);
    }
}
