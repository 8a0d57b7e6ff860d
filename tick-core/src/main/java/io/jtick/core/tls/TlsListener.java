package io.jtick.core.tls;

import io.jtick.core.auth.AccessCheck;
import io.jtick.core.auth.ClientSubjects;
import io.jtick.core.metrics.TickMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.AttributeKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.security.auth.x500.X500Principal;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The TLS front of one listening port: built once per port from the service's {@link TlsSettings}, it puts a TLS
 * handler first in each new connection's pipeline. {@code required}: the first bytes must be a TLS record, else
 * the connection gets the protocol's refusal (a native ERROR frame; nothing for kdb+, as kdb+ -E 2 does) and is
 * closed; {@code optional}: the first bytes decide between TLS and plaintext (as Netty's OptionalSslHandler, but
 * deciding on one byte, since a kdb+ login can be two). Every refused handshake is logged and counted in
 * {@code tick.tls.handshake.failures|port=<port>,reason=<reason>} ({@link TlsFailure}). Renewed certificate files are
 * served to new connections without a restart ({@link ContextReloader}).
 */
public final class TlsListener {
    private static final Logger LOG = LoggerFactory.getLogger(TlsListener.class);
    /** The access a connection's client certificate carries, set when its handshake completes. */
    private static final AttributeKey<AccessCheck.Access> CERTIFIED = AttributeKey.valueOf("jtick.tls.certified");
    /** Handler names in the pipeline. */
    public static final String HANDLER = "tls";
    private static final String SNIFFER = "tls-sniffer";
    private static final String WATCHER = "tls-watcher";

    private final TlsSettings.Mode mode;
    private final String port;
    private final ContextReloader context;
    private final Map<TlsFailure, AtomicLong> failures = new EnumMap<>(TlsFailure.class);
    private final AtomicLong handshakes;
    private final ClientSubjects subjects;
    private final AtomicLong mapped;
    private final AtomicLong unmapped;

    private TlsListener(final TlsSettings settings, final String port, final TickMetrics metrics) {
        this.mode = settings.mode();
        this.port = port;
        this.context = settings.enabled() ? new ContextReloader(settings, TlsContexts::server, "port=" + port,
            metrics.counter("tick.tls.reloads|port=" + port + ",result=ok"), metrics.counter("tick.tls.reloads|port=" + port
            + ",result=failed")) : null;
        for (final TlsFailure f : TlsFailure.values()) {
            failures.put(f, metrics.counter("tick.tls.handshake.failures|port=" + port + ",reason=" + f.tag()));
        }
        this.handshakes = metrics.counter("tick.tls.handshakes|port=" + port);
        this.subjects = settings.subjects();
        this.mapped = metrics.counter("tick.tls.client.certificates|port=" + port + ",subject=mapped");
        this.unmapped = metrics.counter("tick.tls.client.certificates|port=" + port + ",subject=unmapped");
    }

    /**
     * The access the verified client certificate of {@code channel} carries ({@code tick.tls.client-subjects}), or null:
     * no TLS, no certificate, or a subject not in the file. The protocol handlers pass it to {@link AccessCheck}, where a
     * grant covering the call stands for the API token.
     */
    public static AccessCheck.Access certified(final Channel channel) {
        return channel.attr(CERTIFIED).get();
    }

    /** The TLS front of the port named {@code port} (the metric's tag: {@code tp}, {@code tp-kdb}, {@code replay}, {@code pg}...). */
    public static TlsListener of(final TlsSettings settings, final String port, final TickMetrics metrics) {
        return new TlsListener(settings.validate(), port, metrics);
    }

    public TlsSettings.Mode mode() {
        return mode;
    }

    public boolean enabled() {
        return mode != TlsSettings.Mode.OFF;
    }

    /** For logs: {@code off}, or the mode and provider. */
    public String describe() {
        return enabled() ? mode.name().toLowerCase(java.util.Locale.ROOT) + " (" + context.current().getClass().getSimpleName() + ")"
            : "off";
    }

    /**
     * Puts the TLS front first in a new connection's pipeline (nothing when off).
     *
     * @param refusal what a plaintext client of a {@code required} port is sent before the close, or null for nothing
     */
    public void install(final ChannelPipeline pipeline, final Function<ByteBufAllocator, ByteBuf> refusal) {
        if (enabled()) {
            pipeline.addFirst(SNIFFER, new Sniffer(refusal));
        }
    }

