package io.jtick.core.tp;

import io.jtick.core.auth.AccessCheck;
import io.jtick.core.auth.AccessSettings;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.FrameDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/** The tickerplant's connection handler on embedded channels: frames in, replies and errors out, bad frames, disconnects. */
@ExtendWith(LeakCheck.class)
class TickerplantAdapterTest {
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.builtIn(0);
    private static final TableSchema TRADE = SCHEMAS.get("trade");
    private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

    @TempDir
    Path dir;

    private final TickMetrics metrics = new TickMetrics();
    private final FaultyJournal.Fault fault = new FaultyJournal.Fault();
    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private Tickerplant tp;

    @AfterEach
    void closeAll() {
        for (final EmbeddedChannel ch : channels) {
            ch.finishAndReleaseAll();
        }
        if (tp != null) {
            tp.close();
        }
    }

    private Tickerplant start(final Function<TickerplantSettings, TickerplantSettings> change) {
        final TickerplantSettings s = change.apply(TickerplantSettings.defaults(dir.resolve("journal")).withMaxFrameLength(64 * 1024));
        tp = new Tickerplant(s, SCHEMAS, () -> 1_790_000_000_000_000_000L, ALLOC, metrics, FaultyJournal.opener(fault));
        return tp;
    }

    /** The check of a listener on loopback with the default settings: open. */
    static final AccessCheck OPEN = AccessCheck.forListener(AccessSettings.DEFAULT, InetAddress.getLoopbackAddress());

    private EmbeddedChannel connect() {
        return connect(OPEN);
    }

    private EmbeddedChannel connect(final AccessCheck access) {
        final EmbeddedChannel ch = new EmbeddedChannel();
        TickerplantAdapter.install(ch.pipeline(), tp, access);
        channels.add(ch);
        return ch;
    }

    private static AccessCheck guarded(final String token, final boolean protectReads) {
        return AccessCheck.forListener(new AccessSettings(token, AccessSettings.Guard.ALWAYS, protectReads),
            InetAddress.getLoopbackAddress());
    }

    private static ByteBuf hello(final int role, final String name, final int flags, final String token) {
        return ControlFrames.hello(ALLOC, role, name, FrameDescriptor.PROTOCOL_VERSION, flags, token);
    }

    /** Sends {@code frames} on a new connection checked by {@code access}; returns "code: message" of the one error frame it gets. */
    private String refusal(final AccessCheck access, final ByteBuf... frames) {
        final EmbeddedChannel ch = connect(access);
        ch.writeInbound((Object[]) frames);
        final Frames out = Frames.drain(ch);
        assertThat(out.types()).containsExactly("error");
        assertThat(ch.isOpen()).as("closed after the error").isFalse();
        return out.frames().get(0).error();
    }

    @Test
    void shouldAskAFeedForTheTokenInItsHelloWhereTheListenerIsGuardedAndLetSubscribersReadUnlessReadsAreProtected() {
        start(s -> s.withFeedAcks(1, Duration.ofHours(1)));
        final AccessCheck writes = guarded("s3cret-token", false);
        final EmbeddedChannel sub = connect(writes);
        sub.writeInbound(ControlFrames.hello(ALLOC, ControlFrames.ROLE_SUBSCRIBER, "rdb"), ControlFrames.subscribe(ALLOC, -1, List.of(),
            List.of()));
        assertThat(Frames.drain(sub).types()).as("reads are not protected: a protocol 1 subscriber is served")
            .containsExactly("subscribed");

        assertThat(refusal(writes, ControlFrames.hello(ALLOC, ControlFrames.ROLE_FEED, "old"), trade(1, "A")))
            .startsWith("access-denied").contains("API token is required", "access=write", "send it in HELLO");
        assertThat(refusal(writes, hello(ControlFrames.ROLE_FEED, "guess", 0, "s3cret-tokem"), trade(1, "A")))
            .startsWith("access-denied").contains("wrong API token").doesNotContain("s3cret");
        assertThat(refusal(writes, trade(1, "A"))).as("an update before any HELLO").startsWith("access-denied");
        assertThat(refusal(writes, hello(ControlFrames.ROLE_SUBSCRIBER, "sly", 0, null), trade(1, "A")))
            .as("a subscriber's HELLO does not make its updates reads").startsWith("access-denied").contains("access=write");
        assertThat(errors("access-denied")).isEqualTo(4);
        assertThat(tp.journalSequence()).as("nothing refused was journalled").isZero();
        assertThat(Frames.drain(sub).frames()).isEmpty();

        final EmbeddedChannel feed = connect(writes);
        feed.writeInbound(hello(ControlFrames.ROLE_FEED, "md", 0, "s3cret-token"), trade(1, "A"));
        final EmbeddedChannel numberedFeed = connect(writes);
        numberedFeed.writeInbound(hello(ControlFrames.ROLE_FEED, "md2", FrameDescriptor.HELLO_FLAG_NUMBERED, "s3cret-token"));
        assertThat(acks(numberedFeed)).as("HELLO answered").containsExactly(0L);
        numberedFeed.writeInbound(numbered(1, 2, "B"));
        assertThat(acks(numberedFeed)).containsExactly(1L);
        assertThat(feed.isOpen()).isTrue();
        assertThat(Frames.drain(sub).rows()).containsExactly("A/1000", "B/2000");

        final AccessCheck reads = guarded("s3cret-token", true);
        assertThat(refusal(reads, ControlFrames.hello(ALLOC, ControlFrames.ROLE_SUBSCRIBER, "rdb"), ControlFrames.subscribe(ALLOC, -1,
            List.of(), List.of()))).startsWith("access-denied").contains("access=read");
        final EmbeddedChannel reader = connect(reads);
        reader.writeInbound(hello(ControlFrames.ROLE_SUBSCRIBER, "rdb", 0, "s3cret-token"), ControlFrames.subscribe(ALLOC, -1, List.of(),
            List.of()));
        assertThat(Frames.drain(reader).types()).containsExactly("subscribed");

        assertThat(refusal(guarded(null, false), hello(ControlFrames.ROLE_FEED, "md", 0, "anything"), trade(3, "C")))
            .startsWith("access-denied").contains("none is configured");
        assertThat(errors("access-denied")).isEqualTo(6);
        assertThat(tp.journalSequence()).isEqualTo(2);
    }

