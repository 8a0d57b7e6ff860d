package io.jtick.core.tls;

import io.netty.handler.ssl.SslContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * One TLS context that follows its files: a renewed certificate (cert-manager rewriting a Secret, an operator copying
 * new PEM files) is served to new connections without a restart; connections already open keep theirs. The files'
 * modification times and sizes are looked at when a connection starts, at most once a second (no thread, no watch
 * service, which misses a Kubernetes Secret's symlink swap); when they changed, the context is built again. A build
 * that fails (files half written, a key that is not the certificate's) keeps the old context, logs and counts, and is
 * tried again when the files next change. Used by the event loops of one port or client; thread-safe.
 */
final class ContextReloader {
    private static final Logger LOG = LoggerFactory.getLogger(ContextReloader.class);
    private static final long CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final TlsSettings settings;
    private final Function<TlsSettings, SslContext> build;
    private final String what;
    private final AtomicLong reloads;
    private final AtomicLong failures;
    private volatile SslContext context;
    private long[] stamp;
    private long checkedNanos;

    ContextReloader(final TlsSettings settings, final Function<TlsSettings, SslContext> build, final String what,
                    final AtomicLong reloads, final AtomicLong failures) {
        this.settings = settings;
        this.build = build;
        this.what = what;
        this.reloads = reloads;
        this.failures = failures;
        this.stamp = stamp(settings);
        this.context = build.apply(settings);
    }

    /** The context for a new connection: rebuilt first when the files changed since the last look. */
    SslContext current() {
        final long now = System.nanoTime();
        synchronized (this) {
            if (now - checkedNanos < CHECK_NANOS) {
                return context;
            }
            checkedNanos = now;
            final long[] s = stamp(settings);
            if (Arrays.equals(s, stamp)) {
                return context;
            }
            stamp = s;
            try {
                context = build.apply(settings);
                reloads.incrementAndGet();
                LOG.info("TLS certificate files changed: new connections get the new context [{}, {}]", what, settings);
            } catch (final RuntimeException e) {
                failures.incrementAndGet();
                LOG.warn("TLS certificate files changed but cannot be loaded; keeping the previous ones until they change again [{}]: {}",
                    what, e.getMessage());
            }
            return context;
        }
    }

    /** Modification time and size of each file the settings name (the order of {@link #files}). */
    private static long[] stamp(final TlsSettings s) {
        final Path[] files = files(s);
        final long[] out = new long[files.length * 2];
        for (int i = 0; i < files.length; i++) {
            if (files[i] == null) {
                continue;
            }
            try {
                out[2 * i] = Files.getLastModifiedTime(files[i]).toMillis();
                out[2 * i + 1] = Files.size(files[i]);
            } catch (final IOException e) {
                out[2 * i] = -1;
            }
        }
        return out;
    }

    private static Path[] files(final TlsSettings s) {
        return new Path[] {s.certificate(), s.privateKey(), s.keyStore(), s.trust(), s.trustStore()};
    }

    @Override
    public String toString() {
        return "ContextReloader[" + what + ", " + Objects.toString(settings) + "]";
    }
}
