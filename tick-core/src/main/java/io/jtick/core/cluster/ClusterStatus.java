package io.jtick.core.cluster;

import java.util.List;

/**
 * {@code GET /api/cluster} of one node: its id and role ({@code leader}, {@code follower},
 * {@code candidate}, or {@code diverged} once its journal no longer matches the log), whether it takes
 * feeds now (the leader, once its ingress to the log is connected), the leader it
 * knows and its native-port address, the leadership term, this node's commit position and the
 * position its tickerplant has applied, the snapshots its consensus module has taken since it started
 * (one after each end of day), and each member's log position and lag behind this node's
 * commit position (-1 where not known: the leader knows the followers' positions best).
 */
public record ClusterStatus(boolean enabled, int memberId, String role, boolean acceptsFeeds, int leaderId, String leader, long term,
                            long commitPosition,
                            long appliedPosition, long snapshots, List<Member> members, String diverged) {

    /** One member as this node sees it. */
    public record Member(int id, String address, boolean leader, long logPosition, long lagBytes) {
    }

    /** A single tickerplant's answer. */
    public static ClusterStatus disabled() {
        return new ClusterStatus(false, -1, null, false, -1, null, -1, -1, -1, 0, List.of(), null);
    }
}
