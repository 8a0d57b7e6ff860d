package io.jtick.core.it;

import io.jtick.core.client.FeedPublisher;
import io.jtick.core.client.TickClient;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.rdb.RealtimeDatabase;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.TableSegment;
import io.jtick.core.testing.Cells;
import io.jtick.core.testing.Closer;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantSettings;
import io.jtick.core.time.NanoClock;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tick path end to end on real sockets and real journal files: a feed, a tickerplant and two
 * RDBs (one filtered by sym). The TP is killed and restarted mid-stream, and one RDB is thrown away
 * and started from nothing while the feed runs; afterwards every row the TP accepted is in each
 * RDB exactly once.
 */
@ExtendWith(LeakCheck.class)
class TickPathTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.builtIn(0);
    private static final TableSchema TRADE = SCHEMAS.get("trade");
    private static final String[] SYMS = {"S0", "S1", "S2", "S3", "S4"};
    private static final Set<String> FILTER = Set.of("S1", "S3");

    @TempDir
    Path dir;

    private final Closer closer = new Closer();

    @AfterEach
    void closeAll() throws Exception {
        closer.close();
    }

    private static final class Rdb implements AutoCloseable {
        final RealtimeDatabase db = new RealtimeDatabase(new TickMetrics());
        final TickClient client;

        Rdb(final int port, final String name, final List<String> syms) {
            client = new TickClient(TickClient.Settings.of("127.0.0.1", port, name).withSyms(syms), db, db::lastSequence, null,
                NanoClock.SYSTEM);
            client.start();
        }

        long rows() {
            return db.rowCount("trade");
        }

        @Override
        public void close() {
            client.close();
        }
    }

    private static void sendRange(final FeedPublisher feed, final int from, final int to) {
        for (int id = from; id <= to; id++) {
            final ByteBuf b = feed.alloc().directBuffer(256);
            TestSupport.trade(b, TRADE, id, 1_000_000L * id, SYMS[id % 5], SYMS[(id + 1) % 5], SYMS[(id + 3) % 5]);
            assertThat(feed.awaitWritable(10_000_000_000L)).as("feed writable").isTrue();
            assertThat(feed.send(b)).isTrue();
        }
    }

    /** "sym/size" for every row; size encodes (update id, row) so each row sent is unique. */
    private static Map<String, Integer> rowsOf(final RealtimeDatabase db) {
        final TableSegment t = db.table("trade");
        final Map<String, Integer> counts = new HashMap<>();
        final int size = t.schema().indexOf("size");
        for (int r = 0; r < t.rowCount(); r++) {
            counts.merge(Cells.sym(t, r) + "/" + (long) Cells.number(t, size, r), 1, Integer::sum);
        }
        return counts;
    }

    private static Map<String, Integer> expected(final int updates, final Set<String> filter) {
        final Map<String, Integer> m = new HashMap<>();
        for (int id = 1; id <= updates; id++) {
            final String[] syms = {SYMS[id % 5], SYMS[(id + 1) % 5], SYMS[(id + 3) % 5]};
            for (int r = 0; r < 3; r++) {
                if (filter == null || filter.contains(syms[r])) {
                    m.put(syms[r] + "/" + (id * 1000L + r), 1);
                }
            }
        }
        return m;
    }

    @Test
    void shouldKeepEveryRowExactlyOnceAcrossTickerplantAndRdbRestarts() throws Exception {
        final TickerplantSettings settings = TickerplantSettings.defaults(dir.resolve("journal")).withPort(0);
        TickerplantServer tp = new TickerplantServer(settings, SCHEMAS, NanoClock.SYSTEM, new TickMetrics()).start();
        final int port = tp.port();
        final Rdb all = new Rdb(port, "rdb-all", List.of());
        closer.track(all);
        Rdb filtered = new Rdb(port, "rdb-filtered", List.copyOf(FILTER));
        await("RDBs subscribed", WAIT, () -> all.client.isSubscribed());

        // phase 1: the feed runs; the filtered RDB is dropped and rebuilt from nothing in the middle
        FeedPublisher feed = new FeedPublisher("127.0.0.1", port, "feed", null).connect(5000);
        sendRange(feed, 1, 2000);
        filtered.close();
        final Rdb rebuilt = new Rdb(port, "rdb-filtered-2", List.copyOf(FILTER));
        closer.track(rebuilt);
        filtered = rebuilt;
        sendRange(feed, 2001, 4000);
        final TickerplantServer tpPhase1 = tp;
        await("TP journalled phase 1", WAIT, () -> tpPhase1.status().journalSequence() == 4000);

        // phase 2: kill the TP (no end of day, no goodbye), restart it on the same journal and port
        feed.close();
        tp.close();
        tp = new TickerplantServer(settings.withPort(port), SCHEMAS, NanoClock.SYSTEM, new TickMetrics()).start();
        closer.track(tp);
        assertThat(tp.status().journalSequence()).isEqualTo(4000);
        final Rdb f = filtered;
        await("RDBs back", WAIT, () -> all.client.isSubscribed() && f.client.isSubscribed());
        feed = new FeedPublisher("127.0.0.1", port, "feed-2", null).connect(5000);
        closer.track(feed);
        sendRange(feed, 4001, 6000);

        final Map<String, Integer> expectAll = expected(6000, null);
        final Map<String, Integer> expectFiltered = expected(6000, FILTER);
        await("unfiltered RDB complete", WAIT, () -> all.rows() == expectAll.size());
        await("filtered RDB complete", WAIT, () -> f.rows() == expectFiltered.size());
        assertThat(rowsOf(all.db)).isEqualTo(expectAll);
        assertThat(rowsOf(f.db)).isEqualTo(expectFiltered);
        assertThat(all.db.lastSequence()).isEqualTo(6000);
        assertThat(f.db.lastSequence()).isEqualTo(6000);
        assertThat(all.db.status().duplicates()).isZero();
    }
}
