package io.jtick.core.client;

import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.FrameDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * The far end of a client connection, played by the test on a loopback socket with blocking reads
 * (10 s timeout): it accepts, reads the frames a client sends and writes the frames a tickerplant would.
 */
final class FakeTickerplant implements AutoCloseable {
    private final ServerSocket server;
    private Socket socket;
    private DataInputStream in;
    private OutputStream out;

    FakeTickerplant() throws IOException {
        this(0);
    }

    /** Listens on {@code port} (0: any free one). */
    FakeTickerplant(final int port) throws IOException {
        server = new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
        server.setSoTimeout(10_000);
    }

    int port() {
        return server.getLocalPort();
    }

    /** Waits for the client to connect (again). */
    FakeTickerplant accept() throws IOException {
        closeConnection();
        socket = server.accept();
        socket.setSoTimeout(10_000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
        return this;
    }

    /** The next whole frame the client sent, as a heap buffer. */
    ByteBuf read() throws IOException {
        final byte[] len = new byte[4];
        in.readFully(len);
        final int length = Unpooled.wrappedBuffer(len).getIntLE(FrameDescriptor.LENGTH_OFFSET);
        final byte[] frame = new byte[length];
        System.arraycopy(len, 0, frame, 0, 4);
        in.readFully(frame, 4, length - 4);
        return Unpooled.wrappedBuffer(frame);
    }

    int readType() throws IOException {
        final ByteBuf f = read();
        return ControlFrames.type(f, 0);
    }

    /** Sends {@code frame} and releases it. */
    void write(final ByteBuf frame) throws IOException {
        try {
            final byte[] bytes = new byte[frame.readableBytes()];
            frame.getBytes(frame.readerIndex(), bytes);
            out.write(bytes);
            out.flush();
        } finally {
            frame.release();
        }
    }

    /** True when the client closed its end: the next read finds the end of the stream. */
    boolean clientClosed() throws IOException {
        return in.read() < 0;
    }

    void closeConnection() throws IOException {
        if (socket != null) {
            socket.close();
            socket = null;
        }
    }

    @Override
    public void close() throws IOException {
        closeConnection();
        server.close();
    }
}
