package io.jtick.core.tp;

import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.MessageType;
import io.jtick.core.wire.UpdateDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.embedded.EmbeddedChannel;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What a tickerplant wrote to an embedded channel, decoded (and released). */
record Frames(List<Frame> frames) {

    /** One frame: its type name and what matters of it ({@code rows} as "sym/size", an update's sym dictionary in order). */
    record Frame(String type, long sequence, int updateCount, long tpTime, List<String> rows, List<String> dictionary, String error,
                 int epochDay) {
        @Override
        public String toString() {
            return type + (type.equals("update") ? " " + sequence + " x" + updateCount + " " + rows : "")
                + (error == null ? "" : " " + error);
        }
    }

    /**
     * Writes {@code bytes} to a fresh connection's {@code out} and reads the tickerplant's answer from {@code in}: one ERROR
     * frame, then the close; returns "code: message".
     */
    static String errorReply(final InputStream in, final OutputStream out, final byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        final DataInputStream data = new DataInputStream(in);
        final byte[] len = new byte[4];
        data.readFully(len);
        final int length = Unpooled.wrappedBuffer(len).getIntLE(0);
        final byte[] frame = new byte[length];
        System.arraycopy(len, 0, frame, 0, 4);
        data.readFully(frame, 4, length - 4);
        final ByteBuf b = Unpooled.wrappedBuffer(frame);
        assertThat(ControlFrames.type(b, 0)).isEqualTo(MessageType.ERROR);
        final ControlFrames.Error e = ControlFrames.readError(b);
        assertThat(data.read()).as("connection closed after the error").isEqualTo(-1);
        return e.code().tag() + ": " + e.message();
    }

    /** Everything written and flushed to {@code ch} since the last call. */
    static Frames drain(final EmbeddedChannel ch) {
        final List<Frame> out = new ArrayList<>();
        for (Object o = ch.readOutbound(); o != null; o = ch.readOutbound()) {
            out.add(decode((ByteBuf) o));
        }
        return new Frames(out);
    }

    /** Everything that waits in a stalled subscriber's outbound buffer, taken out of it as if the peer had read it. */
    static Frames take(final StalledChannel ch) {
        final List<Frame> out = new ArrayList<>();
        final ChannelOutboundBuffer buf = ch.unsafe().outboundBuffer();
        while (buf.current() != null) {
            out.add(decode(((ByteBuf) buf.current()).retain()));
            buf.remove();
        }
        return new Frames(out);
    }

    /** Decodes (and releases) one frame. */
    private static Frame decode(final ByteBuf b) {
        final UpdateDecoder d = new UpdateDecoder();
        try {
            final int type = ControlFrames.type(b, b.readerIndex());
            return switch (type) {
                case MessageType.UPDATE -> {
                    d.wrap(b, b.readerIndex());
                    final List<String> rows = new ArrayList<>();
                    for (int r = 0; r < d.rowCount(); r++) {
                        rows.add(d.symString(d.symCode(r)) + "/" + d.int64(3, r));
                    }
                    final List<String> dictionary = new ArrayList<>();
                    for (int c = 0; c < d.symCount(); c++) {
                        dictionary.add(d.symString(c));
                    }
                    yield new Frame("update", d.sequence(), d.updateCount(), d.tpTime(), rows, dictionary, null, 0);
                }
                case MessageType.ERROR -> {
                    final ControlFrames.Error e = ControlFrames.readError(b);
                    yield new Frame("error", 0, 0, 0, List.of(), List.of(), e.code().tag() + ": " + e.message(), 0);
                }
                case MessageType.END_OF_DAY -> {
                    final ControlFrames.EndOfDay e = ControlFrames.readEndOfDay(b);
                    yield new Frame("end-of-day", e.sequence(), 0, 0, List.of(), List.of(), null, e.epochDay());
                }
                case MessageType.CATCH_UP_DONE -> new Frame("catch-up-done", ControlFrames.readSequence(b), 0, 0, List.of(), List.of(),
                    null, 0);
                case MessageType.SUBSCRIBED -> new Frame("subscribed", ControlFrames.readSubscribed(b).sequence(), 0, 0, List.of(),
                    List.of(), null, 0);
                default -> new Frame(MessageType.name(type), 0, 0, 0, List.of(), List.of(), null, 0);
            };
        } finally {
            b.release();
        }
    }

    List<Frame> updates() {
        return frames.stream().filter(f -> f.type().equals("update")).toList();
    }

    List<String> rows() {
        return updates().stream().flatMap(f -> f.rows().stream()).toList();
    }

    List<Long> sequences() {
        return updates().stream().map(Frame::sequence).toList();
    }

    List<String> types() {
        return frames.stream().map(Frame::type).toList();
    }
}
