package io.jtick.core.tp;

import io.jtick.core.wire.ErrorCode;
import io.netty.buffer.ByteBuf;

/**
 * Cluster mode: the replicated log a tickerplant node puts what changes its journal into (implemented
 * by the cluster package's ClusterNode on Aeron Cluster). A node's front ends never journal
 * a feed's update themselves: on the leader they offer it here, and every node's tickerplant journals
 * and publishes it once it is committed, in log order ({@link Tickerplant#applyUpdate}). Followers
 * refuse feeds ({@link ErrorCode#NOT_LEADER}); a node that cannot commit refuses them too
 * ({@link ErrorCode#NO_QUORUM}). Every method runs on the tickerplant thread.
 */
public interface ReplicatedLog {

    /** True while this node is the leader and can offer to the log. */
    boolean isLeader();

    /**
     * Why a feed is refused here, as {@link io.jtick.core.wire.LeaderHint#reason} words it: the leader's
     * address on the native port ({@code kdb} false) or the kdb+ port.
     */
    String notLeaderReason(boolean kdb);

    /**
     * Offers one validated update frame from {@code from} (null: nobody to pause or tell) to the log:
     * {@code feed}, the numbered feed's name in ASCII (null when not numbered), and its number
     * {@code feedSequence} go with it. Returns {@link ErrorCode#NONE}, or why it could not
     * ({@link ErrorCode#NOT_LEADER}, {@link ErrorCode#NO_QUORUM}); then nothing of it was offered. When
     * the log is back-pressured the update may wait, in order, with its sender paused
     * ({@link UpdateSource#pauseInput}); if it then cannot be offered it is refused to the sender
     * ({@link UpdateSource#refuse}).
     */
    ErrorCode offerUpdate(UpdateSource from, byte[] feed, long feedSequence, ByteBuf frame, int offset, int length);

    /** Offers end of day ({@code POST /api/eod} on the leader). */
    ErrorCode offerEndOfDay();

    /** Offers a publish-mode change ({@code PUT /api/mode} on the leader). */
    ErrorCode offerMode(PublishMode mode, long timerNanos);

    /**
     * This node's tickerplant cannot apply a committed entry (its journal refused it): its journal
     * would no longer match the others', so it leaves the cluster and must be restarted (it then
     * replays the log into its journal again).
     */
    void diverged(String reason);
}