    private static ByteBuf trade(final long id, final String... syms) {
        return TestSupport.tradeFrame(TRADE, id, syms);
    }

    private long errors(final String tag) {
        return metrics.counter("tick.tp.errors|code=" + tag).get();
    }

    @Test
    void shouldDispatchHelloSubscribeAndUpdatesAndFlushSubscribersAfterEachRead() {
        start(s -> s);
        final EmbeddedChannel sub = connect();
        sub.writeInbound(ControlFrames.hello(ALLOC, ControlFrames.ROLE_SUBSCRIBER, "rdb"),
            ControlFrames.subscribe(ALLOC, -1, List.of("trade"), List.of()));
        assertThat(Frames.drain(sub).types()).containsExactly("subscribed");
        assertThat(tp.status(null).subscribers()).singleElement().extracting(TickerplantStatus.SubscriberStatus::name).isEqualTo("rdb");

        final EmbeddedChannel feed = connect();
        feed.writeInbound(ControlFrames.hello(ALLOC, ControlFrames.ROLE_FEED, "feed"), trade(1, "A"), trade(2, "B"),
            ControlFrames.heartbeat(ALLOC, 1));
        assertThat(Frames.drain(sub).sequences()).as("flushed at the end of the feed's read").containsExactly(1L, 2L);
        assertThat(tp.status(null).feeds()).isEqualTo(1);

        // a frame that arrives in two reads is put back together
        final ByteBuf whole = trade(3, "C");
        final int half = whole.readableBytes() / 2;
        feed.writeInbound(whole.retainedSlice(0, half));
        assertThat(Frames.drain(sub).frames()).isEmpty();
        feed.writeInbound(whole.retainedSlice(half, whole.readableBytes() - half));
        whole.release();
        assertThat(Frames.drain(sub).rows()).containsExactly("C/3000");
        assertThat(Frames.drain(feed).frames()).as("a feed hears nothing while all is well").isEmpty();

        feed.close();
        assertThat(tp.status(null).feeds()).isZero();
        sub.close();
        assertThat(tp.subscriberCount()).isZero();
        assertThat(tp.journalSequence()).isEqualTo(3);
    }

