package io.jtick.core.tp;

import io.jtick.core.journal.JournalReader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.WrappedByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;

/**
 * One subscription's state; owned by the tickerplant thread. Live frames it shares with the other
 * subscribers ({@link #writeShared}) are held as one pending run while each starts where the last ended
 * in the same buffer (the updates of one feed read lie back to back in it), and written as one slice by
 * {@link #writePending}: one outbound entry, one refcount and one iovec per read batch, not per update.
 */
final class Subscriber {
    final long id;
    final Channel channel;
    final String name;
    final boolean[] tables;
    final SymFilter filter;
    /** A kdb+ client: receives {@code (`upd;`t;table)} and {@code (`.u.end;date)} messages instead of frames. */
    final boolean kdb;
    JournalReader catchUp;
    boolean live;
    boolean dirty;
    boolean closing;
    /** Its backlog passed the alert level and has not come back under half of it since. */
    boolean alert;
    /** Its backlog passed the limit in the publish under way: it is to be served from the journal once that ends. */
    boolean toJournal;
    /** Served from the journal ({@code catchUp}) since its backlog passed the limit; live again when that ends. */
    boolean fromJournal;
    /** END_OF_DAY waits for this catching-up subscriber to finish the day that ended ({@code catchUp} reads that day). */
    boolean endOfDayPending;
    int endOfDayEpochDay;
    long endOfDaySequence;
    long updatesSent;
    long lastSequence;
    /** The pending run: {@code pendingLength} bytes at {@code pendingAddress} in {@code pendingRoot}, held once (null: none). */
    private ByteBuf pendingRoot;
    private long pendingAddress;
    private int pendingLength;

    Subscriber(final long id, final Channel channel, final String name, final boolean[] tables, final SymFilter filter) {
        this(id, channel, name, tables, filter, false);
    }

    Subscriber(final long id, final Channel channel, final String name, final boolean[] tables, final SymFilter filter,
               final boolean kdb) {
        this.kdb = kdb;
        this.id = id;
        this.channel = channel;
        this.name = name;
        this.tables = tables;
        this.filter = filter;
    }

    /**
     * Queues bytes {@code [offset, offset + length)} of {@code frame}, which other subscribers share, after
     * what is queued: appended to the pending run when they follow it in the same buffer, else the run is
     * written and they start the next one (a heap or leak-tracked frame is written on its own). The run holds
     * its buffer's root, which no leak tracker watches (a tracked frame's root is reached only through it).
     */
    void writeShared(final ByteBuf frame, final int offset, final int length) {
        // a leak-tracked frame (sampled, or every one under paranoid detection) is a wrapper: its holds must go through it
        ByteBuf root = frame.hasMemoryAddress() ? frame : null;
        while (root != null && !(root instanceof WrappedByteBuf) && root.unwrap() != null) {
            root = root.unwrap();
        }
        if (root != null && !(root instanceof WrappedByteBuf)) {
            final long address = frame.memoryAddress() + offset;
            if (root == pendingRoot && address == pendingAddress + pendingLength) {
                pendingLength += length;
                return;
            }
            if (root.hasMemoryAddress()) {
                writePending();
                pendingRoot = root.retain();
                pendingAddress = address;
                pendingLength = length;
                return;
            }
        }
        writePending();
        channel.write(frame.retainedSlice(offset, length), channel.voidPromise());
    }

    /** Writes the pending run as one slice (not flushed); before anything else is written to this subscriber. */
    void writePending() {
        final ByteBuf root = pendingRoot;
        if (root != null) {
            pendingRoot = null;
            channel.write(root.retainedSlice((int) (pendingAddress - root.memoryAddress()), pendingLength), channel.voidPromise());
            root.release();
        }
    }

    /** Drops the pending run unsent (the subscriber is gone or disconnected as slow); returns its bytes. */
    int dropPending() {
        final ByteBuf root = pendingRoot;
        if (root == null) {
            return 0;
        }
        pendingRoot = null;
        root.release();
        return pendingLength;
    }

    /** Closes the journal reader of an unfinished catch-up (the subscriber is gone, or the tickerplant closes). */
    void closeCatchUp() {
        if (catchUp != null) {
            catchUp.close();
            catchUp = null;
        }
    }

    /** Bytes queued for this subscriber's socket, the pending run included. */
    long backlogBytes() {
        final ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
        return (out == null ? 0 : out.totalPendingWriteBytes()) + (pendingRoot == null ? 0 : pendingLength);
    }

    String state() {
        return closing ? "closing" : live ? "live" : fromJournal ? "from-journal" : "catching-up";
    }
}
