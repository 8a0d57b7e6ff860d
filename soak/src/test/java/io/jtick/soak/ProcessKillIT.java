package io.jtick.soak;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.jtick.soak.ProcessStack.await;
import static io.jtick.soak.ProcessStack.number;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The four service jars as separate processes on loopback (built by {@code ./jtick build} if missing
 * or stale), a numbered feed of 100,000 rows/s from feed-sim, and {@code kill -9}: the tickerplant
 * twice, then the RDB, then the HDB while it receives the end of day from the RDB; each restarted.
 * At the end every row the feed generated is in the RDB (the new day) or in the HDB (the day that
 * ended) exactly once and in order, and at no time was a half-received day visible in the HDB.
 * The services' logs are left under {@code soak/target/ProcessKillIT-<time>/log}.
 */
@Tag("slow")
class ProcessKillIT {
    private static final Path REPO = Path.of("").toAbsolutePath().getParent();
    private static final Duration WAIT = Duration.ofMinutes(5);

    /** Under target/: the services' logs stay there when the test fails (the data goes either way). */
    private final Path dir = REPO.resolve("soak/target/ProcessKillIT-" + System.currentTimeMillis());

    @AfterEach
    void cleanUp() throws Exception {
        for (final String data : List.of("journal", "hdb", "rdb-eod", "runs")) {
            final Path p = dir.resolve(data);
            if (Files.exists(p)) {
                try (Stream<Path> walk = Files.walk(p)) {
                    walk.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                }
            }
        }
    }

    @Test
    void shouldKeepEveryGeneratedRowExactlyOnceWhenTheTickerplantTheRdbAndTheHdbAreKilled() throws Exception {
        ProcessStack.build(REPO, dir.resolve("log/build.log"));
        try (ProcessStack s = ProcessStack.start(REPO, dir, ProcessStack.Options.defaults())) {
            s.post(s.feed(), "/api/feed/start", "{\"table\":\"trade\",\"r\":100,\"u\":1,\"t\":1,\"syms\":100,\"rowIds\":true}");
            awaitRdbRowsAbove(s, 500_000);

            // the tickerplant, twice, under the feed
            for (int k = 1; k <= 2; k++) {
                s.killAndRestart(s.tp());
                final int kills = k;
                await("the feed reconnected after kill " + k, WAIT, () -> number(feed(s), "reconnects") >= kills);
                awaitRdbRowsAbove(s, Soak.rdbRows(s) + 300_000);
            }
            assertThat(number(feed(s), "resentUpdates")).as("the feed resent what the killed TP had not journalled").isPositive();

            // the RDB: it comes back with nothing and catches up from the journal
            s.killAndRestart(s.rdb());
            awaitRdbRowsAbove(s, Soak.rdbRows(s) + 300_000);

            // end of day; the HDB is killed while it receives the day from the RDB
            final String day = String.valueOf(s.getObject(s.tp(), "/api/status").get("date"));
            s.post(s.tp(), "/api/eod", "");
            final Path hdbRoot = dir.resolve("hdb");
            final Path halfReceived = awaitReceiving(hdbRoot);
            s.hdb().kill9();
            assertThat(halfReceived).as("killed with a half-received day on disk").isDirectory();
            s.hdb().start().awaitHealthy(WAIT);
            final long writtenRows = number(((Map<?, ?>) s.getObject(s.rdb(), "/api/status").get("writeDown")).get("lastWrite"), "rows");
            assertThat(writtenRows).as("the RDB wrote the day before it sent it").isPositive();
            final long visible = dayRows(s, day);
            assertThat(visible).as("just after the restart the HDB shows the day whole or not at all").isIn(0L, writtenRows);
            assertThat(halfReceived).as("the half-received day is gone").doesNotExist();
            await("the RDB delivered the day again", WAIT,
                () -> ((List<?>) ((Map<?, ?>) s.getObject(s.rdb(), "/api/status").get("writeDown")).get("undelivered")).isEmpty());
            assertThat(dayRows(s, day)).isEqualTo(writtenRows);

            // the new day runs on a little, then the feed stops: every row, once
            awaitRdbRowsAbove(s, 200_000);
            final Map<String, Object> stopped = Soak.stopAndSettle(s);
            final long generated = number(stopped, "rowsSent");
            final RowCheck.Result check = RowCheck.check(s, generated);
            System.out.printf("ProcessKillIT: %s; feed %,.0f rows/s, reconnects %d, resent %,d, max behind schedule %d ms%n", check.text(),
                ((Number) stopped.get("rowsPerSecond")).doubleValue(), number(stopped, "reconnects"), number(stopped, "resentUpdates"),
                number(stopped, "maxBehindScheduleMillis"));
            assertThat(check.examples()).isEmpty();
            assertThat(check.ok()).as(check.text()).isTrue();
            assertThat(check.hdbRows()).isEqualTo(writtenRows);
            assertThat(number(stopped, "reconnects")).isEqualTo(2);
        }
    }

    private static Map<String, Object> feed(final ProcessStack s) throws Exception {
        return s.getObject(s.feed(), "/api/feed");
    }

    private static void awaitRdbRowsAbove(final ProcessStack s, final long rows) throws InterruptedException {
        await("the RDB above " + rows + " rows", WAIT, () -> Soak.rdbRows(s) > rows);
    }

    /** Waits (polling every millisecond) for a {@code .tmp-} directory under the HDB root: a day being received. */
    private static Path awaitReceiving(final Path hdbRoot) throws Exception {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.isDirectory(hdbRoot)) {
                try (Stream<Path> s = Files.list(hdbRoot)) {
                    final Path tmp = s.filter(p -> p.getFileName().toString().startsWith(".tmp-")).findFirst().orElse(null);
                    if (tmp != null) {
                        return tmp;
                    }
                }
            }
            Thread.sleep(1);
        }
        throw new AssertionError("the HDB never started receiving the day within " + WAIT);
    }

    /** Trade rows of {@code day} the HDB lists (0 when it has no such day). */
    private static long dayRows(final ProcessStack s, final String day) throws Exception {
        for (final Object p : (List<?>) s.get(s.hdb(), "/api/partitions")) {
            final Map<?, ?> m = (Map<?, ?>) p;
            if (day.equals(String.valueOf(m.get("date")))) {
                long rows = 0;
                for (final Object t : (List<?>) m.get("tables")) {
                    if ("trade".equals(((Map<?, ?>) t).get("table"))) {
                        rows += number(t, "rows");
                    }
                }
                return rows;
            }
        }
        return 0;
    }
}
