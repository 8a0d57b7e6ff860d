package io.jtick.bench;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * REST round trip of a one-sym, last-minute query against a running rdb-service that a live feed
 * is filling ({@code ./jtick up}, or the services started by hand): one keep-alive HTTP/1.1
 * connection, requests paced at {@code --rate} per second on a fixed schedule, the time from
 * writing the request to reading the last byte of the answer recorded in an HdrHistogram.
 *
 * <p>{@code --url http://127.0.0.1:8011 --sym S0042 --rate 200 --seconds 60 --warmup 10
 * --query rows|ohlc|vwap --path /api/query}: {@code rows} asks for the sym's trades of the last minute
 * ({@code select time, sym, price, size from trade where sym=`S, time >= .z.p - 00:01}),
 * {@code ohlc} for their open/high/low/close/volume/count, {@code vwap} for VWAP and count by date
 * and sym over every date the service has (with {@code --path /api/gateway/query} on hdb-service:
 * the HDB's partitions plus the RDB, split and merged). Prints percentiles in µs, the rows per
 * answer, and the server's own {@code tick_query} percentiles; exits 1 on any non-200 answer.
 */
public final class RestQueryLatency {
    private RestQueryLatency() {
    }

    public static void main(final String[] args) throws IOException {
        String url = "http://127.0.0.1:8011";
        String sym = "S0042";
        int rate = 200;
        int seconds = 60;
        int warmup = 10;
        String query = "rows";
        String path = "/api/query";
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--url":
                    url = args[i + 1];
                    break;
                case "--sym":
                    sym = args[i + 1];
                    break;
                case "--rate":
                    rate = Integer.parseInt(args[i + 1]);
                    break;
                case "--seconds":
                    seconds = Integer.parseInt(args[i + 1]);
                    break;
                case "--warmup":
                    warmup = Integer.parseInt(args[i + 1]);
                    break;
                case "--query":
                    query = args[i + 1];
                    break;
                case "--path":
                    path = args[i + 1];
                    break;
                default:
                    throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        final URI uri = URI.create(url);
        final Histogram h = new Histogram(60_000_000_000L, 3);
        long rows = 0;
        long answers = 0;
        int reconnects = 0;
        Socket s = connect(uri);
        try {
            OutputStream out = s.getOutputStream();
            Reader in = new Reader(s.getInputStream());
            final long period = 1_000_000_000L / rate;
            final long start = System.nanoTime();
            final long measureFrom = start + warmup * 1_000_000_000L;
            final long end = measureFrom + seconds * 1_000_000_000L;
            long next = start;
            while (true) {
                final long now = System.nanoTime();
                if (now >= end) {
                    break;
                }
                if (now < next) {
                    LockSupport.parkNanos(next - now);
                    continue;
                }
                next += period;
                final String body = body(query, sym, System.currentTimeMillis() * 1_000_000L - 60_000_000_000L);
                final byte[] req = ("POST " + path + " HTTP/1.1\r\nHost: " + uri.getHost() + "\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII);
                final long t0 = System.nanoTime();
                out.write(req);
                out.flush();
                final boolean closeAfter = in.response();
                final long t1 = System.nanoTime();
                if (t0 >= measureFrom) {
                    h.recordValue(t1 - t0);
                    rows += in.rowCount();
                    answers++;
                }
                if (closeAfter) {
                    // the server ended the keep-alive connection: reconnect before the next request (not timed)
                    s.close();
                    s = connect(uri);
                    out = s.getOutputStream();
                    in = new Reader(s.getInputStream());
                    reconnects++;
                }
            }
        } finally {
            s.close();
        }
        System.out.printf(Locale.ROOT, "path=%s query=%s sym=%s rate=%d/s answers=%d rows/answer=%.1f reconnects=%d%n", path,
            query, sym, rate, answers, answers == 0 ? 0.0 : (double) rows / answers, reconnects);
        System.out.printf(Locale.ROOT, "round trip us: p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f%n",
            h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(90) / 1e3, h.getValueAtPercentile(99) / 1e3,
            h.getValueAtPercentile(99.9) / 1e3, h.getMaxValue() / 1e3);
        serverSide(uri);
    }

    private static Socket connect(final URI uri) throws IOException {
        final Socket s = new Socket();
        s.setTcpNoDelay(true);
        s.connect(new InetSocketAddress(uri.getHost(), uri.getPort()));
        return s;
    }

    static String body(final String query, final String sym, final long fromNanos) {
        final String where = "\"where\":{\"sym\":\"" + sym + "\",\"time\":{\">=\":" + fromNanos + "}}";
        if ("vwap".equals(query)) {
            return "{\"table\":\"trade\",\"select\":{\"vwap\":{\"wavg\":[\"size\",\"price\"]},\"n\":{\"count\":\"*\"}},"
                + "\"by\":[\"date\",\"sym\"]}";
        }
        if ("ohlc".equals(query)) {
            return "{\"table\":\"trade\"," + where + ",\"select\":{\"open\":{\"first\":\"price\"},\"high\":{\"max\":\"price\"},"
                + "\"low\":{\"min\":\"price\"},\"close\":{\"last\":\"price\"},\"volume\":{\"sum\":\"size\"},\"n\":{\"count\":\"*\"}}}";
        }
        return "{\"table\":\"trade\"," + where + ",\"select\":[\"time\",\"sym\",\"price\",\"size\"]}";
    }

    /** A small unsynchronized reader of HTTP responses; the last body stays in {@link #body}. */
    static final class Reader {
        private final InputStream in;
        private final byte[] buf = new byte[1 << 16];
        private int pos;
        private int lim;
        byte[] body = new byte[1 << 16];
        int bodyLength;

        Reader(final InputStream in) {
            this.in = in;
        }

        private int read() throws IOException {
            if (pos == lim) {
                lim = in.read(buf, 0, buf.length);
                pos = 0;
                if (lim <= 0) {
                    lim = 0;
                    return -1;
                }
            }
            return buf[pos++] & 0xff;
        }

        private String line() throws IOException {
            final StringBuilder sb = new StringBuilder(64);
            int c;
            while ((c = read()) >= 0 && c != '\n') {
                if (c != '\r') {
                    sb.append((char) c);
                }
            }
            if (c < 0 && sb.length() == 0) {
                throw new IOException("connection closed");
            }
            return sb.toString();
        }

        private void bodyBytes(final int n) throws IOException {
            if (bodyLength + n > body.length) {
                body = java.util.Arrays.copyOf(body, Math.max(body.length << 1, bodyLength + n));
            }
            int k = 0;
            while (k < n) {
                if (pos == lim) {
                    lim = in.read(buf, 0, buf.length);
                    pos = 0;
                    if (lim <= 0) {
                        lim = 0;
                        throw new IOException("connection closed in a body");
                    }
                }
                final int m = Math.min(n - k, lim - pos);
                System.arraycopy(buf, pos, body, bodyLength + k, m);
                pos += m;
                k += m;
            }
            bodyLength += n;
        }

        /** Reads one response (Content-Length or chunked); fails on a status other than 200; true when the server closes after it. */
        boolean response() throws IOException {
            final String status = line();
            if (!status.startsWith("HTTP/1.1 200")) {
                throw new IOException("query answered " + status);
            }
            long length = -1;
            boolean chunked = false;
            boolean close = false;
            for (String l = line(); !l.isEmpty(); l = line()) {
                final String lower = l.toLowerCase(Locale.ROOT);
                if (lower.startsWith("content-length:")) {
                    length = Long.parseLong(l.substring(15).trim());
                } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                    chunked = true;
                } else if (lower.startsWith("connection:") && lower.contains("close")) {
                    close = true;
                }
            }
            bodyLength = 0;
            if (chunked) {
                while (true) {
                    final int n = Integer.parseInt(line().trim(), 16);
                    if (n == 0) {
                        line();
                        break;
                    }
                    bodyBytes(n);
                    line();
                }
            } else if (length >= 0) {
                bodyBytes((int) length);
            }
            return close;
        }

        /** The {@code rowCount} of the last JSON body. */
        long rowCount() {
            final byte[] key = "\"rowCount\":".getBytes(StandardCharsets.US_ASCII);
            outer:
            for (int i = bodyLength - key.length; i >= 0; i--) {
                for (int j = 0; j < key.length; j++) {
                    if (body[i + j] != key[j]) {
                        continue outer;
                    }
                }
                long v = 0;
                for (int k = i + key.length; k < bodyLength && body[k] >= '0' && body[k] <= '9'; k++) {
                    v = v * 10 + body[k] - '0';
                }
                return v;
            }
            return 0;
        }

        String text() {
            return new String(body, 0, bodyLength, StandardCharsets.UTF_8);
        }
    }

    /**
     * The server's own tick_query histogram from /actuator/prometheus: count, mean and p50/p99 read
     * off the buckets as Prometheus's histogram_quantile would (within one bucket, 2^(1/8), of the truth).
     */
    private static void serverSide(final URI uri) {
        try (Socket s = new Socket(uri.getHost(), uri.getPort())) {
            s.getOutputStream().write(("GET /actuator/prometheus HTTP/1.1\r\nHost: " + uri.getHost() + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
            final Reader r = new Reader(s.getInputStream());
            r.response();
            final java.util.Map<String, java.util.List<double[]>> buckets = new java.util.TreeMap<>();
            for (final String l : r.text().split("\n")) {
                if (l.startsWith("tick_query_seconds_count") || l.startsWith("tick_query_seconds_sum")) {
                    System.out.println("server " + l);
                } else if (l.startsWith("tick_query_seconds_bucket{")) {
                    final int le = l.indexOf("le=\"");
                    final String bound = l.substring(le + 4, l.indexOf('"', le + 4));
                    buckets.computeIfAbsent(l.substring(0, le), k -> new java.util.ArrayList<>()).add(new double[] {
                        "+Inf".equals(bound) ? Double.POSITIVE_INFINITY : Double.parseDouble(bound),
                        Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))});
                }
            }
            buckets.forEach((series, b) -> System.out.printf("server %s} p50 %.1f us, p99 %.1f us%n", series.replaceAll(",$", ""),
                quantile(0.5, b) * 1e6, quantile(0.99, b) * 1e6));
        } catch (final IOException e) {
            System.out.println("server metrics unavailable: " + e.getMessage());
        }
    }

    /** Prometheus's histogram_quantile over cumulative (le, count) buckets in ascending order, +Inf last. */
    private static double quantile(final double q, final java.util.List<double[]> buckets) {
        final double total = buckets.get(buckets.size() - 1)[1];
        if (total == 0) {
            return Double.NaN;
        }
        final double rank = q * total;
        double lower = 0;
        double below = 0;
        for (int i = 0; i < buckets.size() - 1; i++) {
            final double[] b = buckets.get(i);
            if (b[1] >= rank) {
                return lower + (b[0] - lower) * (rank - below) / (b[1] - below);
            }
            lower = b[0];
            below = b[1];
        }
        return lower;
    }
}
