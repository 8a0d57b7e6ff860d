package io.jtick.core.replay;

import io.netty.buffer.ByteBuf;

/**
 * One encoded UPDATE frame of a replay and where its reader stood after it. The frame's bytes are
 * the same for every consumer of the stream (its header's {@code sequence} is the stream's row
 * count through this frame), so a stream encodes it once and writes a duplicate to each.
 *
 * @param buf       the frame (owner: the stream's ring, or the session that read it on its own)
 * @param table     table index in the request
 * @param rows      rows in the frame
 * @param firstTime time of its first row
 * @param date      index of its date in the plan
 * @param next      the reader's position after it (a consumer that leaves the stream resumes there)
 */
record ReplayFrame(ByteBuf buf, int table, int rows, long firstTime, int date, Cursor next) {

    /**
     * A reader's position: date, the window being read ({@code [windowStart, windowEnd)} of time, with
     * {@code span} the window length the next one starts from), rows of the window already framed, and
     * rows framed since the start of the replay.
     */
    record Cursor(int date, long windowStart, long windowEnd, long span, int offset, long rowsDone) {
        /** The start of a replay. */
        static final Cursor START = new Cursor(0, Long.MIN_VALUE, Long.MIN_VALUE, 0, 0, 0);
    }
}