    /**
     * Starts TLS now on a connection that negotiated it in its own protocol (PostgreSQL's SSLRequest): the TLS
     * handler goes first, and its failures are counted as the sniffed ones are.
     */
    public void startTls(final ChannelPipeline pipeline) {
        pipeline.addFirst(HANDLER, context.current().newHandler(pipeline.channel().alloc()));
        pipeline.addAfter(HANDLER, WATCHER, new Watcher());
    }

    /** Counts a plaintext client refused by the protocol's own negotiation (PostgreSQL without SSLRequest). */
    public void refusedPlaintext(final String remote) {
        count(TlsFailure.PLAINTEXT, remote, "plaintext connection on a port that requires TLS");
    }

    /** Counts a failed handshake; the total for {@code reason} is what Prometheus reads. */
    private void count(final TlsFailure reason, final Object remote, final String message) {
        failures.get(reason).incrementAndGet();
        LOG.info("TLS connection refused [port={}, remote={}, reason={}]: {}", port, remote, reason.tag(), message);
    }

    /** Failed handshakes so far for {@code reason} (tests, status). */
    public long failures(final TlsFailure reason) {
        return failures.get(reason).get();
    }

    /** Reads the first byte(s): a TLS record starts TLS; anything else is plaintext, refused when TLS is required. */
    private final class Sniffer extends ByteToMessageDecoder {
        private final Function<ByteBufAllocator, ByteBuf> refusal;

        Sniffer(final Function<ByteBufAllocator, ByteBuf> refusal) {
            this.refusal = refusal;
        }

        @Override
        protected void decode(final ChannelHandlerContext ctx, final ByteBuf in, final List<Object> out) {
            final int first = in.getUnsignedByte(in.readerIndex());
            // a TLS record starts with its content type, 20..23 (a ClientHello: 22); SSLv2 hellos are not accepted
            final boolean maybeTls = first >= 20 && first <= 23;
            if (maybeTls && in.readableBytes() < 5) {
                return;
            }
            if (maybeTls && SslHandler.isEncrypted(in, false)) {
                ctx.pipeline().addAfter(SNIFFER, WATCHER, new Watcher());
                ctx.pipeline().replace(this, HANDLER, context.current().newHandler(ctx.alloc()));
            } else if (mode == TlsSettings.Mode.OPTIONAL) {
                ctx.pipeline().remove(this);
            } else {
                in.skipBytes(in.readableBytes());
                count(TlsFailure.PLAINTEXT, ctx.channel().remoteAddress(), "plaintext connection on a port that requires TLS");
                if (refusal != null) {
                    ctx.writeAndFlush(refusal.apply(ctx.alloc())).addListener(ChannelFutureListener.CLOSE);
                } else {
                    ctx.close();
                }
            }
        }
    }

    /** Counts the handshake's outcome; after a failure, keeps the provider's exception out of the protocol handler's logs. */
    private final class Watcher extends ChannelInboundHandlerAdapter {
        private boolean failed;

        @Override
        public void userEventTriggered(final ChannelHandlerContext ctx, final Object event) {
            if (event instanceof SslHandshakeCompletionEvent done) {
                if (done.isSuccess()) {
                    handshakes.incrementAndGet();
                    certify(ctx);
                    ctx.pipeline().remove(this);
                } else {
                    failed = true;
                    final Throwable cause = done.cause();
                    if (!(cause instanceof java.nio.channels.ClosedChannelException)) {
                        // a client gone mid-handshake refused nothing
                        count(TlsFailure.of(cause), ctx.channel().remoteAddress(), String.valueOf(cause.getMessage()));
                    }
                    ctx.close();
                }
            }
            ctx.fireUserEventTriggered(event);
        }

        /** Gives the connection its client certificate's access, when it sent one (already verified against the trust). */
        private void certify(final ChannelHandlerContext ctx) {
            final SslHandler tls = ctx.pipeline().get(SslHandler.class);
            if (tls == null) {
                return;
            }
            final X500Principal subject;
            try {
                if (!(tls.engine().getSession().getPeerPrincipal() instanceof X500Principal x)) {
                    return;
                }
                subject = x;
            } catch (final SSLPeerUnverifiedException e) {
                return;
            }
            final AccessCheck.Access grant = subjects.grant(subject);
            (grant != null ? mapped : unmapped).incrementAndGet();
            if (grant != null) {
                ctx.channel().attr(CERTIFIED).set(grant);
            }
            LOG.debug("client certificate [port={}, remote={}, subject={}, access={}]", port, ctx.channel().remoteAddress(),
                subject.getName(), grant == null ? "none (not in tick.tls.client-subjects)" : grant);
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            if (failed || cause instanceof SSLException || cause.getCause() instanceof SSLException) {
                ctx.close();
                return;
            }
            ctx.fireExceptionCaught(cause);
        }
    }
}
