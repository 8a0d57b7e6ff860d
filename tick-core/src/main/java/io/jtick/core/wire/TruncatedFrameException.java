package io.jtick.core.wire;

import io.netty.handler.codec.DecoderException;

/** The peer closed the connection with part of a frame unread (fired by the {@link FramePipeline} splitter). */
public final class TruncatedFrameException extends DecoderException {
    private static final long serialVersionUID = 1L;

    public TruncatedFrameException(final int bytesLeft) {
        super("connection closed in the middle of a frame [bytesLeft=" + bytesLeft + "]");
    }
}
