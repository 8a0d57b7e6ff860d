package io.jtick.core.client;

import io.jtick.core.schema.ColumnDef;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.testing.LeakCheck;
import io.jtick.core.testing.TestSupport;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.LeaderHint.Address;
import io.jtick.core.wire.UpdateDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static io.jtick.core.testing.TestSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

/** The subscriber client against a tickerplant the test plays on a loopback socket. */
@ExtendWith(LeakCheck.class)
class TickClientTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final ByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
    private static final TableSchema TRADE = TableSchema.trade(0);

    /** Every callback, in order, as text. */
    private static final class Events implements TickListener {
        final List<String> seen = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void onSubscribed(final ControlFrames.Subscribed s) {
            seen.add("subscribed " + s.sequence() + " " + s.schemas().keySet());
        }

        @Override
        public void onUpdate(final TableSchema schema, final UpdateDecoder u, final long receiveNanos) {
            final List<String> syms = new ArrayList<>();
            for (int r = 0; r < u.rowCount(); r++) {
                syms.add(u.symString(u.symCode(r)));
            }
            seen.add("update " + schema.name() + " " + u.sequence() + " " + syms);
        }

        @Override
        public void onCatchUpDone(final long sequence) {
            seen.add("catch-up-done " + sequence);
        }

        @Override
        public void onEndOfDay(final int epochDay, final long sequence) {
            seen.add("end-of-day " + epochDay + " " + sequence);
        }

        @Override
        public void onError(final ErrorCode code, final String message) {
            seen.add("error " + code.tag() + " " + message);
        }

        @Override
        public void onDisconnected() {
            seen.add("disconnected");
        }
    }

    private static TickClient.Settings settings(final int port) {
        return new TickClient.Settings("127.0.0.1", port, "rdb", List.of(), List.of(), Duration.ofMillis(20),
            FrameDescriptor.DEFAULT_MAX_FRAME_LENGTH, null);
    }

    private static ByteBuf update(final TableSchema schema, final long sequence, final String... syms) {
        final ByteBuf f = TestSupport.tradeFrame(schema, sequence, syms);
        f.setLongLE(FrameDescriptor.SEQUENCE_OFFSET, sequence);
        return f;
    }

    @Test
    void shouldPresentItsTokenAndWaitLongerAfterEachAccessDeniedUntilSubscribedAgain() throws Exception {
        final Events events = new Events();
        try (FakeTickerplant tp = new FakeTickerplant();
             TickClient client = new TickClient(settings(tp.port()).withToken("s3cret-token"), events, () -> -1, null,
                 NanoClock.SYSTEM)) {
            client.start();
            assertThat(client.reconnectMillis()).isEqualTo(20);
            for (int refusal = 1; refusal <= 3; refusal++) {
                tp.accept();
                assertThat(ControlFrames.readHello(tp.read())).isEqualTo(new ControlFrames.Hello(ControlFrames.ROLE_SUBSCRIBER,
                    FrameDescriptor.PROTOCOL_VERSION, "rdb", 0, "s3cret-token"));
                tp.read();
                tp.write(ControlFrames.error(ALLOC, ErrorCode.ACCESS_DENIED, "wrong API token [access=read, bound=127.0.0.1]"));
                final int n = refusal;
                await("refusal " + n + " seen", WAIT,
                    () -> events.seen.stream().filter(e -> e.startsWith("error access-denied")).count() == n);
                assertThat(client.reconnectMillis()).as("after %d refusals", n).isEqualTo(20L << n);
            }
            tp.accept();
            tp.read();
            tp.read();
            tp.write(ControlFrames.subscribed(ALLOC, 0, 0, 20_000, List.of(TRADE)));
            await("subscribed", WAIT, client::isSubscribed);
            assertThat(client.reconnectMillis()).as("back to the configured delay").isEqualTo(20);
        }
    }

    @Test
    void shouldSayHelloSubscribeAndHandTheListenerEveryFrameInStreamOrder() throws Exception {
        final Events events = new Events();
        try (FakeTickerplant tp = new FakeTickerplant();
             TickClient client = new TickClient(settings(tp.port()).withTables(List.of("trade")).withSyms(List.of("IBM")), events,
                 () -> 41, null, NanoClock.SYSTEM)) {
            client.start();
            tp.accept();
            assertThat(ControlFrames.readHello(tp.read())).isEqualTo(new ControlFrames.Hello(ControlFrames.ROLE_SUBSCRIBER,
                FrameDescriptor.VERSION, "rdb"));
            assertThat(ControlFrames.readSubscribe(tp.read())).isEqualTo(new ControlFrames.Subscribe(41, List.of("trade"), List.of("IBM")));
            assertThat(client.isSubscribed()).isFalse();

            tp.write(ControlFrames.subscribed(ALLOC, 41, 41, 20_000, List.of(TRADE)));
            tp.write(update(TRADE, 42, "IBM", "IBM"));
            tp.write(update(TableSchema.of("other", TRADE.columns().subList(2, 5).toArray(new ColumnDef[0])), 43, "X"));
            tp.write(ControlFrames.catchUpDone(ALLOC, 42));
            tp.write(ControlFrames.heartbeat(ALLOC, 1));
            tp.write(ControlFrames.endOfDay(ALLOC, 20_000, 42));
            tp.write(ControlFrames.error(ALLOC, ErrorCode.BAD_SUBSCRIPTION, "nope [table=x]"));
            await("every event", WAIT, () -> events.seen.size() == 5);
            assertThat(events.seen).as("the update of a table the TP did not announce is dropped").containsExactly(
                "subscribed 41 [trade]", "update trade 42 [IBM, IBM]", "catch-up-done 42", "end-of-day 20000 42",
                "error bad-subscription nope [table=x]");
            assertThat(client.isSubscribed()).isTrue();
            assertThat(client.settings().syms()).containsExactly("IBM");
        }
    }

    @Test
    void shouldReconnectAndSubscribeAgainFromWhereTheListenerHasGot() throws Exception {
        final Events events = new Events();
        final AtomicLong from = new AtomicLong(-1);
        try (FakeTickerplant tp = new FakeTickerplant()) {
            final TickClient client = new TickClient(settings(tp.port()), events, from::get, null, NanoClock.SYSTEM);
            try (client) {
                client.start();
                tp.accept();
                tp.read();
                assertThat(ControlFrames.readSubscribe(tp.read()).fromSequence()).isEqualTo(-1);
                tp.write(ControlFrames.subscribed(ALLOC, 0, 0, 20_000, List.of(TRADE)));
                await("subscribed", WAIT, client::isSubscribed);

                from.set(7);
                tp.closeConnection();
                await("disconnect seen", WAIT, () -> events.seen.contains("disconnected"));
                tp.accept();
                assertThat(ControlFrames.readHello(tp.read()).name()).isEqualTo("rdb");
                assertThat(ControlFrames.readSubscribe(tp.read()).fromSequence()).as("resumes after the last sequence it holds")
                    .isEqualTo(7);
            }
            assertThat(tp.clientClosed()).as("close() closes the connection").isTrue();
            assertThat(client.isConnected()).isFalse();
        }
    }

    @Test
    void shouldKeepTryingUntilATickerplantListens() throws Exception {
        final int port;
        try (FakeTickerplant gone = new FakeTickerplant()) {
            port = gone.port();
        }
        final Events events = new Events();
        try (TickClient client = new TickClient(settings(port), events, () -> -1, null, NanoClock.SYSTEM)) {
            client.start();
            assertThat(client.isConnected()).isFalse();
            try (FakeTickerplant tp = new FakeTickerplant(port)) {
                tp.accept();
                assertThat(ControlFrames.readHello(tp.read()).role()).isEqualTo(ControlFrames.ROLE_SUBSCRIBER);
            }
        }
    }

    private static Address address(final FakeTickerplant tp) {
        return new Address("127.0.0.1", tp.port());
    }

    @Test
    void shouldMoveToTheNextTickerplantAtOnceAndDropTheUpdatesTheListenerHolds() throws Exception {
        final Events events = new Events();
        final AtomicLong from = new AtomicLong(-1);
        try (FakeTickerplant one = new FakeTickerplant(); FakeTickerplant two = new FakeTickerplant();
             TickClient client = new TickClient(new TickClient.Settings(List.of(address(one), address(two)), "rdb", List.of(), List.of(),
                 Duration.ofMinutes(1), FrameDescriptor.DEFAULT_MAX_FRAME_LENGTH, null), events, from::get, null, NanoClock.SYSTEM)) {
            client.start();
            one.accept();
            one.read();
            assertThat(ControlFrames.readSubscribe(one.read()).fromSequence()).isEqualTo(-1);
            one.write(ControlFrames.subscribed(ALLOC, 0, 0, 20_000, List.of(TRADE)));
            one.write(update(TRADE, 1, "A"));
            one.write(update(TRADE, 2, "B"));
            await("two updates", WAIT, () -> events.seen.size() == 3);
            from.set(2);

            // the node goes away: the next one is tried at once (the reconnect delay is a minute, the accept waits 10 s)
            one.closeConnection();
            two.accept();
            assertThat(client.tickerplant()).isEqualTo(address(two));
            assertThat(client.tickerplantChanges()).isEqualTo(1);
            assertThat(ControlFrames.readHello(two.read()).name()).isEqualTo("rdb");
            assertThat(ControlFrames.readSubscribe(two.read()).fromSequence()).as("from the last sequence the listener holds").isEqualTo(2);
            // this node had applied only entry 1: it goes live from there, so entry 2 comes again
            two.write(ControlFrames.subscribed(ALLOC, 1, 1, 20_000, List.of(TRADE)));
            two.write(ControlFrames.catchUpDone(ALLOC, 1));
            two.write(update(TRADE, 2, "B"));
            two.write(update(TRADE, 3, "C"));
            await("the next update", WAIT, () -> events.seen.contains("update trade 3 [C]"));
            assertThat(events.seen).containsExactly("subscribed 0 [trade]", "update trade 1 [A]", "update trade 2 [B]", "disconnected",
                "subscribed 1 [trade]", "catch-up-done 1", "update trade 3 [C]");
            assertThat(client.duplicatesDropped()).isEqualTo(1);
        }
    }

    @Test
    void shouldTryTheNextAddressWhenOneCannotBeReached() throws Exception {
        // a port bound but not listening: connects to it are refused
        try (Socket reserved = new Socket(); FakeTickerplant tp = new FakeTickerplant()) {
            reserved.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            final Address dead = new Address("127.0.0.1", reserved.getLocalPort());
            final Events events = new Events();
            try (TickClient client = new TickClient(settings(tp.port()).withAddresses(List.of(dead, address(tp))), events, () -> -1, null,
                NanoClock.SYSTEM)) {
                client.start();
                tp.accept();
                assertThat(ControlFrames.readHello(tp.read()).role()).isEqualTo(ControlFrames.ROLE_SUBSCRIBER);
                assertThat(client.tickerplant()).isEqualTo(address(tp));
                assertThat(client.tickerplantChanges()).isEqualTo(1);
            }
        }
    }
}
