package io.jtick.rdb;

import io.jtick.core.client.TickClient;
import io.jtick.core.rdb.RealtimeDatabase;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.FrameDescriptor;
import org.springframework.context.SmartLifecycle;

/**
 * Starts and stops the subscription that feeds the {@link RealtimeDatabase}. Each (re)subscribe
 * asks for everything after {@link RealtimeDatabase#lastSequence()}: no gap, no duplicate.
 */
final class RdbLifecycle implements SmartLifecycle {
    private final RdbProperties properties;
    private final RealtimeDatabase rdb;
    private final String token;
    private volatile TickClient client;

    RdbLifecycle(final RdbProperties properties, final RealtimeDatabase rdb, final String token) {
        this.properties = properties;
        this.rdb = rdb;
        this.token = token;
    }

    @Override
    public synchronized void start() {
        if (client != null) {
            return;
        }
        final TickClient.Settings settings = new TickClient.Settings(properties.tpHost(), properties.tpPort(), properties.name(),
            properties.tables(), properties.syms(), properties.reconnectDelay(), FrameDescriptor.DEFAULT_MAX_FRAME_LENGTH, token);
        final TickClient c = new TickClient(settings, rdb, rdb::lastSequence, null, NanoClock.SYSTEM);
        c.start();
        client = c;
    }

    @Override
    public synchronized void stop() {
        final TickClient c = client;
        client = null;
        if (c != null) {
            c.close();
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

    /** The TP answered the current connection's subscribe. */
    boolean subscribed() {
        final TickClient c = client;
        return c != null && c.isSubscribed();
    }
}
