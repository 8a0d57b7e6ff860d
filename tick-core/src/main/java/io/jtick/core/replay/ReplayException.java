package io.jtick.core.replay;

import io.jtick.core.wire.ErrorCode;

/** A replay request the HDB refuses: the code and message go to the consumer in an ERROR frame. */
public final class ReplayException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient ErrorCode code;

    public ReplayException(final ErrorCode code, final String message) {
        super(message);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }
}
