package io.jtick.core.tp;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateValidator;
import io.netty.buffer.ByteBuf;

import static io.jtick.core.wire.FrameDescriptor.FLAGS_OFFSET;
import static io.jtick.core.wire.FrameDescriptor.FLAG_STAMP_TIME;
import static io.jtick.core.wire.FrameDescriptor.SEQUENCE_OFFSET;

/**
 * The checks a feed's update passes before the tickerplant takes it: whether this tickerplant takes
 * feeds at all (a chained one does not, nor a cluster's follower), whether the update is valid and,
 * from a numbered feed, carries its number; in cluster mode the leader then offers it to the
 * replicated log ({@link #offer}); an update that asks for it gets the TP time in its rows
 * ({@link #stampTime}). A refusal is counted, and {@link #reason} says why (the tickerplant
 * keeps it as its {@code lastError}). No state of its own but that reason and a decoder's scratch; the validator is the
 * tickerplant's, whose table it reads next. Tickerplant thread only.
 */
final class UpdateGate {
    private final TickerplantSettings settings;
    /** Cluster mode: the log this node offers feeds' updates to (null: a single tickerplant). */
    private final ReplicatedLog log;
    private final UpdateValidator validator;
    private final TickerplantCounters counters;
    private final UpdateDecoder stamper = new UpdateDecoder();
    private String reason;

    UpdateGate(final TickerplantSettings settings, final ReplicatedLog log, final UpdateValidator validator,
               final TickerplantCounters counters) {
        this.settings = settings;
        this.log = log;
        this.validator = validator;
        this.counters = counters;
    }

    /** Null, or why this tickerplant refuses a feed: chained (its updates come from upstream only), or a cluster's follower. */
    String takesNoFeeds() {
        if (log != null) {
            return log.isLeader() ? null : log.notLeaderReason(false);
        }
        return settings.chained() ? "this tickerplant is chained and takes no feeds [upstream=" + settings.upstreamHost() + ":"
            + settings.upstreamPort() + "]" : null;
    }

    /**
     * Checks an update before it is journalled or offered to the log: valid, and carrying its number
     * when it comes from a numbered {@code feed}; a bad one is counted ({@link #reason}).
     */
    ErrorCode check(final FeedRegistry.Feed feed, final ByteBuf frame, final int offset, final int length) {
        final ErrorCode code = validator.validate(frame, offset, length);
        if (code != ErrorCode.NONE) {
            counters.error(code);
            reason = validator.reason();
            return code;
        }
        if (feed != null && frame.getLongLE(offset + SEQUENCE_OFFSET) <= 0) {
            counters.error(ErrorCode.MALFORMED_FRAME);
            reason = "a numbered feed sent an update without its number [feed=" + feed.name + ", feedSequence="
                + frame.getLongLE(offset + SEQUENCE_OFFSET) + "]";
            return ErrorCode.MALFORMED_FRAME;
        }
        return ErrorCode.NONE;
    }

    /**
     * Cluster mode, a feed's update: checked here (a bad one is refused to its sender at once, as on
     * a single tickerplant), then offered to the log on the leader; it is journalled, published and
     * acknowledged once committed ({@link Tickerplant#applyUpdate}). A follower refuses it with the
     * leader's address, a node that cannot commit with {@link ErrorCode#NO_QUORUM}.
     */
    ErrorCode offer(final UpdateSource from, final ByteBuf frame, final int offset, final int length) {
        if (!log.isLeader()) {
            counters.error(ErrorCode.NOT_LEADER);
            reason = log.notLeaderReason(from != null && from.kdb());
            return ErrorCode.NOT_LEADER;
        }
        final FeedRegistry.Feed feed = from == null ? null : from.feed();
        final ErrorCode code = check(feed, frame, offset, length);
        if (code != ErrorCode.NONE) {
            return code;
        }
        final long feedSequence = feed == null ? 0 : frame.getLongLE(offset + SEQUENCE_OFFSET);
        final ErrorCode offered = log.offerUpdate(from, feed == null ? null : feed.nameBytes, feedSequence, frame, offset, length);
        if (offered != ErrorCode.NONE) {
            counters.error(offered);
            reason = offered == ErrorCode.NOT_LEADER ? log.notLeaderReason(from != null && from.kdb())
                : "the cluster cannot commit updates now (no quorum, or the log is not reachable): reconnect and resend";
        }
        return offered;
    }

    /**
     * An update whose feed asked the tickerplant to stamp its rows' time (FLAG_STAMP_TIME) gets TP time
     * {@code now} in every row, and the flag cleared; any other is left as it is.
     */
    void stampTime(final ByteBuf frame, final int offset, final long now) {
        final int flags = frame.getUnsignedShortLE(offset + FLAGS_OFFSET);
        if ((flags & FLAG_STAMP_TIME) == 0) {
            return;
        }
        final UpdateDecoder d = stamper.wrap(frame, offset);
        final int base = d.dataOffset(TableSchema.TIME);
        for (int r = 0, rows = d.rowCount(); r < rows; r++) {
            frame.setLongLE(base + (r << 3), now);
        }
        frame.setShortLE(offset + FLAGS_OFFSET, flags & ~FLAG_STAMP_TIME);
    }

    /** Why the last update was refused here. */
    String reason() {
        return reason;
    }
}
