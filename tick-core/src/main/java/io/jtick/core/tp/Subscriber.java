package io.jtick.core.tp;

import io.jtick.core.journal.JournalReader;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;

/** One subscription's state; owned by the tickerplant thread. */
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
    /** END_OF_DAY waits for this catching-up subscriber to finish the day that ended ({@code catchUp} reads that day). */
    boolean endOfDayPending;
    int endOfDayEpochDay;
    long endOfDaySequence;
    long updatesSent;
    long lastSequence;

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

    long backlogBytes() {
        final ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
        return out == null ? 0 : out.totalPendingWriteBytes();
    }

    String state() {
        return closing ? "closing" : live ? "live" : "catching-up";
    }
}
