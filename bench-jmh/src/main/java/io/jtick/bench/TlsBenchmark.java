package io.jtick.bench;

import io.jtick.core.tls.TlsContexts;
import io.jtick.core.tls.TlsSettings;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.util.ReferenceCountUtil;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import java.nio.ByteBuffer;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * What TLS costs jtick's ports, JDK provider against OpenSSL (BoringSSL through netty-tcnative), on one thread with
 * the engines of both ends in memory (no sockets, so the figures are CPU): {@code handshake} is one full TLS 1.3
 * handshake (ECDSA P-256 certificate, the server's chain verified and its name checked by the client);
 * {@code seal16k} encrypts 16 KiB of application data at the sender and decrypts it at the receiver, so
 * ns/op ÷ 16,384 × 10^9 is the CPU seconds both ends spend per GB moved. Contexts from {@link TlsContexts}, as the
 * ports build them. Figures: bench-jmh/README.md "TLS".
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class TlsBenchmark {
    @Param({"JDK", "OPENSSL"})
    public String provider;

    private SslContext server;
    private SslContext client;
    private SSLEngine sealer;
    private SSLEngine opener;
    private ByteBuffer app;
    private ByteBuffer net;
    private ByteBuffer plain;

    @Setup(Level.Trial)
    public void setUp() throws SSLException {
        final TlsSettings.Provider p = TlsSettings.Provider.valueOf(provider);
        server = TlsContexts.server(BenchTls.server(p));
        client = TlsContexts.client(BenchTls.client(p));
        // heap buffers for the JDK's engine, direct for OpenSSL: what Netty's SslHandler gives each
        final boolean direct = p == TlsSettings.Provider.OPENSSL;
        app = direct ? ByteBuffer.allocateDirect(16 * 1024) : ByteBuffer.allocate(16 * 1024);
        final byte[] bytes = new byte[app.capacity()];
        ThreadLocalRandom.current().nextBytes(bytes);
        app.put(bytes).flip();
        sealer = client.newEngine(ByteBufAllocator.DEFAULT, "127.0.0.1", 5010);
        opener = server.newEngine(ByteBufAllocator.DEFAULT);
        net = direct ? ByteBuffer.allocateDirect(64 * 1024) : ByteBuffer.allocate(64 * 1024);
        plain = direct ? ByteBuffer.allocateDirect(64 * 1024) : ByteBuffer.allocate(64 * 1024);
        handshake(sealer, opener);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        ReferenceCountUtil.release(sealer);
        ReferenceCountUtil.release(opener);
    }

    @Benchmark
    public boolean handshake() throws SSLException {
        final SSLEngine c = client.newEngine(ByteBufAllocator.DEFAULT, "127.0.0.1", 5010);
        final SSLEngine s = server.newEngine(ByteBufAllocator.DEFAULT);
        try {
            return handshake(c, s);
        } finally {
            ReferenceCountUtil.release(c);
            ReferenceCountUtil.release(s);
        }
    }

    @Benchmark
    public int seal16k() throws SSLException {
        app.rewind();
        net.clear();
        while (app.hasRemaining()) {
            check(sealer.wrap(app, net));
        }
        net.flip();
        plain.clear();
        while (net.hasRemaining()) {
            check(opener.unwrap(net, plain));
        }
        return plain.position();
    }

    private static void check(final SSLEngineResult r) throws SSLException {
        if (r.getStatus() != SSLEngineResult.Status.OK) {
            throw new SSLException("unexpected " + r);
        }
    }

    /** Runs the handshake of two engines to the end, each one's records straight into the other. */
    static boolean handshake(final SSLEngine c, final SSLEngine s) throws SSLException {
        c.setUseClientMode(true);
        s.setUseClientMode(false);
        final ByteBuffer empty = ByteBuffer.allocate(0);
        final ByteBuffer cToS = ByteBuffer.allocate(64 * 1024);
        final ByteBuffer sToC = ByteBuffer.allocate(64 * 1024);
        final ByteBuffer sink = ByteBuffer.allocate(64 * 1024);
        c.beginHandshake();
        s.beginHandshake();
        for (int i = 0; i < 1000; i++) {
            final boolean cDone = step(c, empty, cToS, sToC, sink);
            final boolean sDone = step(s, empty, sToC, cToS, sink);
            if (cDone && sDone) {
                return true;
            }
        }
        throw new SSLException("handshake did not finish [client=" + c.getHandshakeStatus() + ", server=" + s.getHandshakeStatus() + "]");
    }

    /** One turn of an engine: write what it has to say into {@code out}, read what the peer wrote into {@code in}. */
    private static boolean step(final SSLEngine e, final ByteBuffer empty, final ByteBuffer out, final ByteBuffer in,
                                final ByteBuffer sink) throws SSLException {
        for (int guard = 0; guard < 100; guard++) {
            switch (e.getHandshakeStatus()) {
                case NEED_WRAP -> e.wrap(empty, out);
                case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                    in.flip();
                    final SSLEngineResult r = e.unwrap(in, sink);
                    in.compact();
                    sink.clear();
                    if (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW || r.bytesConsumed() == 0
                        && r.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_UNWRAP) {
                        return false;
                    }
                }
                case NEED_TASK -> {
                    Runnable t;
                    while ((t = e.getDelegatedTask()) != null) {
                        t.run();
                    }
                }
                default -> {
                    return true;
                }
            }
        }
        return false;
    }
}
