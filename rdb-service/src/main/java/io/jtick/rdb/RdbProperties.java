package io.jtick.rdb;

import io.jtick.boot.PropertyChecks;
import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.write.DirectIo;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.client.TickerplantAddresses;
import io.jtick.core.wire.LeaderHint.Address;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * {@code tick.rdb.*}: where the tickerplant is, what to subscribe to, and where the day goes at
 * end of day.
 *
 * @param tpHost         tickerplant host
 * @param tpPort         tickerplant subscriber port
 * @param tpAddresses    the tickerplants, {@code host:port,host:port} (a TP cluster's members, any of which serves the
 *                       subscription): when set it replaces {@code tpHost}/{@code tpPort}; a drop moves the RDB to the next
 * @param name           subscriber name the TP shows in its status
 * @param tables         tables to subscribe to; empty for all
 * @param syms           symbols to subscribe to; empty for all
 * @param unindexedTables tables kept without the sym index (as a kdb+ table without {@code g#}): one-sym queries scan
 *                       the sym column instead; the index of the others is built off the insert path (each chunk by the
 *                       {@code rdb-sym-index} thread once it is full, the rest by the queries)
 * @param chunkPoolSize  heap kept across end of day for the next day's column chunks at most (none set: every full chunk of the
 *                       day, as kdb+'s allocator keeps what it took; 0: none, the garbage collector returns the day's heap)
 * @param reconnectDelay wait between reconnect attempts
 * @param idleSpin       how long the subscription's event loop polls for the next update after each batch of work before
 *                       it blocks (epoll only; the tickerplant's {@code tick.tp.idle-spin}); 0 blocks at once
 * @param journalRoot    the TP's journal directory ({@code tick.tp.journal-dir}) for {@code POST /api/eod/replay}; empty = no replay
 * @param hdb            end-of-day write-down
 * @param pgPort         the PostgreSQL wire protocol port over today's tables (8812, QuestDB's); -1 = off, 0 = any free port
 * @param pgHost         address the PostgreSQL port binds to (off loopback it asks for the API token as REST does)
 * @param kdbPort        the kdb+ IPC port over today's tables, for q clients' queries (5021; the TP has 5010 and 5011); -1 = off,
 *                       0 = any free port
 * @param kdbHost        address the kdb+ port binds to (off loopback, without a users file, only the API token logs in)
 * @param kdbUsers       q's {@code -u} file of {@code user:password} lines for the kdb+ port; empty = none
 */
@ConfigurationProperties("tick.rdb")
public record RdbProperties(
    @DefaultValue("127.0.0.1") String tpHost,
    @DefaultValue("5010") int tpPort,
    String tpAddresses,
    @DefaultValue("rdb") String name,
    @DefaultValue({}) List<String> tables,
    @DefaultValue({}) List<String> syms,
    @DefaultValue({}) List<String> unindexedTables,
    DataSize chunkPoolSize,
    @DefaultValue("500ms") Duration reconnectDelay,
    @DefaultValue("0ms") Duration idleSpin,
    String journalRoot,
    @DefaultValue Hdb hdb,
    @DefaultValue("8812") int pgPort,
    @DefaultValue("127.0.0.1") String pgHost,
    @DefaultValue("5021") int kdbPort,
    @DefaultValue("127.0.0.1") String kdbHost,
    String kdbUsers) {

    /** A bad value stops start-up naming its key. */
    public RdbProperties {
        PropertyChecks.text("tick.rdb.tp-host", tpHost);
        PropertyChecks.range("tick.rdb.tp-port", tpPort, 1, 65535);
        PropertyChecks.text("tick.rdb.name", name);
        PropertyChecks.present("tick.rdb.tables", tables);
        PropertyChecks.present("tick.rdb.syms", syms);
        PropertyChecks.present("tick.rdb.unindexed-tables", unindexedTables);
        PropertyChecks.present("tick.rdb.reconnect-delay", reconnectDelay);
        PropertyChecks.present("tick.rdb.idle-spin", idleSpin);
        PropertyChecks.atLeast("tick.rdb.idle-spin", idleSpin.toNanos(), 0);
        PropertyChecks.range("tick.rdb.pg-port", pgPort, -1, 65535);
        PropertyChecks.text("tick.rdb.pg-host", pgHost);
        PropertyChecks.range("tick.rdb.kdb-port", kdbPort, -1, 65535);
        PropertyChecks.text("tick.rdb.kdb-host", kdbHost);
    }

    /**
     * End-of-day write-down ({@code tick.rdb.hdb.*}).
     *
     * @param root          HDB root the day's tables are written to as {@code <root>/<date>/}; empty = no write-down (the day is dropped);
     *                      with {@code transfer=upload} a local directory the day passes through
     * @param url           base URL of the HDB service, told about each write; empty = not told
     * @param transfer      how the day reaches the HDB: {@code reload} (the HDB reads {@code root} itself: {@code POST <url>/api/reload})
     *                      or {@code upload} (no shared directory: the day is sent to {@code PUT <url>/api/partitions/<date>}, then
     *                      deleted here)
     * @param blockBytes    raw bytes per block of the written column files (a power of two, 64 B..64 MB)
     * @param encoding      encoding of every column but sym (the hot tier): {@code none} (or {@code plain}) = stored as-is,
     *                      memory-mapped by the HDB; e.g. {@code lz4}, {@code auto/zstd:1}
     * @param reloadTimeout how long the HDB may take to answer the reload; past it the delivery counts as failed
     * @param retryInterval how often a partition written but not delivered (the HDB down or refusing) is offered again
     * @param directIo      {@code auto} (default: column files written with direct I/O where the file system takes it,
     *                      buffered elsewhere), {@code on} (direct or the write fails), {@code off} (buffered)
     */
    public record Hdb(String root, String url, @DefaultValue("reload") String transfer,
                      @DefaultValue("128KB") DataSize blockBytes,
                      @DefaultValue("none") String encoding, @DefaultValue("60s") Duration reloadTimeout,
                      @DefaultValue("5s") Duration retryInterval,
                      @DefaultValue("auto") String directIo) {

        public Hdb {
            PropertyChecks.matches("tick.rdb.hdb.transfer", transfer, "reload|upload");
            PropertyChecks.present("tick.rdb.hdb.block-bytes", blockBytes);
            PropertyChecks.text("tick.rdb.hdb.encoding", encoding);
            PropertyChecks.present("tick.rdb.hdb.reload-timeout", reloadTimeout);
            PropertyChecks.present("tick.rdb.hdb.retry-interval", retryInterval);
            PropertyChecks.matches("tick.rdb.hdb.direct-io", directIo, "(?i)auto|on|off");
        }

        /** True when {@code root} is set. */
        public boolean enabled() {
            return root != null && !root.isBlank();
        }

        Path rootPath() {
            return Path.of(root.trim());
        }

        /** True when the day is sent to the HDB rather than written where it reads. */
        boolean upload() {
            return "upload".equals(transfer);
        }

        /** The HDB's base URL, or null when not set; a bad URL (or none with {@code transfer=upload}) stops start-up naming the key. */
        URI baseUrl() {
            if (url == null || url.isBlank()) {
                if (upload()) {
                    throw new IllegalArgumentException("tick.rdb.hdb.transfer=upload needs the HDB's URL [key=tick.rdb.hdb.url]");
                }
                return null;
            }
            try {
                final URI u = new URI(url.trim());
                if (u.getScheme() == null || u.getHost() == null || !u.getScheme().startsWith("http")) {
                    throw new URISyntaxException(url, "expected http://host:port");
                }
                return u;
            } catch (final URISyntaxException e) {
                throw new IllegalArgumentException("bad HDB URL [key=tick.rdb.hdb.url, value=" + url + "]: " + e.getMessage(), e);
            }
        }

        DirectIo directIoMode() {
            return DirectIo.parse(directIo);
        }

        int blockBytesInt() {
            final long b = blockBytes.toBytes();
            if (b < 64 || b > (1 << 26) || Long.bitCount(b) != 1) {
                throw new IllegalArgumentException("block bytes must be a power of two in 64B..64MB [key=tick.rdb.hdb.block-bytes, value="
                    + blockBytes + "]");
            }
            return (int) b;
        }

        /** The writer's policy: {@link EncodingPolicy#PLAIN}, or the encoding for every column but sym. */
        EncodingPolicy policy() {
            final String e = encoding.trim();
            final ColumnEncoding parsed;
            try {
                parsed = ColumnEncoding.parse(e);
            } catch (final IllegalArgumentException bad) {
                throw new IllegalArgumentException("bad encoding [key=tick.rdb.hdb.encoding, value=" + encoding + "]: " + bad.getMessage(),
                    bad);
            }
            return parsed.isPlain() ? EncodingPolicy.PLAIN : EncodingPolicy.uniform(parsed);
        }
    }

    /** The tickerplants: {@code tp-addresses} when set, else {@code tp-host:tp-port}; a bad entry stops start-up naming it. */
    List<Address> tickerplants() {
        return tpAddresses == null || tpAddresses.isBlank() ? List.of(new Address(tpHost, tpPort))
            : TickerplantAddresses.parse("tick.rdb.tp-addresses", tpAddresses);
    }

    /** The journal root, or null when not set. */
    Path journalRootPath() {
        return journalRoot == null || journalRoot.isBlank() ? null : Path.of(journalRoot.trim());
    }
}
