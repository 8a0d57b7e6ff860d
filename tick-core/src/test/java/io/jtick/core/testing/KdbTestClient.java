package io.jtick.core.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A blocking kdb+ client over a real socket, for tests (the shape of javakdb's {@code c}): handshake,
 * send a message, read one. Messages are {@link KdbObjects}; sync calls go big-endian like javakdb's.
 */
public final class KdbTestClient implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final int capability;

    private KdbTestClient(final Socket socket, final int capability) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
        this.capability = capability;
    }

    /** Connects and logs in with {@code credentials} ({@code user:password}); throws when the server closes instead of answering. */
    public static KdbTestClient connect(final int port, final String credentials) throws IOException {
        final Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        s.setSoTimeout(20_000);
        s.setTcpNoDelay(true);
        s.getOutputStream().write((credentials + "\u0006\u0000").getBytes(StandardCharsets.ISO_8859_1));
        final int answer = s.getInputStream().read();
        if (answer < 0) {
            s.close();
            throw new IOException("access: the server closed the connection instead of answering the handshake");
        }
        return new KdbTestClient(s, answer);
    }

    public int capability() {
        return capability;
    }

    /** Sends {@code body} as a message of {@code type} (0 async, 1 sync) in the byte order given. */
    public void send(final int type, final boolean le, final KdbObjects.Obj body) throws IOException {
        final ByteBuf m = KdbObjects.message(ByteBufAllocator.DEFAULT, le, type, body);
        try {
            write(m);
        } finally {
            m.release();
        }
    }

    /** Writes a whole message as it is. */
    public void write(final ByteBuf m) throws IOException {
        final byte[] bytes = new byte[m.readableBytes()];
        m.getBytes(m.readerIndex(), bytes);
        out.write(bytes);
        out.flush();
    }

    /** A sync call, big-endian as javakdb sends it; returns the response. */
    public KdbObjects.Message call(final KdbObjects.Obj body) throws IOException {
        send(1, false, body);
        return read();
    }

    /** Reads one message (blocking, up to the socket timeout). */
    public KdbObjects.Message read() throws IOException {
        final byte[] header = new byte[8];
        in.readFully(header);
        final ByteBuf h = Unpooled.wrappedBuffer(header);
        final int length = header[0] == 1 ? h.getIntLE(4) : h.getInt(4);
        final byte[] all = new byte[length];
        System.arraycopy(header, 0, all, 0, 8);
        in.readFully(all, 8, length - 8);
        return KdbObjects.read(Unpooled.wrappedBuffer(all));
    }

    /** True once the server has closed the connection (reads up to the socket timeout). */
    public boolean closedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (final EOFException e) {
            return true;
        } catch (final java.net.SocketException e) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
