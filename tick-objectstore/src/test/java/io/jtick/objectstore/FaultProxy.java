package io.jtick.objectstore;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP proxy between the HDB and the S3-compatible server that injects faults into the
 * server's responses: {@link Mode#PASS} forwards everything; {@link Mode#STALL} forwards a response's
 * headers and its first {@code bodyBytes} bytes of body, then stops sending (the connection stays
 * open, silent) until the mode changes, when it drops that connection; {@link Mode#CUT} forwards the
 * same and then closes the connection mid-body. Requests always pass unchanged, so signatures hold.
 * A fault applies to every response begun while it is set, on new and kept-alive connections alike.
 */
final class FaultProxy implements AutoCloseable {
    enum Mode { PASS, STALL, CUT }

    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicInteger faults = new AtomicInteger();
    private final Thread acceptor;
    private volatile Mode mode = Mode.PASS;
    private volatile int bodyBytes = 1024;
    private volatile boolean closed;
    private volatile byte[] cutRequests;

    FaultProxy(final URI target) throws IOException {
        this.target = new InetSocketAddress(target.getHost(), target.getPort());
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = daemon("fault-proxy-accept", this::accept);
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + listener.getLocalPort());
    }

    /** Sets the fault for responses begun from now on; bodyBytes of each body still pass before it. */
    synchronized void mode(final Mode m, final int bodyBytes) {
        this.bodyBytes = bodyBytes;
        this.mode = m;
        notifyAll();
    }

    /** Cuts the connection of every request whose bytes contain {@code marker} (e.g. a query parameter), before it reaches the server. */
    void cutRequestsContaining(final String marker) {
        cutRequests = marker == null ? null : marker.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** Responses stalled or cut so far. */
    int faults() {
        return faults.get();
    }

    private void accept() {
        while (!closed) {
            final Socket client;
            try {
                client = listener.accept();
            } catch (final IOException e) {
                return;
            }
            try {
                final Socket server = new Socket();
                server.connect(target, 2_000);
                sockets.add(client);
                sockets.add(server);
                daemon("fault-proxy-up", () -> up(client, server));
                daemon("fault-proxy-down", () -> down(server, client));
            } catch (final IOException e) {
                quietly(client);
            }
        }
    }

    /** Client to server: unchanged, unless a request carries the marker to cut. */
    private void up(final Socket client, final Socket server) {
        final byte[] buf = new byte[16384];
        try (InputStream in = client.getInputStream(); OutputStream out = server.getOutputStream()) {
            for (int n; (n = in.read(buf)) >= 0; ) {
                final byte[] marker = cutRequests;
                if (marker != null && contains(buf, n, marker)) {
                    faults.incrementAndGet();
                    return;
                }
                out.write(buf, 0, n);
            }
        } catch (final IOException ignored) {
            // either side went away
        } finally {
            quietly(client);
            quietly(server);
        }
    }

    /**
     * Server to client, one response at a time as far as the fault needs: after a fault is set, the
     * next response's header end ({@code CRLF CRLF}) is found and bodyBytes more are let through.
     */
    private void down(final Socket server, final Socket client) {
        final byte[] buf = new byte[8192];
        try (InputStream in = server.getInputStream(); OutputStream out = client.getOutputStream()) {
            int crlf = 0;          // how much of CRLF CRLF has been seen, while looking for a header's end
            long allowed = -1;     // body bytes still let through before the fault, -1: headers not ended yet
            for (int n; (n = in.read(buf)) >= 0; ) {
                final Mode m = mode;
                if (m == Mode.PASS) {
                    out.write(buf, 0, n);
                    out.flush();
                    crlf = 0;
                    allowed = -1;
                    continue;
                }
                int i = 0;
                while (i < n && allowed < 0) {
                    final byte b = buf[i++];
                    final boolean next = b == '\r' ? crlf == 0 || crlf == 2 : b == '\n' && (crlf == 1 || crlf == 3);
                    crlf = next ? crlf + 1 : b == '\r' ? 1 : 0;
                    if (crlf == 4) {
                        allowed = bodyBytes;
                    }
                }
                final int pass = (int) Math.min(n, i + Math.max(0, allowed));
                out.write(buf, 0, pass);
                out.flush();
                if (allowed >= 0) {
                    allowed -= pass - i;
                    if (allowed == 0) {
                        faults.incrementAndGet();
                        if (m == Mode.STALL) {
                            stallWhile(Mode.STALL, client);
                        }
                        return;
                    }
                }
            }
        } catch (final IOException | InterruptedException ignored) {
            // either side went away
        } finally {
            quietly(client);
            quietly(server);
        }
    }

    private synchronized void stallWhile(final Mode m, final Socket client) throws InterruptedException {
        while (mode == m && !closed && !client.isClosed()) {
            wait(50);
        }
    }

    private static boolean contains(final byte[] buf, final int n, final byte[] marker) {
        for (int i = 0; i + marker.length <= n; i++) {
            if (java.util.Arrays.equals(buf, i, i + marker.length, marker, 0, marker.length)) {
                return true;
            }
        }
        return false;
    }

    private static Thread daemon(final String name, final Runnable body) {
        final Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void quietly(final Socket s) {
        try {
            s.close();
        } catch (final IOException ignored) {
            // closing
        }
    }

    @Override
    public void close() throws Exception {
        closed = true;
        listener.close();
        synchronized (this) {
            notifyAll();
        }
        for (final Socket s : sockets) {
            quietly(s);
        }
        acceptor.join(5_000);
    }
}
