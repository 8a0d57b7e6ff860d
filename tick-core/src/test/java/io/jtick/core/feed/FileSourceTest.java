package io.jtick.core.feed;

import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateEncoder;
import io.jtick.core.wire.UpdateValidator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

@ExtendWith(LeakCheck.class)
class FileSourceTest {
    private static final long NOW = 42L;

    static Path data(final String folder) {
        final String root = System.getProperty("jtick.shared.data");
        assumeTrue(root != null, "system property jtick.shared.data is not set: skipping the real-data replay test");
        final Path dir = Path.of(root, folder);
        assumeTrue(Files.isDirectory(dir), "shared data folder absent, skipping the real-data replay test [dir=" + dir + "]");
        return dir;
    }

    /** Reads the whole source in updates of {@code r} rows, validating every frame; returns what it saw. */
    static Drained drain(final TickSource source, final int r) {
        final UpdateEncoder enc = new UpdateEncoder();
        final UpdateValidator validator = new UpdateValidator(SchemaRegistry.builtIn(0));
        final UpdateDecoder dec = new UpdateDecoder();
        final ByteBuf buf = Unpooled.buffer(1 << 16);
        final Drained d = new Drained();
        try (source) {
            while (true) {
                buf.clear();
                final int n = source.encodeUpdate(enc, buf, r, Long.MAX_VALUE, NOW);
                if (n == 0) {
                    break;
                }
                assertThat(validator.validate(buf, 0, buf.readableBytes())).as(validator.reason()).isEqualTo(ErrorCode.NONE);
                dec.wrap(buf, 0);
                assertThat(dec.rowCount()).isEqualTo(n).isLessThanOrEqualTo(r);
                assertThat(dec.feedTime()).isEqualTo(NOW);
                if (d.rows == 0) {
                    d.first = new long[source.schema().columnCount()];
                    for (int c = 0; c < d.first.length; c++) {
                        d.first[c] = switch (source.schema().type(c).width()) {
                            case 8 -> dec.int64(c, 0);
                            case 4 -> dec.int32(c, 0);
                            default -> dec.int8(c, 0);
                        };
                    }
                    d.firstSym = dec.symString(dec.symCode(0));
                }
                for (int i = 0; i < n; i++) {
                    final long t = dec.timestamp(i);
                    if (t < d.lastTime) {
                        d.backwards++;
                    }
                    d.lastTime = t;
                }
                d.rows += n;
                d.updates++;
            }
            assertThat(source.nextEventTime()).isEqualTo(TickSource.END);
        } finally {
            buf.release();
        }
        return d;
    }

    static final class Drained {
        long rows;
        long updates;
        long[] first;
        String firstSym;
        long lastTime = Long.MIN_VALUE;
        long backwards;

        double f(final int c) {
            return Double.longBitsToDouble(first[c]);
        }
    }

