package io.jtick.objectstore;

import org.gaul.shaded.org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.util.ForwardingBlobStore;

import java.net.URI;
import java.nio.file.Path;
import java.util.Properties;

/**
 * A real S3-compatible server on loopback for the tests: s3proxy in this JVM over jclouds'
 * filesystem backend (objects are files under a directory, so they outlive a {@link #stop()} and
 * come back with {@link #start()} on the same port). Chosen over moto's server: no Python process,
 * same JVM, and a test can stop it between two requests of one query.
 */
final class S3ProxyServer implements AutoCloseable {
    static final String ACCESS = "jtick-access";
    static final String SECRET = "jtick-secret-key";
    static final String BUCKET = "jtick-cold";

    private final BlobStoreContext context;
    private final BlobStore blobStore;
    private S3Proxy proxy;
    private int port;
    private String secret = SECRET;

    S3ProxyServer(final Path dir) throws Exception {
        final Properties p = new Properties();
        p.setProperty("jclouds.filesystem.basedir", dir.toString());
        context = ContextBuilder.newBuilder("filesystem").credentials("identity", "credential").overrides(p)
            .build(BlobStoreContext.class);
        context.getBlobStore().createContainerInLocation(null, BUCKET);
        // multipart parts of any size (AWS's and s3proxy's minimum is 5MB but the last), so a test's small day goes up in parts
        blobStore = new ForwardingBlobStore(context.getBlobStore()) {
            @Override
            public long getMinimumMultipartPartSize() {
                return 1;
            }
        };
        start();
    }

    /** Starts (again): on a free port the first time, on the same port after a stop. */
    void start() throws Exception {
        if (proxy != null && AbstractLifeCycle.STARTED.equals(proxy.getState())) {
            return;
        }
        proxy = S3Proxy.builder().blobStore(blobStore).endpoint(URI.create("http://127.0.0.1:" + port))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS, secret).build();
        proxy.start();
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (!AbstractLifeCycle.STARTED.equals(proxy.getState())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("s3proxy did not start: " + proxy.getState());
            }
            Thread.onSpinWait();
        }
        port = proxy.getPort();
    }

    /** Serves again on the same port, now accepting {@code secretKey} for the access key (a rotated or revoked key). */
    void restart(final String secretKey) throws Exception {
        if (!secretKey.equals(secret)) {
            stop();
            secret = secretKey;
        }
        start();
    }

    /** Stops serving; the objects stay on disk. */
    void stop() throws Exception {
        proxy.stop();
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    ObjectStoreSettings settings(final String prefix) {
        return ObjectStoreSettings.of(endpoint(), BUCKET, prefix, ACCESS, SECRET);
    }

    @Override
    public void close() throws Exception {
        proxy.stop();
        context.close();
    }
}
