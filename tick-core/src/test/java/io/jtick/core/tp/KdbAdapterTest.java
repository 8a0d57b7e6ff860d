package io.jtick.core.tp;

import io.jtick.core.auth.AccessSettings;
import io.jtick.core.kdb.KdbAccess;
import io.jtick.core.kdb.KdbDescriptor;
import io.jtick.core.kdb.KdbSettings;
import io.jtick.core.kdb.KdbType;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.testing.KdbObjects;
import io.jtick.core.testing.KdbObjects.Obj;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.UpdateDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.StringReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import static io.jtick.core.testing.KdbObjects.call;
import static io.jtick.core.testing.KdbObjects.callByString;
import static io.jtick.core.testing.KdbObjects.chars;
import static io.jtick.core.testing.KdbObjects.floats;
import static io.jtick.core.testing.KdbObjects.ints;
import static io.jtick.core.testing.KdbObjects.list;
import static io.jtick.core.testing.KdbObjects.longs;
import static io.jtick.core.testing.KdbObjects.show;
import static io.jtick.core.testing.KdbObjects.sym;
import static io.jtick.core.testing.KdbObjects.syms;
import static io.jtick.core.testing.KdbObjects.timespans;
import static org.assertj.core.api.Assertions.assertThat;

/** The kdb+ port's connection handler on embedded channels: logins, .u.upd, .u.sub, r.q, fan-out, end of day, bad input. */
@ExtendWith(LeakCheck.class)
class KdbAdapterTest {
    private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
    /** kdb-tick's sym.q. */
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.fromYaml(new StringReader("""
        tables:
          trade: [time:timespan, sym:symbol, price:float, size:int]
          quote: [time:timespan, sym:symbol, bid:float, ask:float, bsize:int, asize:int]
        """));
    private static final long NOW = 1_790_000_000_000_000_000L;
    private static final long HOUR = 3_600_000_000_000L;

    @TempDir
    Path dir;

    private final TickMetrics metrics = new TickMetrics();
    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private Tickerplant tp;
    private KdbAccess access;

    @AfterEach
    void closeAll() {
        for (final EmbeddedChannel ch : channels) {
            ch.finishAndReleaseAll();
        }
        if (tp != null) {
            tp.close();
        }
    }

    private void start(final Function<TickerplantSettings, TickerplantSettings> change, final KdbSettings kdb) throws IOException {
        final TickerplantSettings s = change.apply(TickerplantSettings.defaults(dir.resolve("journal")).withMaxFrameLength(64 * 1024));
        tp = new Tickerplant(s, SCHEMAS, () -> NOW, ALLOC, metrics);
        access = KdbAccess.of(kdb, InetAddress.getLoopbackAddress());
    }

    private void start() throws IOException {
        start(s -> s, KdbSettings.onPort(0));
    }

    /** A kdb+ connection after its handshake ({@code user:password}, capability 6); its one-byte answer is checked. */
    private EmbeddedChannel connect(final String credentials) {
        final EmbeddedChannel ch = new EmbeddedChannel();
        KdbAdapter.install(ch.pipeline(), tp, access, null);
        channels.add(ch);
        ch.writeInbound(ALLOC.buffer().writeBytes((credentials + "\u0006\u0000").getBytes(StandardCharsets.ISO_8859_1)));
        final ByteBuf answer = ch.readOutbound();
        if (answer != null) {
            assertThat(answer.readableBytes()).isEqualTo(1);
            assertThat(answer.getByte(0)).as("the common capability").isEqualTo((byte) KdbDescriptor.CAPABILITY);
            answer.release();
        }
        return ch;
    }

    private EmbeddedChannel connect() {
        return connect("feed:");
    }

    /** Sync calls go big-endian, as javakdb sends them; async ones little-endian, as q on x86 does. */
    private static void send(final EmbeddedChannel ch, final boolean sync, final Obj body) {
        ch.writeInbound(KdbObjects.message(ALLOC, !sync, sync ? KdbDescriptor.SYNC : KdbDescriptor.ASYNC, body));
    }