    static long nanos(final String iso) {
        final Instant i = Instant.parse(iso);
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    @Test
    void shouldReplayTaqTrades() throws Exception {
        final Drained d = drain(TaqSource.trades(data("highfrequency-taq-sample-2018-01").resolve("trades.csv.gz"), 0), 100);
        assertThat(d.rows).isEqualTo(77_263);
        assertThat(d.updates).isEqualTo(773);
        assertThat(d.first[0]).isEqualTo(nanos("2018-01-02T10:01:21.479Z"));
        assertThat(d.firstSym).isEqualTo("XXX");
        assertThat(d.f(2)).isEqualTo(157.8);
        assertThat(d.first[3]).isEqualTo(2);
        assertThat((char) d.first[4]).isEqualTo('F');
    }

    @Test
    void shouldReplayTaqQuotes() throws Exception {
        final Drained d = drain(TaqSource.quotes(data("highfrequency-taq-sample-2018-01").resolve("quotes.csv.gz"), 0), 1000);
        assertThat(d.rows).isEqualTo(131_401);
        assertThat(d.first[0]).isEqualTo(nanos("2018-01-02T09:04:13.125Z"));
        assertThat(d.firstSym).isEqualTo("XXX");
        assertThat(d.f(2)).isEqualTo(156.57);
        assertThat(d.f(3)).isEqualTo(158.85);
        assertThat(d.first[4]).isEqualTo(1);
        assertThat(d.first[5]).isEqualTo(1);
    }

    @Test
    void shouldReplayAlgoSeekTrades() throws Exception {
        final Path dir = data("lean-algoseek-us-equity-ticks-2013-10");
        final Drained d = drain(AlgoSeekSource.open(dir, "trade", List.of("IBM"), List.of("20131007"), 0), 10);
        assertThat(d.rows).isEqualTo(24_293);
        assertThat(d.first[0]).isEqualTo(nanos("2013-10-07T08:00:30.270Z"));
        assertThat(d.firstSym).isEqualTo("IBM");
        assertThat(d.f(2)).isEqualTo(181.52);
        assertThat(d.first[3]).isEqualTo(283);
        assertThat((char) d.first[4]).isEqualTo('F');
        assertThat(d.backwards).isZero();
    }

    @Test
    void shouldMergeAlgoSeekSymbolsInTimeOrder() throws Exception {
        final Path dir = data("lean-algoseek-us-equity-ticks-2013-10");
        final Drained d = drain(AlgoSeekSource.open(dir, "trade", List.of("ibm", "aig"), List.of("20131007", "20131008"), 0), 500);
        assertThat(d.rows).isEqualTo(25_351 + 24_293 + 43_342 + 33_381);
        assertThat(d.backwards).isZero();
        assertThat(d.firstSym).isEqualTo("AIG");
    }

    @Test
    void shouldPairAlgoSeekQuotesAndSkipTheLoneAsk() throws Exception {
        final Path dir = data("lean-algoseek-us-equity-ticks-2013-10");
        final AlgoSeekSource source = AlgoSeekSource.open(dir, "quote", List.of("ibm"), List.of("20131007"), 0);
        final Drained d = drain(source, 100);
        assertThat(d.rows).isEqualTo((109_067 - 1) / 2);
        assertThat(source.skippedTicks()).isEqualTo(1);
        assertThat(d.first[0]).isEqualTo(nanos("2013-10-07T08:00:00.241Z"));
        assertThat(d.f(2)).isEqualTo(180.01);
        assertThat(d.f(3)).isEqualTo(181.80);
        assertThat(d.first[4]).isEqualTo(300);
        assertThat(d.first[5]).isEqualTo(3000);
    }

    @Test
    void shouldReplayLobsterExecutionsAsTrades() throws Exception {
        final Drained d = drain(LobsterSource.open(data("lobster-amzn-2012-06-21-level1"), "trade", 0), 100);
        assertThat(d.rows).isEqualTo(8_974 + 2_445);
        assertThat(d.first[0]).isEqualTo(nanos("2012-06-21T13:30:00.01746Z"));
        assertThat(d.firstSym).isEqualTo("AMZN");
        assertThat(d.f(2)).isEqualTo(223.82);
        assertThat(d.first[3]).isEqualTo(1);
        assertThat((char) d.first[4]).isEqualTo('5');
        assertThat(d.backwards).isZero();
    }

    @Test
    void shouldReplayLobsterBookAsQuotes() throws Exception {
        final Drained d = drain(LobsterSource.open(data("lobster-amzn-2012-06-21-level1"), "quote", 0), 100);
        // the README says 57,514 but its per-type counts (27,845 + 16 + 18,235 + 8,974 + 2,445) and the file have 57,515
        assertThat(d.rows).isEqualTo(57_515);
        assertThat(d.first[0]).isEqualTo(nanos("2012-06-21T13:30:00.01746Z"));
        assertThat(d.f(2)).isEqualTo(223.18);
        assertThat(d.f(3)).isEqualTo(223.95);
        assertThat(d.first[4]).isEqualTo(100);
        assertThat(d.first[5]).isEqualTo(100);
    }

    @Test
    void shouldOnlyEncodeRowsThatAreDue() throws Exception {
        final TaqSource source = TaqSource.trades(data("highfrequency-taq-sample-2018-01").resolve("trades.csv.gz"), 0);
        final ByteBuf buf = Unpooled.buffer();
        try (source) {
            final long first = source.nextEventTime();
            assertThat(first).isEqualTo(nanos("2018-01-02T10:01:21.479Z"));
            assertThat(source.encodeUpdate(new UpdateEncoder(), buf, 10, first, NOW)).isZero();
            assertThat(buf.writerIndex()).isZero();
            assertThat(source.encodeUpdate(new UpdateEncoder(), buf, 10, first + 1, NOW)).isEqualTo(1);
            assertThat(source.nextEventTime()).isEqualTo(nanos("2018-01-02T10:23:50.189Z"));
        } finally {
            buf.release();
        }
    }

    @Test
    void shouldNameTheMissingFile() {
        assertThatThrownBy(() -> TaqSource.trades(Path.of("no/such/trades.csv.gz"), 0)).hasMessageContaining("[file=no/such");
        assertThatThrownBy(() -> AlgoSeekSource.open(Path.of("no/such"), "trade", List.of(), List.of(), 0))
            .hasMessageContaining("AlgoSeek folder not found");
        assertThatThrownBy(() -> LobsterSource.open(Path.of("no/such"), "book", 0)).hasMessageContaining("[table=book]");
    }
}