    @Test
    void shouldAnswerEachBadFrameWithAnErrorCountItCloseAndIgnoreWhatFollows() {
        start(s -> s);
        final ByteBuf valid = trade(1, "A");
        final ByteBuf unknownTable = valid.copy();
        unknownTable.setByte(FrameDescriptor.TABLE_NAME_OFFSET, 'x');
        final ByteBuf wrongVersion = valid.copy();
        wrongVersion.setByte(FrameDescriptor.VERSION_OFFSET, 9);
        final ByteBuf oversized = ALLOC.buffer(16).writeIntLE(1 << 20).writeZero(12);
        final ByteBuf helloFromTheFuture = ControlFrames.hello(ALLOC, ControlFrames.ROLE_FEED, "future");
        helloFromTheFuture.setShortLE(FrameDescriptor.HEADER_LENGTH + 1, 9);
        final ByteBuf serverFrame = ControlFrames.catchUpDone(ALLOC, 7);
        final ByteBuf badSymCount = ControlFrames.subscribe(ALLOC, -1, List.of(), List.of());
        badSymCount.setIntLE(badSymCount.writerIndex() - 4, 1_000_000);
        final ByteBuf unknownSubscription = ControlFrames.subscribe(ALLOC, -1, List.of("nope"), List.of());

        assertThat(refusal(unknownTable)).startsWith("unknown-table");
        assertThat(refusal(wrongVersion)).startsWith("unsupported-version").contains("version=9");
        assertThat(refusal(oversized)).startsWith("oversized-frame").contains("limit=65536");
        assertThat(refusal(helloFromTheFuture)).startsWith("unsupported-version").contains("version=9");
        assertThat(refusal(serverFrame)).startsWith("unexpected-message").contains("type=catch-up-done");
        assertThat(refusal(badSymCount)).startsWith("malformed-frame").contains("sym count");
        assertThat(refusal(unknownSubscription)).startsWith("bad-subscription").contains("table=nope");
        valid.release();

        assertThat(errors("unknown-table")).isEqualTo(1);
        assertThat(errors("malformed-frame")).isEqualTo(1);
        assertThat(errors("oversized-frame")).isEqualTo(1);
        assertThat(errors("unsupported-version")).isEqualTo(2);
        assertThat(errors("unexpected-message")).isEqualTo(1);
        assertThat(errors("bad-subscription")).isEqualTo(1);
        assertThat(tp.journalSequence()).as("the valid update sent after each bad frame was ignored").isZero();
        assertThat(tp.subscriberCount()).isZero();
    }

    /** Sends {@code bad} then a valid update on a new connection; returns "code: message" of the one error frame it gets. */
    private String refusal(final ByteBuf bad) {
        final EmbeddedChannel ch = connect();
        ch.writeInbound(bad, trade(99, "Z"));
        final Frames out = Frames.drain(ch);
        assertThat(out.types()).containsExactly("error");
        assertThat(ch.isOpen()).as("closed after the error").isFalse();
        return out.frames().get(0).error();
    }

    @Test
    void shouldCountAPeerThatDisconnectsInTheMiddleOfAFrame() {
        start(s -> s);
        final EmbeddedChannel feed = connect();
        final ByteBuf frame = trade(1, "A");
        feed.writeInbound(frame.retainedSlice(0, 20));
        frame.release();
        feed.close();
        assertThat(errors("truncated-frame")).isEqualTo(1);
        assertThat(tp.journalSequence()).isZero();
    }

    @Test
    void shouldAnswerAFaultOfItsOwnWithInternalErrorAndKeepServingOthers() {
        start(s -> s);
        final EmbeddedChannel feed = connect();
        feed.writeInbound(trade(1, "A"));
        Frames.drain(feed);
        feed.pipeline().fireExceptionCaught(new IllegalStateException("a bug in the tickerplant"));
        final Frames out = Frames.drain(feed);
        assertThat(out.types()).containsExactly("error");
        assertThat(out.frames().get(0).error()).startsWith("internal-error").contains("a bug in the tickerplant");
        assertThat(feed.isOpen()).isFalse();
        assertThat(errors("internal-error")).isEqualTo(1);
        assertThat(errors("malformed-frame")).as("not blamed on the client").isZero();

        final EmbeddedChannel next = connect();
        next.writeInbound(trade(2, "B"));
        assertThat(Frames.drain(next).frames()).isEmpty();
        assertThat(tp.journalSequence()).isEqualTo(2);
    }

    @Test
    void shouldRefuseAnUpdateTheJournalCannotTakeAtOnceInZeroLatencyMode() {
        start(s -> s);
        final EmbeddedChannel feed = connect();
        feed.writeInbound(trade(1, "A"));
        fault.failNow();
        feed.writeInbound(trade(2, "B"));
        final Frames out = Frames.drain(feed);
        assertThat(out.types()).containsExactly("error");
        assertThat(out.frames().get(0).error()).startsWith("journal-failure").contains("sequence=2");
        assertThat(feed.isOpen()).isFalse();
        assertThat(errors("journal-failure")).isEqualTo(1);
        assertThat(tp.journalSequence()).isEqualTo(1);
    }

