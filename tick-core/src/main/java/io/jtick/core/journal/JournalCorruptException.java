package io.jtick.core.journal;

/** The journal cannot be trusted; the message says which file and how to recover. Start-up stops on it. */
public final class JournalCorruptException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public JournalCorruptException(final String message) {
        super(message);
    }
}
