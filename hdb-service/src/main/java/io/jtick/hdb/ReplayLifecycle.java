package io.jtick.hdb;

import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.auth.AccessSettings;
import io.jtick.core.tls.TlsSettings;
import io.jtick.core.replay.ReplayServer;
import org.springframework.context.SmartLifecycle;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The HDB's replay port ({@code tick.hdb.replay-port}): a {@link ReplayServer} over the loaded HDB,
 * started after the partitions are loaded and before the web server, stopped before the HDB closes
 * (consumers still reading get REPLAY_DONE cancelled).
 */
final class ReplayLifecycle implements SmartLifecycle {
    private final HdbProperties properties;
    /** Built with the bean, so its meters exist when the metrics binder runs; null when replay is off. */
    private final ReplayServer built;
    private volatile ReplayServer server;

    ReplayLifecycle(final HdbProperties properties, final HdbLifecycle store, final TickMetrics metrics, final AccessSettings access,
                    final TlsSettings tls) {
        this.properties = properties;
        this.built = properties.replay().enabled() ? new ReplayServer(store.hdb(), properties.replaySettings(), metrics).access(access)
            .tls(tls) : null;
    }

    @Override
    public synchronized void start() {
        if (server != null || built == null) {
            return;
        }
        try {
            server = built.start();
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot open the replay port [key=tick.hdb.replay-port, port=" + properties.replayPort() + "]: "
                + e.getMessage(), e);
        }
    }

    @Override
    public synchronized void stop() {
        final ReplayServer s = server;
        server = null;
        if (s != null) {
            s.close();
        }
    }

    @Override
    public boolean isRunning() {
        return server != null;
    }

    /** After the HDB has loaded (it stops after this one). */
    @Override
    public int getPhase() {
        return HdbLifecycle.PHASE + 1;
    }

    /** The running server, or null when replay is off. */
    ReplayServer server() {
        return server;
    }
}
