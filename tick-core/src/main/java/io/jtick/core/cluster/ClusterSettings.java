package io.jtick.core.cluster;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A tickerplant cluster as one node sees it ({@code tick.tp.cluster.*}): every member, this node's
 * id, where its Aeron files go, and the failure-detection timings.
 *
 * @param memberId                this node's id, one of the members'
 * @param members                 every member (3 or 5 for tolerance of 1 or 2 losses; any odd count is taken)
 * @param dir                     this node's cluster directory (the consensus module's state and the archive that holds the log)
 * @param aeronDir                the media driver's directory (null: {@code /dev/shm/jtick-aeron-<id>-<dir hash>} where
 *                                /dev/shm exists, else under {@code dir})
 * @param leaderHeartbeatTimeout  a follower that hears nothing from the leader for this long starts an election
 * @param leaderHeartbeatInterval how often the leader tells the followers it lives
 * @param electionTimeout         how long a candidate waits for votes
 * @param startupCanvassTimeout   at a cold start, how long a node waits to hear from every member before an election with a majority
 * @param startTimeout            how long start waits for a leader before it gives up, naming the members it could not reach
 */
public record ClusterSettings(int memberId, List<Member> members, Path dir, Path aeronDir, Duration leaderHeartbeatTimeout,
                              Duration leaderHeartbeatInterval, Duration electionTimeout, Duration startupCanvassTimeout,
                              Duration startTimeout) {

    /** Aeron ports from a member's port base: ingress, consensus, log, catch-up, archive control. */
    static final int INGRESS = 0;
    static final int CONSENSUS = 1;
    static final int LOG = 2;
    static final int CATCHUP = 3;
    static final int ARCHIVE = 4;
    static final int PORTS = 5;

    /**
     * One member: {@code id=host:tpPort:kdbPort:clusterPortBase} in {@code tick.tp.cluster.members}.
     *
     * @param tpPort   its native port (feeds and subscribers)
     * @param kdbPort  its kdb+ port, 0 when it has none
     * @param portBase the first of its {@value #PORTS} UDP ports for Aeron
     */
    public record Member(int id, String host, int tpPort, int kdbPort, int portBase) {
        String endpoint(final int offset) {
            return host + ":" + (portBase + offset);
        }

        /** The member's address for feeds and subscribers of the native protocol ({@code kdb} false) or kdb+. */
        public String address(final boolean kdb) {
            return host + ":" + (kdb ? kdbPort : tpPort);
        }
    }

    /** Defaults for the timings (and no explicit driver directory). */
    public static ClusterSettings of(final int memberId, final List<Member> members, final Path dir) {
        return new ClusterSettings(memberId, members, dir, null, Duration.ofMillis(1000), Duration.ofMillis(100), Duration.ofMillis(500),
            Duration.ofSeconds(5), Duration.ofSeconds(60));
    }

    /**
     * {@code count} members on 127.0.0.1 with free ports (tests and benchmarks): each a free TCP port
     * for feeds and subscribers, no kdb+ port, and {@value #PORTS} free UDP ports from a base that is
     * a multiple of 10 (so two bases never overlap).
     */
    public static List<Member> loopback(final int count) {
        final List<Member> out = new ArrayList<>();
        final Set<Integer> bases = new HashSet<>();
        for (int id = 0; id < count; id++) {
            int base;
            do {
                base = freeUdpBase();
            } while (!bases.add(base));
            try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                out.add(new Member(id, "127.0.0.1", s.getLocalPort(), 0, base));
            } catch (final java.io.IOException e) {
                throw new IllegalStateException("no free TCP port on loopback", e);
            }
        }
        return out;
    }

    private static int freeUdpBase() {
        while (true) {
            final int base = 10 * java.util.concurrent.ThreadLocalRandom.current().nextInt(2_000, 4_000);
            boolean free = true;
            for (int k = 0; k < PORTS && free; k++) {
                try (java.net.DatagramSocket s = new java.net.DatagramSocket(base + k, InetAddress.getLoopbackAddress())) {
                    free = s.getLocalPort() == base + k;
                } catch (final java.io.IOException e) {
                    free = false;
                }
            }
            if (free) {
                return base;
            }
        }
    }

    /**
     * Parses {@code tick.tp.cluster.members}: comma-separated {@code id=host:tpPort:kdbPort:clusterPortBase}.
     * Throws {@link IllegalArgumentException} naming the entry that is not of that form.
     */
    public static List<Member> parseMembers(final String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException(
                "tick.tp.cluster.members is empty: list every member as id=host:tpPort:kdbPort:clusterPortBase");
        }
        final List<Member> out = new ArrayList<>();
        for (final String raw : text.split(",")) {
            final String e = raw.trim();
            final int eq = e.indexOf('=');
            final String[] p = eq < 0 ? new String[0] : e.substring(eq + 1).split(":");
            if (eq <= 0 || p.length != 4 || p[0].isBlank()) {
                throw new IllegalArgumentException("bad cluster member [entry=" + e + "]: expected id=host:tpPort:kdbPort:clusterPortBase");
            }
            try {
                out.add(new Member(Integer.parseInt(e.substring(0, eq).trim()), p[0].trim(), Integer.parseInt(p[1].trim()),
                    Integer.parseInt(p[2].trim()), Integer.parseInt(p[3].trim())));
            } catch (final NumberFormatException x) {
                throw new IllegalArgumentException("bad cluster member [entry=" + e + "]: id and ports must be numbers", x);
            }
        }
        return out;
    }

    /**
     * Refuses what cannot make a cluster, naming it: an even member count, duplicate ids, this node not
     * among the members, ports out of range or shared, hosts that do not resolve, timings out of order.
     */
    public ClusterSettings validate() {
        if (members == null || members.isEmpty()) {
            throw new IllegalArgumentException("a cluster needs members (tick.tp.cluster.members)");
        }
        if (members.size() % 2 == 0) {
            throw new IllegalArgumentException("a cluster needs an odd number of members, so that a majority survives a split "
                + "[members=" + members.size() + "]: use 3 or 5");
        }
        final Set<Integer> ids = new HashSet<>();
        final Set<String> ports = new HashSet<>();
        for (final Member m : members) {
            if (!ids.add(m.id())) {
                throw new IllegalArgumentException("duplicate cluster member id [id=" + m.id() + "]");
            }
            if (m.id() < 0) {
                throw new IllegalArgumentException("a cluster member id must be 0 or more [id=" + m.id() + "]");
            }
            checkPort(m, "tpPort", m.tpPort(), false);
            checkPort(m, "kdbPort", m.kdbPort(), true);
            checkPort(m, "clusterPortBase", m.portBase(), false);
            if (m.portBase() + PORTS - 1 > 65535) {
                throw new IllegalArgumentException("cluster port base leaves no room for its " + PORTS + " ports [member=" + m.id()
                    + ", clusterPortBase=" + m.portBase() + "]");
            }
            for (int k = 0; k < PORTS; k++) {
                if (!ports.add(m.host() + ":" + (m.portBase() + k))) {
                    throw new IllegalArgumentException("two cluster members share a port [member=" + m.id() + ", port=" + (m.portBase() + k)
                        + "]: each needs " + PORTS + " ports from its clusterPortBase");
                }
            }
            try {
                InetAddress.getByName(m.host());
            } catch (final UnknownHostException e) {
                throw new IllegalArgumentException("cluster member's host does not resolve [member=" + m.id() + ", host=" + m.host()
                    + "]", e);
            }
        }
        if (!ids.contains(memberId)) {
            throw new IllegalArgumentException("this node is not among the cluster members [member-id=" + memberId + ", members="
                + ids + "]");
        }
        if (dir == null) {
            throw new IllegalArgumentException("tick.tp.cluster.dir is not set");
        }
        if (leaderHeartbeatInterval.compareTo(leaderHeartbeatTimeout) >= 0) {
            throw new IllegalArgumentException("the leader heartbeat interval must be shorter than its timeout [interval="
                + leaderHeartbeatInterval + ", timeout=" + leaderHeartbeatTimeout + "]");
        }
        return this;
    }

    private static void checkPort(final Member m, final String what, final int port, final boolean zeroAllowed) {
        if (port < (zeroAllowed ? 0 : 1) || port > 65535) {
            throw new IllegalArgumentException("cluster member port out of range [member=" + m.id() + ", " + what + "=" + port + "]");
        }
    }

    /** This node. */
    public Member self() {
        return member(memberId);
    }

    /** The member with {@code id}, or null. */
    public Member member(final int id) {
        for (final Member m : members) {
            if (m.id() == id) {
                return m;
            }
        }
        return null;
    }

    /** Aeron's {@code clusterMembers}: {@code id,ingress,consensus,log,catchup,archive|...}. */
    String aeronMembers() {
        final StringBuilder sb = new StringBuilder();
        for (final Member m : members) {
            sb.append(m.id()).append(',').append(m.endpoint(INGRESS)).append(',').append(m.endpoint(CONSENSUS)).append(',')
                .append(m.endpoint(LOG)).append(',').append(m.endpoint(CATCHUP)).append(',').append(m.endpoint(ARCHIVE)).append('|');
        }
        return sb.toString();
    }
}