    /** Every message written to {@code ch} since the last call, read and released. */
    private static List<KdbObjects.Message> received(final EmbeddedChannel ch) {
        final List<KdbObjects.Message> out = new ArrayList<>();
        for (Object o = ch.readOutbound(); o != null; o = ch.readOutbound()) {
            final ByteBuf b = (ByteBuf) o;
            try {
                out.add(KdbObjects.read(b));
            } finally {
                b.release();
            }
        }
        return out;
    }

    private static List<String> shown(final EmbeddedChannel ch) {
        return received(ch).stream().map(m -> m.type() + " " + show(m.value())).toList();
    }

    private long errors(final String tag) {
        return metrics.counter("tick.tp.errors|code=" + tag).get();
    }

    private long dayStart() {
        return LocalDate.ofEpochDay(NOW / 86_400_000_000_000L).atStartOfDay(ZoneOffset.UTC).toEpochSecond() * 1_000_000_000L;
    }

    private static Obj trades(final long... hours) {
        final long[] t = new long[hours.length];
        final String[] s = new String[hours.length];
        final double[] p = new double[hours.length];
        final int[] z = new int[hours.length];
        for (int k = 0; k < hours.length; k++) {
            t[k] = hours[k] * HOUR;
            s[k] = k % 2 == 0 ? "IBM" : "MSFT";
            p[k] = 100 + k + 0.25;
            z[k] = (int) (10 * hours[k]);
        }
        return list(timespans(t), syms(s), floats(p), ints(z));
    }

    @Test
    void shouldAnswerALoginWithTheCommonCapabilityOrCloseWithoutAnAnswer() throws IOException {
        final Path users = Files.writeString(dir.resolve("users"), "alice:pw\n");
        start(s -> s, new KdbSettings(0, users, AccessSettings.DEFAULT));
        final EmbeddedChannel alice = connect("alice:pw");
        assertThat(alice.isActive()).isTrue();
        final EmbeddedChannel mallory = new EmbeddedChannel();
        KdbAdapter.install(mallory.pipeline(), tp, access, null);
        channels.add(mallory);
        mallory.writeInbound(ALLOC.buffer().writeBytes("mallory:pw\u0003\u0000".getBytes(StandardCharsets.US_ASCII)));
        assertThat((Object) mallory.readOutbound()).as("kdb+ refuses a login by closing").isNull();
        assertThat(mallory.isActive()).isFalse();
        assertThat(metrics.counter("tick.tp.kdb.logins|result=allowed").get()).isEqualTo(1);
        assertThat(metrics.counter("tick.tp.kdb.logins|result=unknown-user").get()).isEqualTo(1);
    }

    @Test
    void shouldJournalAsyncAndSyncUpdatesAsNativeFramesAndAnswerEachSyncOnce() throws IOException {
        start();
        final EmbeddedChannel nativeSub = new EmbeddedChannel();
        TickerplantAdapter.install(nativeSub.pipeline(), tp, TickerplantAdapterTest.OPEN);
        channels.add(nativeSub);
        nativeSub.writeInbound(ControlFrames.hello(ALLOC, ControlFrames.ROLE_SUBSCRIBER, "rdb"),
            ControlFrames.subscribe(ALLOC, -1, List.of(), List.of()));
        Frames.drain(nativeSub);

        final EmbeddedChannel feed = connect();
        send(feed, false, call(".u.upd", sym("trade"), trades(9, 10)));
        send(feed, true, callByString(".u.upd", sym("trade"), list(syms("KX"), floats(7.5), ints(3))));
        assertThat(shown(feed)).as("one response to the sync call, none to the async one").containsExactly("2 ::");
        assertThat(tp.journalSequence()).isEqualTo(2);
        assertThat(metrics.counter("tick.tp.kdb.rows").get()).isEqualTo(3);

        final List<String> rows = new ArrayList<>();
        final UpdateDecoder d = new UpdateDecoder();
        for (Object o = nativeSub.readOutbound(); o != null; o = nativeSub.readOutbound()) {
            final ByteBuf b = (ByteBuf) o;
            d.wrap(b, b.readerIndex());
            for (int r = 0; r < d.rowCount(); r++) {
                rows.add(d.sequence() + " " + (d.timestamp(r) - dayStart()) / HOUR + "h " + d.symString(d.symCode(r)) + " "
                    + d.float64(2, r) + " " + d.int32(3, r));
            }
            b.release();
        }
        assertThat(rows).as("a native subscriber sees the kdb+ feed's updates as native frames")
            .containsExactly("1 9h IBM 100.25 90", "1 10h MSFT 101.25 100", "2 " + (NOW - dayStart()) / HOUR + "h KX 7.5 3");
    }

