package io.jtick.sql.kdb;

import io.jtick.core.kdb.KdbDescriptor;
import io.jtick.core.kdb.KdbReader;
import io.jtick.core.kdb.KdbWriter;
import io.jtick.sql.q.QValue;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** A blocking kdb+ client made of the project's own codec (KdbWriter out, KdbReader in): handshake, sync q strings, raw bytes. */
final class KdbTestClient implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;
    final int capability;

    KdbTestClient(final int port, final String credentials) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(20_000);
        out = socket.getOutputStream();
        in = new DataInputStream(socket.getInputStream());
        out.write((credentials + "\u0003\u0000").getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        capability = in.read();
    }

    /** Sends {@code q} as a sync char vector; returns the answer (an error as type -128 holding its text). */
    QValue sync(final String q) throws IOException {
        final ByteBuf m = KdbWriter.begin(ByteBufAllocator.DEFAULT, KdbDescriptor.SYNC, q.length() + 8);
        KdbWriter.chars(m, q);
        send(KdbWriter.end(m));
        return receive();
    }

    void send(final ByteBuf m) throws IOException {
        try {
            final byte[] b = new byte[m.readableBytes()];
            m.readBytes(b);
            out.write(b);
            out.flush();
        } finally {
            m.release();
        }
    }

    void sendRaw(final byte[] b) throws IOException {
        out.write(b);
        out.flush();
    }

    /** One response message, read whole. */
    QValue receive() throws IOException {
        final byte[] header = new byte[8];
        in.readFully(header);
        final int length = header[0] == 1 ? Unpooled.wrappedBuffer(header).getIntLE(4) : Unpooled.wrappedBuffer(header).getInt(4);
        final byte[] all = new byte[length];
        System.arraycopy(header, 0, all, 0, 8);
        in.readFully(all, 8, length - 8);
        final KdbReader reader = new KdbReader().wrap(Unpooled.wrappedBuffer(all), 0, length);
        return new KdbValueReader(reader).read(reader.body());
    }

    /** True when the server closed the connection (reads end of stream). */
    boolean closedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (final java.net.SocketException e) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
