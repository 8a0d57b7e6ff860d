package io.jtick.rdb;

import io.jtick.core.client.TickClient;
import io.jtick.core.client.TickerplantAddresses;
import io.jtick.core.rdb.RealtimeDatabase;
import io.jtick.core.time.NanoClock;
import io.jtick.core.tls.TlsClient;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.LeaderHint.Address;
import io.jtick.core.wire.Transport;
import io.netty.channel.EventLoopGroup;
import org.springframework.context.SmartLifecycle;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts and stops the subscription that feeds the {@link RealtimeDatabase}. Each (re)subscribe
 * asks for everything after {@link RealtimeDatabase#lastSequence()}: no gap, no duplicate.
 */
final class RdbLifecycle implements SmartLifecycle {
    private final RdbProperties properties;
    private final RealtimeDatabase rdb;
    private final String token;
    private final TlsClient tls;
    private volatile TickClient client;
    /** The subscription's event loop, made here so that it spins as {@code tick.rdb.idle-spin} says. */
    private EventLoopGroup group;

    private final List<Address> tickerplants;

    /** @throws IllegalArgumentException a bad {@code tick.rdb.tp-addresses} (named) */
    RdbLifecycle(final RdbProperties properties, final RealtimeDatabase rdb, final String token, final TlsClient tls) {
        this.properties = properties;
        this.tls = tls;
        this.rdb = rdb;
        this.token = token;
        this.tickerplants = properties.tickerplants();
    }

    @Override
    public synchronized void start() {
        if (client != null) {
            return;
        }
        final TickClient.Settings settings = new TickClient.Settings(tickerplants, properties.name(),
            properties.tables(), properties.syms(), properties.reconnectDelay(), FrameDescriptor.DEFAULT_MAX_FRAME_LENGTH, token);
        group = Transport.newGroup(1, "tick-client-" + properties.name(), properties.idleSpin().toNanos());
        final TickClient c = new TickClient(settings, rdb, rdb::lastSequence, group, NanoClock.SYSTEM).tls(tls);
        c.start();
        client = c;
    }

    @Override
    public synchronized void stop() {
        final TickClient c = client;
        client = null;
        if (c != null) {
            c.close();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
            group = null;
        }
    }

    @Override
    public boolean isRunning() {
        return client != null;
    }

    /** TCP connection to the TP is up. */
    boolean connected() {
        final TickClient c = client;
        return c != null && c.isConnected();
    }

    /** The tickerplant subscribed to (or tried next), {@code host:port}. */
    String tickerplant() {
        final TickClient c = client;
        return c != null ? c.tickerplant().toString() : TickerplantAddresses.format(tickerplants);
    }

    /** Moves to another of the tickerplants. */
    long tickerplantChanges() {
        final TickClient c = client;
        return c == null ? 0 : c.tickerplantChanges();
    }

    /** The TP answered the current connection's subscribe. */
    boolean subscribed() {
        final TickClient c = client;
        return c != null && c.isSubscribed();
    }
}