    @Test
    void shouldPushUpdToKdbSubscribersSerializedOncePerDistinctSymList() throws IOException {
        start();
        final EmbeddedChannel all = connect("rdb1:");
        final EmbeddedChannel ibm1 = connect("ibm1:");
        final EmbeddedChannel ibm2 = connect("ibm2:");
        send(all, true, call(".u.sub", sym("trade"), sym("")));
        send(ibm1, true, call(".u.sub", sym("trade"), syms("IBM")));
        send(ibm2, false, callByString(".u.sub", sym("trade"), list(sym("IBM"))));
        final String schema = "(`trade;[time:timespan[] sym:[] price:[] size:[]])";
        assertThat(shown(all)).containsExactly("2 " + schema);
        assertThat(shown(ibm1)).containsExactly("2 " + schema);
        assertThat(shown(ibm2)).as("an async .u.sub subscribes without an answer").isEmpty();

        final EmbeddedChannel feed = connect();
        send(feed, false, call(".u.upd", sym("trade"), trades(9, 10, 11)));
        final long t9 = 9 * HOUR;
        final long t10 = 10 * HOUR;
        final long t11 = 11 * HOUR;
        assertThat(shown(all)).containsExactly("0 (`upd;`trade;[time:timespan[" + t9 + ", " + t10 + ", " + t11
            + "] sym:[IBM, MSFT, IBM] price:[100.25, 101.25, 102.25] size:[90, 100, 110]])");
        final String ibmOnly = "0 (`upd;`trade;[time:timespan[" + t9 + ", " + t11
            + "] sym:[IBM, IBM] price:[100.25, 102.25] size:[90, 110]])";
        assertThat(shown(ibm1)).containsExactly(ibmOnly);
        assertThat(shown(ibm2)).containsExactly(ibmOnly);
        assertThat(metrics.counter("tick.tp.kdb.published").get()).as("one message for all syms, one for the IBM list").isEqualTo(2);

        send(feed, false, call(".u.upd", sym("trade"), list(syms("MSFT"), floats(1), ints(1))));
        assertThat(shown(ibm1)).as("nothing of MSFT for the IBM list").isEmpty();
        assertThat(shown(all)).hasSize(1);
        assertThat(metrics.counter("tick.tp.kdb.published").get()).isEqualTo(3);

        tp.heartbeat();
        assertThat(shown(all)).as("kdb+ has no heartbeat message").isEmpty();
    }

    @Test
    void shouldSerializePerSubscriberOnlyWithBroadcastOff() throws IOException {
        start(s -> s.withBroadcast(false), KdbSettings.onPort(0));
        final EmbeddedChannel a = connect("a:");
        final EmbeddedChannel b = connect("b:");
        send(a, false, call(".u.sub", sym(""), sym("")));
        send(b, false, call(".u.sub", sym(""), sym("")));
        send(connect(), false, call(".u.upd", sym("trade"), trades(1)));
        final List<String> toA = shown(a);
        assertThat(toA).hasSize(1).isEqualTo(shown(b));
        assertThat(metrics.counter("tick.tp.kdb.published").get()).isEqualTo(2);
    }

