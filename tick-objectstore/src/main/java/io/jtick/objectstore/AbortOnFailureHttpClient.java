package io.jtick.objectstore;

import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;

import java.io.IOException;

/**
 * Closes the connection of a request that fails on the way out. The SDK's JDK client
 * ({@code UrlConnectionHttpClient}) lets the exception of an upload whose connection was reset
 * mid-body (a proxy or the store cutting it) leave its {@code HttpURLConnection} behind, socket
 * open, until the garbage collector finds it; a store that keeps retrying cut uploads would keep
 * one descriptor per attempt. Here every failed call is {@linkplain ExecutableHttpRequest#abort()
 * aborted}, which disconnects it at once.
 */
final class AbortOnFailureHttpClient implements SdkHttpClient {
    private final SdkHttpClient delegate;

    AbortOnFailureHttpClient(final SdkHttpClient delegate) {
        this.delegate = delegate;
    }

    @Override
    public ExecutableHttpRequest prepareRequest(final HttpExecuteRequest request) {
        final ExecutableHttpRequest call = delegate.prepareRequest(request);
        return new ExecutableHttpRequest() {
            @Override
            public HttpExecuteResponse call() throws IOException {
                try {
                    return call.call();
                } catch (final IOException | RuntimeException | Error e) {
                    try {
                        call.abort();
                    } catch (final RuntimeException x) {
                        e.addSuppressed(x);
                    }
                    throw e;
                }
            }

            @Override
            public void abort() {
                call.abort();
            }
        };
    }

    @Override
    public String clientName() {
        return delegate.clientName();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