    @Test
    void shouldRefuseToItsFeedAnUpdateTheTimerCannotJournalInLogPublishMode() {
        start(s -> s.withMode(PublishMode.TIMER_LOG_PUBLISH, Duration.ofMillis(100)));
        final EmbeddedChannel sub = connect();
        sub.writeInbound(ControlFrames.subscribe(ALLOC, -1, List.of(), List.of()));
        final EmbeddedChannel once = connect();
        final EmbeddedChannel twice = connect();
        final EmbeddedChannel idle = connect();
        once.writeInbound(trade(1, "A"));
        twice.writeInbound(trade(2, "B"), trade(3, "C"));
        assertThat(Frames.drain(twice).frames()).as("accepted into the timer batch").isEmpty();
        fault.failNow();
        tp.onTimer();

        // the table's batch is one journal entry: all of it is refused
        for (final EmbeddedChannel sender : List.of(once, twice)) {
            final Frames refused = Frames.drain(sender);
            assertThat(refused.types()).as("one error however many of its updates were refused").containsExactly("error");
            assertThat(refused.frames().get(0).error()).startsWith("journal-failure");
            assertThat(sender.isOpen()).isFalse();
        }
        assertThat(idle.isOpen()).isTrue();
        assertThat(Frames.drain(sub).rows()).isEmpty();
        assertThat(errors("journal-failure")).isEqualTo(3);

        fault.heal();
        idle.writeInbound(trade(4, "D"));
        tp.onTimer();
        assertThat(Frames.drain(sub).rows()).containsExactly("D/4000");
    }

    @Test
    void shouldTakeNoFeedsWhenChained() {
        start(s -> s.withUpstream("127.0.0.1", 5010));
        final EmbeddedChannel feed = connect();
        feed.writeInbound(trade(1, "A"));
        final Frames out = Frames.drain(feed);
        assertThat(out.frames()).singleElement().extracting(Frames.Frame::error).asString()
            .startsWith("unexpected-message").contains("chained");
        assertThat(feed.isOpen()).isFalse();
        assertThat(tp.journalSequence()).isZero();
    }

    private static ByteBuf numbered(final long number, final long id, final String... syms) {
        final ByteBuf f = trade(id, syms);
        f.setLongLE(FrameDescriptor.SEQUENCE_OFFSET, number);
        return f;
    }

    /** FEED_ACK numbers the channel received. */
    private static List<Long> acks(final EmbeddedChannel ch) {
        final List<Long> out = new ArrayList<>();
        for (Object o = ch.readOutbound(); o != null; o = ch.readOutbound()) {
            final ByteBuf b = (ByteBuf) o;
            try {
                assertThat(ControlFrames.type(b, b.readerIndex())).isEqualTo(io.jtick.core.wire.MessageType.FEED_ACK);
                out.add(ControlFrames.readSequence(b));
            } finally {
                b.release();
            }
        }
        return out;
    }

    @Test
    void shouldAnswerANumberedFeedsHelloAcknowledgeItAndTakeProtocolOneFeedsAsBefore() {
        start(s -> s.withFeedAcks(2, Duration.ofHours(1)));
        final EmbeddedChannel sub = connect();
        sub.writeInbound(ControlFrames.subscribe(ALLOC, -1, List.of(), List.of()));
        Frames.drain(sub);

        final EmbeddedChannel feed = connect();
        feed.writeInbound(ControlFrames.hello(ALLOC, ControlFrames.ROLE_FEED, "md", FrameDescriptor.PROTOCOL_VERSION,
            FrameDescriptor.HELLO_FLAG_NUMBERED));
        assertThat(acks(feed)).as("HELLO answered").containsExactly(0L);
        feed.writeInbound(numbered(1, 1, "A"), numbered(2, 2, "B"), numbered(3, 3, "C"));
        assertThat(acks(feed)).as("due at the 2nd journalled update, sent at the end of the read batch: covers the 3rd")
            .containsExactly(3L);
        feed.writeInbound(numbered(2, 2, "B"), numbered(4, 4, "D"));
        assertThat(acks(feed)).containsExactly(4L);
        assertThat(Frames.drain(sub).rows()).as("the resent 2 dropped").containsExactly("A/1000", "B/2000", "C/3000", "D/4000");
        assertThat(metrics.counter("tick.tp.feed.duplicates").get()).isEqualTo(1);

        final EmbeddedChannel old = connect();
        old.writeInbound(ControlFrames.hello(ALLOC, ControlFrames.ROLE_FEED, "legacy"), trade(5, "E"));
        assertThat(old.outboundMessages()).as("a protocol 1 feed gets no acknowledgement").isEmpty();
        assertThat(Frames.drain(sub).rows()).containsExactly("E/5000");

        final EmbeddedChannel again = connect();
        again.writeInbound(ControlFrames.hello(ALLOC, ControlFrames.ROLE_FEED, "md", 2, FrameDescriptor.HELLO_FLAG_NUMBERED));
        assertThat(acks(again)).containsExactly(4L);
        assertThat(Frames.drain(feed).frames()).singleElement().asString().startsWith("error feed-replaced");
        assertThat(feed.isOpen()).as("the older connection of the feed is closed").isFalse();

        final EmbeddedChannel future = connect();
        future.writeInbound(ControlFrames.hello(ALLOC, ControlFrames.ROLE_FEED, "x", 3, 0));
        assertThat(Frames.drain(future).frames()).singleElement().asString().startsWith("error unsupported-version")
            .contains("supported=1..2");
    }
}