    @Test
    void shouldAnswerWhatRqSendsAndTellEachConnectionTheEndOfDayOnce() throws IOException {
        start();
        final EmbeddedChannel rdb = connect("rdb:");
        send(rdb, true, chars(KdbAdapter.REPLAY_SUBSCRIBE));
        final String trade = "(`trade;[time:timespan[] sym:[] price:[] size:[]])";
        final String quote = "(`quote;[time:timespan[] sym:[] bid:[] ask:[] bsize:[] asize:[]])";
        assertThat(shown(rdb)).as("(.u.sub[`;`]; (.u.i; .u.L)) with a null log count: nothing to replay")
            .containsExactly("2 ((" + trade + ";" + quote + ");(" + Long.MIN_VALUE + ";`))");

        final EmbeddedChannel twice = connect("twice:");
        send(twice, true, call(".u.sub", sym("trade"), sym("")));
        send(twice, true, call(".u.sub", sym("quote"), sym("")));
        assertThat(shown(twice)).containsExactly("2 " + trade, "2 " + quote);
        assertThat(tp.subscriberCount()).isEqualTo(3);
        send(twice, true, call(".u.sub", sym("trade"), syms("IBM")));
        shown(twice);
        assertThat(tp.subscriberCount()).as("a second .u.sub of a table replaces the first, as in u.q").isEqualTo(3);

        final LocalDate day = tp.date();
        tp.onEndOfDay();
        final String end = "0 (`.u.end;date[" + (day.toEpochDay() - KdbDescriptor.DAYS_1970_2000) + "])";
        assertThat(shown(rdb)).containsExactly(end);
        assertThat(shown(twice)).as("once per connection").containsExactly(end);
    }

    @Test
    void shouldAnswerBadSyncCallsWithAnErrorAndKeepTheConnection() throws IOException {
        start();
        final EmbeddedChannel feed = connect();
        send(feed, true, call(".u.upd", sym("trade"), list(syms("A"), longs(1), ints(1))));
        send(feed, true, call(".u.upd", sym("nope"), list(syms("A"), floats(1), ints(1))));
        send(feed, true, call(".u.foo", sym("x")));
        send(feed, true, chars("select from trade"));
        send(feed, true, call(".u.sub", sym("nope"), sym("")));
        send(feed, true, call(".u.sub", sym("trade"), KdbObjects.syms()));
        send(feed, true, list(floats(1)));
        send(feed, true, call(".u.upd", sym("trade"), list(syms("A"), floats(2), ints(2))));
        assertThat(shown(feed)).containsExactly(
            "2 Err[text=type [table=trade column=price expected=float got=long]]",
            "2 Err[text=unknown table [table=nope]]",
            "2 Err[text=nyi [call=.u.foo arguments=1]]",
            "2 Err[text=nyi [call=select from trade reason=jtick evaluates no q expressions; send (`.u.upd;`t;data) or (`.u.sub;`t;syms)]]",
            "2 Err[text=unknown table [table=nope]]",
            "2 Err[text=empty sym list: ` subscribes to all syms [argument=syms]]",
            "2 Err[text=nyi [call=(list) expected=(`.u.upd;`t;data)|(`.u.sub;`t;syms)]]",
            "2 ::");
        assertThat(feed.isActive()).isTrue();
        assertThat(tp.journalSequence()).isEqualTo(1);
        assertThat(errors("wrong-type")).isEqualTo(1);
        assertThat(errors("unknown-table")).isEqualTo(1);
        assertThat(errors("unexpected-message")).isEqualTo(3);
        assertThat(errors("bad-subscription")).isEqualTo(2);
    }

    @Test
    void shouldCloseOnARefusedAsyncMessageKeepingWhatWasAccepted() throws IOException {
        start();
        final EmbeddedChannel feed = connect();
        feed.writeInbound(KdbObjects.message(ALLOC, true, 0, call(".u.upd", sym("trade"), trades(1))),
            KdbObjects.message(ALLOC, true, 0, call(".u.upd", sym("trade"), list(syms(""), floats(1), ints(1)))),
            KdbObjects.message(ALLOC, true, 0, call(".u.upd", sym("trade"), trades(2))));
        assertThat(feed.isActive()).isFalse();
        assertThat(received(feed)).as("an async message has no answer").isEmpty();
        assertThat(tp.journalSequence()).as("the update before stays, the one after is ignored").isEqualTo(1);
        assertThat(errors("bad-symbol")).isEqualTo(1);

        final EmbeddedChannel other = connect();
        send(other, false, call(".u.foo", sym("x")));
        assertThat(other.isActive()).isFalse();
        assertThat(errors("unexpected-message")).isEqualTo(1);

        final EmbeddedChannel responder = connect();
        responder.writeInbound(KdbObjects.message(ALLOC, true, KdbDescriptor.RESPONSE, sym("x")));
        assertThat(responder.isActive()).isFalse();
        assertThat(errors("unexpected-message")).isEqualTo(2);
    }

