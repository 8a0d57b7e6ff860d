package io.jtick.core.feed;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;

/**
 * Where a feed's rows come from: the synthetic generator or a recorded file. A source appends one
 * UPDATE frame per call at the buffer's writer index, reusing the caller's encoder; it is used by
 * one thread at a time and allocates nothing per row.
 */
public interface TickSource extends AutoCloseable {
    /** {@link #nextEventTime()} of a source without recorded times (the synthetic feed). */
    long NO_TIME = Long.MIN_VALUE;
    /** {@link #nextEventTime()} of a source with no rows left. */
    long END = Long.MAX_VALUE;

    /** The table every frame of this source is for. */
    TableSchema schema();

    /** Recorded time (epoch ns) of the next row; {@link #NO_TIME} for a clocked source; {@link #END} when exhausted. */
    long nextEventTime();

    /**
     * Appends one UPDATE frame of up to {@code maxRows} rows whose recorded time is before
     * {@code dueBefore} (epoch ns, exclusive; ignored by clocked sources), with header feed time
     * {@code nowNanos}. Writes nothing and returns 0 when no row is due or the source is exhausted.
     *
     * @return rows in the frame
     */
    int encodeUpdate(UpdateEncoder encoder, ByteBuf buffer, int maxRows, long dueBefore, long nowNanos);

    /** Rows encoded so far. */
    long rowsRead();

    @Override
    void close();
}
