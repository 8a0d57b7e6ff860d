package io.jtick.core.hdb.format;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A partition file that does not hold what its header, index or checksums say: never returned as
 * data. The message names the file (and the block when one is at fault) and how to recover.
 */
public final class CorruptPartitionException extends IOException {
    private static final long serialVersionUID = 1L;

    private final transient Path file;
    private final int block;

    public CorruptPartitionException(final Path file, final int block, final String reason) {
        this(file, block, reason, null);
    }

    public CorruptPartitionException(final Path file, final int block, final String reason, final Throwable cause) {
        super(reason + " [file=" + file + (block >= 0 ? ", block=" + block : "") + "]; the partition is not used: restore it"
            + " from a copy, or move its table directory aside and rewrite it (RDB end of day replay)", cause);
        this.file = file;
        this.block = block;
    }

    /** The file at fault. */
    public Path file() {
        return file;
    }

    /** The block at fault, or -1 for the header, index or metadata. */
    public int block() {
        return block;
    }
}
