package io.jtick.core.tls;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslContext;

/**
 * The TLS side of a jtick client (a subscription, a feed, a replay, a chained tickerplant's upstream): one context
 * per service from its {@link TlsSettings}, a TLS handler first in each connection, the server's certificate checked
 * against the trusted CAs and against the host name connected to (a DNS name or an IP address in its
 * subjectAltName). The service's own certificate goes along when the server asks for one (mutual TLS).
 */
public final class TlsClient {
    /** Plaintext: {@link #install} does nothing. */
    public static final TlsClient OFF = new TlsClient(null);

    private final SslContext context;

    private TlsClient(final SslContext context) {
        this.context = context;
    }

    /** A client that speaks TLS when {@code settings} are not off. */
    public static TlsClient of(final TlsSettings settings) {
        return settings == null || !settings.enabled() ? OFF : new TlsClient(TlsContexts.client(settings));
    }

    public boolean enabled() {
        return context != null;
    }

    /** Puts the TLS handler first in a new connection to {@code host:port} (nothing when off). */
    public void install(final ChannelPipeline pipeline, final String host, final int port) {
        if (context != null) {
            pipeline.addFirst(TlsListener.HANDLER, context.newHandler(pipeline.channel().alloc(), host, port));
        }
    }
}
