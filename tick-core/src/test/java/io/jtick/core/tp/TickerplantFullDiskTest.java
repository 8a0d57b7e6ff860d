package io.jtick.core.tp;

import io.jtick.core.client.FeedPublisher;
import io.jtick.core.client.TickClient;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.Closer;
import io.jtick.core.testing.Collector;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.time.NanoClock;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The journal on a real file system that fills up: a 16 MiB tmpfs, 11 MiB of it taken by a ballast
 * file, under a numbered feed that sends more than the rest holds. Writes fail (with the free-space
 * guard off: a fault inside Chronicle's memory-mapped write; with it on: refused before that), the
 * feed is told {@code journal-failure} and keeps its updates; the ballast goes, and the tickerplant
 * carries on by itself: the subscriber ends with every row exactly once, in order. Needs root to
 * mount; skipped (with the reason) otherwise.
 */
@ExtendWith(LeakCheck.class)
class TickerplantFullDiskTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.builtIn(0);
    private static final TableSchema TRADE = SCHEMAS.get("trade");
    private static final int UPDATES = 2_000;
    private static final long[] GUARDS = {0, 1L << 20};

    @TempDir
    static Path dir;

    /** One small file system per case, mounted before any case runs (the JDK's process reaper thread is no leak of a case). */
    private static final List<Path> MOUNTS = new ArrayList<>();
    private static String cannotMount;

    private final Closer closer = new Closer();

    @BeforeAll
    static void mount() throws Exception {
        // a rerun of a failed case runs this again with a new directory: the first run's mounts are gone
        MOUNTS.clear();
        cannotMount = null;
        if (!System.getProperty("os.name").toLowerCase().contains("linux")) {
            cannotMount = "needs Linux tmpfs";
            return;
        }
        for (int k = 0; k < GUARDS.length; k++) {
            final Path fs = Files.createDirectories(dir.resolve("small-fs-" + k));
            if (run("mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", fs.toString()) != 0) {
                cannotMount = "cannot mount a tmpfs here (needs root / CAP_SYS_ADMIN); the injected faults of TickerplantTest cover "
                    + "the logic";
                return;
            }
            MOUNTS.add(fs);
        }
    }

    @AfterAll
    static void unmount() throws Exception {
        for (final Path fs : MOUNTS) {
            run("umount", fs.toString());
        }
    }

    @AfterEach
    void closeAll() throws Exception {
        closer.close();
    }

    private static int run(final String... command) throws IOException, InterruptedException {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        if (p.exitValue() != 0) {
            System.err.println(String.join(" ", command) + ": " + out);
        }
        return p.exitValue();
    }

    @ParameterizedTest(name = "free-space guard {0} of 2 (0: off, 1: 1 MiB)")
    @ValueSource(ints = {0, 1})
    void shouldRefuseWhatTheFullJournalCannotTakeAndCarryOnWhenItHasRoom(final int k) throws Exception {
        Assumptions.assumeTrue(cannotMount == null, cannotMount);
        final Path fs = MOUNTS.get(k);
        final long minFree = GUARDS[k];
        final Path ballast = fs.resolve("ballast");
        try (RandomAccessFile f = new RandomAccessFile(ballast.toFile(), "rw")) {
            final byte[] mb = new byte[1 << 20];
            for (int i = 0; i < 11; i++) {
                f.write(mb);
            }
        }
        final TickMetrics metrics = new TickMetrics();
        final TickerplantSettings settings = TickerplantSettings.defaults(fs.resolve("journal")).withPort(0).withJournalMinFree(minFree);
        final TickerplantServer tp = closer.track(new TickerplantServer(settings, SCHEMAS, NanoClock.SYSTEM, metrics).start());
        final Collector c = new Collector();
        final TickClient client = closer.track(new TickClient(TickClient.Settings.of("127.0.0.1", tp.port(), "sub"), c,
            c::fromSequence, null, NanoClock.SYSTEM));
        client.start();
        await("subscribed", WAIT, client::isSubscribed);
        final FeedPublisher feed = closer.track(new FeedPublisher(FeedPublisher.Settings.of("127.0.0.1", tp.port(), "full-disk-feed")
            .withReconnect(Duration.ofMillis(20), Duration.ofMillis(500)), null).connect(5_000));
        final String[] syms = new String[100];
        java.util.Arrays.fill(syms, "X");
        for (int id = 1; id <= UPDATES; id++) {
            final ByteBuf b = feed.alloc().directBuffer(4096);
            TestSupport.trade(b, TRADE, id, 1_000_000L * id, syms);
            assertThat(feed.send(b)).as("buffered while the journal is full").isTrue();
        }
        await("the journal refused an update", WAIT, () -> metrics.counter("tick.tp.errors|code=journal-failure").get() > 0);
        await("the feed was told", WAIT, () -> feed.lastError() != null && feed.lastError().startsWith("journal-failure"));
        assertThat(feed.failure()).as("a journal failure does not stop the feed").isNull();
        final long journalled = tp.status().journalSequence();
        assertThat(journalled).as("the volume filled before the end").isLessThan(UPDATES);
        assertThat(tp.status().sequence()).as("nothing unjournalled published").isEqualTo(journalled);
        assertThat(feed.stats().bufferedUpdates()).as("the feed keeps what was not acknowledged").isPositive();

        Files.delete(ballast);
        await("every update journalled", WAIT, () -> feed.stats().acked() == UPDATES);
        await("the subscriber has every row", WAIT, () -> c.rows.size() == UPDATES * 100);
        assertThat(c.duplicates).isZero();
        final List<Long> seq = new ArrayList<>(c.sequences);
        for (int n = 0; n < seq.size(); n++) {
            assertThat(seq.get(n)).as("no sequence issued twice, none skipped").isEqualTo(n + 1L);
        }
        final List<String> expected = new ArrayList<>();
        for (int id = 1; id <= UPDATES; id++) {
            for (int r = 0; r < 100; r++) {
                expected.add("trade/X/" + (id * 1000L + r));
            }
        }
        assertThat(new ArrayList<>(c.rows)).as("every row once, in order").isEqualTo(expected);
        assertThat(tp.status().journalSequence()).isEqualTo(UPDATES);
    }
}
