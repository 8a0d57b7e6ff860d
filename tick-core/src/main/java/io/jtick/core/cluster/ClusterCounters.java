package io.jtick.core.cluster;

import io.aeron.Aeron;
import io.aeron.AeronCounters;
import io.aeron.cluster.ClusterMember;
import io.aeron.cluster.ClusterMembership;
import io.aeron.cluster.ClusterTool;
import io.aeron.cluster.ElectionState;
import io.aeron.cluster.service.Cluster;
import org.agrona.concurrent.status.CountersReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * What a node reads of its consensus module for {@code GET /api/cluster} and the gauges, from any
 * thread: Aeron's counters (role, commit position, leadership term) and the members' log positions
 * the consensus module answers {@link ClusterTool#listMembers} with (asked at most every 2 s).
 */
final class ClusterCounters {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterCounters.class);
    private static final long MEMBERS_TTL_NANOS = 2_000_000_000L;

    private final ClusterSettings settings;
    private final Supplier<Aeron> aeron;
    private final IntSupplier leaderId;
    private List<ClusterStatus.Member> members = List.of();
    private long membersAtNanos;

    /**
     * @param aeron    the node's Aeron client, null while it has none
     * @param leaderId the leader this node knows, -1 when none
     */
    ClusterCounters(final ClusterSettings settings, final Supplier<Aeron> aeron, final IntSupplier leaderId) {
        this.settings = settings;
        this.aeron = aeron;
        this.leaderId = leaderId;
    }

    /** The role Aeron's counter shows (candidate included), or {@code fallback} without one; lower case. */
    String role(final Cluster.Role fallback) {
        final long code = counter(AeronCounters.CLUSTER_NODE_ROLE_TYPE_ID);
        final Cluster.Role r = code >= 0 && code <= 2 ? Cluster.Role.get(code) : fallback;
        return r.name().toLowerCase(Locale.ROOT);
    }

    /** This node's commit position, -1 before it has one. */
    long commitPosition() {
        return counter(AeronCounters.CLUSTER_COMMIT_POSITION_TYPE_ID);
    }

    /** The snapshots this node's consensus module has taken since it started, -1 before it runs. */
    long snapshots() {
        return counter(AeronCounters.CLUSTER_SNAPSHOT_COUNTER_TYPE_ID);
    }

    /** The leadership term the consensus module is in, -1 before one. */
    long term() {
        return counter(AeronCounters.CLUSTER_LEADERSHIP_TERM_ID_TYPE_ID);
    }

    /** The consensus module's term once its election has closed (until then it steps through the log's old terms), else -1. */
    long liveTerm() {
        return counter(AeronCounters.CLUSTER_ELECTION_STATE_TYPE_ID) == ElectionState.CLOSED.code() ? term() : -1;
    }

    private long counter(final int typeId) {
        final Aeron a = aeron.get();
        if (a == null || a.isClosed()) {
            return -1;
        }
        final CountersReader counters = a.countersReader();
        final long[] value = {-1};
        counters.forEach((counterId, type, key, label) -> {
            if (type == typeId) {
                value[0] = counters.getCounterValue(counterId);
            }
        });
        return value[0];
    }

    /** The leader the consensus module names, or -1 (a node that rejoins a term from a snapshot replays no new-term event). */
    int leaderOfConsensus() {
        final ClusterMembership membership = new ClusterMembership();
        return query(membership) ? membership.leaderMemberId : -1;
    }

    private boolean query(final ClusterMembership membership) {
        try {
            return ClusterTool.listMembers(membership, settings.dir().resolve("cluster").toFile(), 500);
        } catch (final RuntimeException e) {
            LOG.debug("cluster members not listed: {}", e.toString());
            return false;
        }
    }

    /** How far member {@code id} is behind this node's commit position, -1 when not known. */
    long lagOf(final int id) {
        for (final ClusterStatus.Member m : members()) {
            if (m.id() == id) {
                return m.lagBytes();
            }
        }
        return -1;
    }

    /** Every member's log position as this node's consensus module knows it, and its lag (cached for 2 s). */
    synchronized List<ClusterStatus.Member> members() {
        final long now = System.nanoTime();
        if (now - membersAtNanos < MEMBERS_TTL_NANOS && !members.isEmpty()) {
            return members;
        }
        membersAtNanos = now;
        final ClusterMembership membership = new ClusterMembership();
        final boolean known = aeron.get() != null && query(membership) && membership.activeMembers != null;
        final long commit = commitPosition();
        final List<ClusterStatus.Member> out = new ArrayList<>();
        for (final ClusterSettings.Member m : settings.members()) {
            long position = -1;
            if (known) {
                for (final ClusterMember cm : membership.activeMembers) {
                    if (cm.id() == m.id()) {
                        position = cm.logPosition();
                    }
                }
            }
            out.add(new ClusterStatus.Member(m.id(), m.address(false), m.id() == leaderId.getAsInt(), position,
                position < 0 || commit < 0 ? -1 : Math.max(0, commit - position)));
        }
        members = out;
        return out;
    }
}
