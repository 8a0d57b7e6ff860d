package io.jtick.core.tls;

import io.netty.channel.ChannelPipeline;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The TLS side of a jtick client (a subscription, a feed, a replay, a chained tickerplant's upstream): one context
 * per service from its {@link TlsSettings}, a TLS handler first in each connection, the server's certificate checked
 * against the trusted CAs and against the host name connected to (a DNS name or an IP address in its
 * subjectAltName). The service's own certificate goes along when the server asks for one (mutual TLS).
 */
public final class TlsClient {
    /** Plaintext: {@link #install} does nothing. */
    public static final TlsClient OFF = new TlsClient(null);

    private final ContextReloader context;

    private TlsClient(final ContextReloader context) {
        this.context = context;
    }

    /** A client that speaks TLS when {@code settings} are not off; a renewed certificate or trust is used from the next connection. */
    public static TlsClient of(final TlsSettings settings) {
        return settings == null || !settings.enabled() ? OFF : new TlsClient(new ContextReloader(settings, TlsContexts::client, "client",
            new AtomicLong(), new AtomicLong()));
    }

    public boolean enabled() {
        return context != null;
    }

    /** Puts the TLS handler first in a new connection to {@code host:port} (nothing when off). */
    public void install(final ChannelPipeline pipeline, final String host, final int port) {
        if (context != null) {
            pipeline.addFirst(TlsListener.HANDLER, context.current().newHandler(pipeline.channel().alloc(), host, port));
        }
    }
}