    @Test
    void shouldRefuseOversizedMalformedAndTruncatedMessages() throws IOException {
        start();
        final EmbeddedChannel big = connect();
        big.writeInbound(ALLOC.buffer().writeByte(1).writeByte(KdbDescriptor.SYNC).writeByte(0).writeByte(0).writeIntLE(1 << 20));
        assertThat(shown(big)).containsExactly("2 Err[text=limit [length=1048576, limit=65536]]");
        assertThat(big.isActive()).isFalse();
        assertThat(errors("oversized-frame")).isEqualTo(1);

        final EmbeddedChannel broken = connect();
        final ByteBuf m = KdbObjects.message(ALLOC, true, KdbDescriptor.SYNC, call(".u.upd", sym("trade"), trades(1)));
        m.setIntLE(8 + 6 + 8 + 7 + 6 + 2, 1_000_000);   // the count of the time column (header, list, `.u.upd, `trade, data list)
        broken.writeInbound(m);
        assertThat(shown(broken)).singleElement().asString().startsWith("2 Err[text=malformed kdb+ message: message ends early");
        assertThat(errors("malformed-frame")).isEqualTo(1);

        final EmbeddedChannel cut = connect();
        final ByteBuf whole = KdbObjects.message(ALLOC, true, KdbDescriptor.ASYNC, call(".u.upd", sym("trade"), trades(1)));
        cut.writeInbound(whole.retainedSlice(0, 20));
        whole.release();
        cut.close();
        assertThat(errors("truncated-frame")).isEqualTo(1);
        assertThat(tp.journalSequence()).isZero();
    }

    @Test
    void shouldPublishTimerBatchesToKdbSubscribersAsOneMessage() throws IOException {
        start(s -> s.withMode(PublishMode.TIMER_PUBLISH, java.time.Duration.ofMillis(100)), KdbSettings.onPort(0));
        final EmbeddedChannel sub = connect("sub:");
        send(sub, false, call(".u.sub", sym("trade"), sym("")));
        final EmbeddedChannel feed = connect();
        send(feed, false, call(".u.upd", sym("trade"), trades(1)));
        send(feed, false, call(".u.upd", sym("trade"), trades(2)));
        assertThat(received(sub)).isEmpty();
        tp.onTimer();
        final List<KdbObjects.Message> msgs = received(sub);
        assertThat(msgs).hasSize(1);
        final java.util.Map<?, ?> table = (java.util.Map<?, ?>) ((List<?>) msgs.get(0).value()).get(2);
        assertThat((String[]) table.get("sym")).containsExactly("IBM", "IBM");
        assertThat(((KdbObjects.Temporal) table.get("time")).type()).isEqualTo(KdbType.TIMESPAN);
        assertThat((int[]) table.get("size")).containsExactly(10, 20);
    }

    @Test
    void shouldForceTheJournalBeforeAnsweringASyncUpdateWithJournalSyncBatch() throws IOException {
        start(s -> s.withJournalSync(JournalSync.BATCH), KdbSettings.onPort(0));
        final EmbeddedChannel feed = connect();
        send(feed, false, call(".u.upd", sym("trade"), trades(9)));
        assertThat(metrics.counter("tick.tp.journal.syncs").get()).as("an async call is answered by nothing: no force").isZero();
        send(feed, true, call(".u.upd", sym("trade"), trades(10)));
        assertThat(shown(feed)).containsExactly("2 ::");
        assertThat(metrics.counter("tick.tp.journal.syncs").get()).as("forced before the answer").isEqualTo(1);
        send(feed, true, call(".u.upd", sym("trade"), trades(11)));
        assertThat(shown(feed)).containsExactly("2 ::");
        assertThat(metrics.counter("tick.tp.journal.syncs").get()).isEqualTo(2);
        assertThat(tp.journalSequence()).isEqualTo(3);
    }
}
