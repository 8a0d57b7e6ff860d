package io.jtick.core.cluster;

import io.aeron.Aeron;
import io.aeron.archive.Archive;
import io.aeron.archive.ArchiveThreadingMode;
import io.aeron.archive.client.AeronArchive;
import io.aeron.cluster.ClusteredMediaDriver;
import io.aeron.cluster.ConsensusModule;
import io.aeron.cluster.NanosecondClusterClock;
import io.aeron.cluster.client.AeronCluster;
import io.aeron.cluster.service.Cluster;
import io.aeron.cluster.service.ClusteredServiceContainer;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.jtick.core.journal.Journal;
import io.jtick.core.metrics.LatencyStats;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.tp.PublishMode;
import io.jtick.core.tp.ReplicatedLog;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantSettings;
import io.jtick.core.tp.UpdateSource;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.LeaderHint;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.ScheduledFuture;
import org.agrona.CloseHelper;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * One tickerplant node of a cluster (docs/ha.md): Aeron Cluster's media driver, archive (which
 * records the log), consensus module (Raft: elections, replication, commit) and the clustered
 * service ({@link TickService}) in this process, beside the node's {@link TickerplantServer}.
 *
 * <p>Threads: the service's callbacks run on the service container's thread, which hands each
 * committed entry to the tickerplant thread in log order ({@link TickerplantServer#execute}); the
 * {@link ReplicatedLog} methods run on the tickerplant thread, which on the leader owns the ingress
 * ({@link LeaderIngress}: an {@link AeronCluster} session over IPC to this node's consensus module, so
 * an update reaches the log without a network hop on the leader, and what waits out the log's back
 * pressure) and polls it in its housekeeping; status reads
 * come from any thread and read volatile fields and Aeron's counters.
 *
 * <p>Acknowledged means committed: a feed's FEED_ACK is sent when its update is applied, and the
 * service only sees entries a majority has recorded. A leader cut off from the others cannot commit,
 * so it applies (and acknowledges) nothing new, and loses its role at the next election it hears of.
 */
public final class ClusterNode implements ReplicatedLog, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterNode.class);
    /**
     * Aeron's liveness timeouts between a driver and its clients (10 s by default): a node stopped for
     * longer (SIGSTOP, a long pause) would find its own clients timed out when it resumes and leave the
     * cluster for good. A minute covers any stall a node should survive; failover does not depend on it
     * (the leader heartbeat timeout decides that).
     */
    private static final long LIVENESS_TIMEOUT_MS = 60_000;

    static {
        // read once by Aeron when its CommonContext class loads: every client Aeron Cluster makes inside takes it
        if (System.getProperty("aeron.driver.timeout") == null) {
            System.setProperty("aeron.driver.timeout", Long.toString(LIVENESS_TIMEOUT_MS));
        }
    }

    private final ClusterSettings settings;
    private final TickerplantSettings tpSettings;
    private final int termLength;
    private final TickService service;
    private final LatencyStats commitLatency;
    private final AtomicLong elections;
    private final AtomicLong leaderChanges;

    private volatile Cluster.Role role = Cluster.Role.FOLLOWER;
    private volatile int leaderId = -1;
    private volatile long term = -1;
    private volatile boolean started;
    private volatile String divergedReason;

    private TickerplantServer server;
    private ClusteredMediaDriver driver;
    private ClusteredServiceContainer container;
    private volatile Aeron aeron;
    private String aeronDir;
    private ScheduledFuture<?> housekeeping;

    private final LeaderIngress ingress;
    private final ClusterCounters counters;

    public ClusterNode(final ClusterSettings settings, final TickerplantSettings tpSettings, final TickMetrics metrics) {
        this.settings = settings.validate();
        this.tpSettings = tpSettings;
        this.termLength = termLength(tpSettings.maxFrameLength());
        this.service = new TickService(this, tpSettings, settings.memberId());
        this.commitLatency = metrics.latency("tick.tp.cluster.commit",
            "feed update received by the leader to committed by a majority and applied there");
        this.elections = metrics.counter("tick.tp.cluster.elections");
        this.leaderChanges = metrics.counter("tick.tp.cluster.leader.changes");
        this.ingress = new LeaderIngress(this, settings.memberId(), metrics.counter("tick.tp.cluster.backpressured"));
        metrics.gauge("tick.tp.cluster.role", () -> role.code());
        this.counters = new ClusterCounters(settings, () -> aeron, () -> leaderId);
        metrics.gauge("tick.tp.cluster.commit.position", counters::commitPosition);
        for (final ClusterSettings.Member m : settings.members()) {
            metrics.gauge("tick.tp.cluster.lag.bytes|member=" + m.id(), () -> counters.lagOf(m.id()));
        }
    }

    /**
     * The log's term length: a message may take an eighth of a term, so 8 frames of the largest size
     * fit, and never less than 16 MB (Aeron's buffers are sparse files: pages count when written).
     */
    static int termLength(final int maxFrameLength) {
        final long need = Math.max(16L << 20, 8L * (maxFrameLength + LogCodec.UPDATE_HEADER + 256 + 64));
        final long pow2 = Long.highestOneBit(need - 1) << 1;
        if (pow2 > 1L << 30) {
            throw new IllegalArgumentException("tick.tp.max-frame-length is too large for cluster mode [maxFrameLength=" + maxFrameLength
                + "]: a log message may be at most 1/8 of Aeron's largest term (1 GB); use 64MB or less");
        }
        return (int) pow2;
    }

    /**
     * Starts the node's Aeron components beside {@code tickerplant} (already started, with this node as
     * its {@link ReplicatedLog}) and waits until a leader is known and the log's state applied. Refuses
     * a journal directory that holds entries when this node has no log yet (they would not be the
     * cluster's), and gives up after {@code startTimeout}, naming the members it did not hear from.
     */
    public ClusterNode start(final TickerplantServer tickerplant) {
        this.server = tickerplant;
        final Path clusterDir = settings.dir().resolve("cluster");
        final boolean fresh = !Files.exists(clusterDir.resolve("recording.log"));
        if (fresh && Journal.lastSequenceBefore(tpSettings.journalDir(), LocalDate.MAX) > 0) {
            throw new IllegalStateException("this cluster node has no log yet but its journal directory holds entries [journal="
                + tpSettings.journalDir() + ", clusterDir=" + settings.dir() + "]: a node starts from an empty journal directory "
                + "and gets the cluster's journal from the log (move the old journal away, or point tick.tp.journal-dir elsewhere)");
        }
        aeronDir = aeronDir();
        final ClusterSettings.Member self = settings.self();
        final Supplier<IdleStrategy> idle = ClusterNode::idle;
        final MediaDriver.Context driverCtx = new MediaDriver.Context()
            .aeronDirectoryName(aeronDir)
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(idle.get())
            .termBufferSparseFile(true)
            .ipcTermBufferLength(termLength)
            .publicationTermBufferLength(termLength)
            .clientLivenessTimeoutNs(TimeUnit.MILLISECONDS.toNanos(LIVENESS_TIMEOUT_MS))
            .publicationUnblockTimeoutNs(TimeUnit.MILLISECONDS.toNanos(LIVENESS_TIMEOUT_MS + 15_000))
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .errorHandler(e -> report("media driver", e));
        final AeronArchive.Context replicationArchive = new AeronArchive.Context()
            .controlResponseChannel("aeron:udp?endpoint=" + self.host() + ":0");
        final Archive.Context archiveCtx = new Archive.Context()
            .aeronDirectoryName(aeronDir)
            .archiveDir(settings.dir().resolve("archive").toFile())
            .archiveId(settings.memberId())
            .controlChannel("aeron:udp?endpoint=" + self.endpoint(ClusterSettings.ARCHIVE))
            .archiveClientContext(replicationArchive)
            .localControlChannel("aeron:ipc?term-length=64k")
            .replicationChannel("aeron:udp?endpoint=" + self.host() + ":0")
            .recordingEventsEnabled(false)
            .threadingMode(ArchiveThreadingMode.SHARED)
            .idleStrategySupplier(idle)
            .segmentFileLength(Math.max(128 << 20, termLength))
            .deleteArchiveOnStart(false)
            .errorHandler(e -> report("archive", e));
        final AeronArchive.Context archiveClient = new AeronArchive.Context()
            .lock(NoOpLock.INSTANCE)
            .controlRequestChannel(archiveCtx.localControlChannel())
            .controlResponseChannel(archiveCtx.localControlChannel())
            .aeronDirectoryName(aeronDir);
        final ConsensusModule.Context consensusCtx = new ConsensusModule.Context()
            .clusterMemberId(settings.memberId())
            .clusterMembers(settings.aeronMembers())
            .clusterDir(clusterDir.toFile())
            .ingressChannel("aeron:udp?term-length=64k")
            .isIpcIngressAllowed(true)
            .logChannel("aeron:udp?term-length=" + termLength)
            .replicationChannel("aeron:udp?endpoint=" + self.host() + ":0")
            .archiveContext(archiveClient.clone())
            .idleStrategySupplier(idle)
            .clusterClock(new NanosecondClusterClock())
            .leaderHeartbeatTimeoutNs(settings.leaderHeartbeatTimeout().toNanos())
            .leaderHeartbeatIntervalNs(settings.leaderHeartbeatInterval().toNanos())
            .electionTimeoutNs(settings.electionTimeout().toNanos())
            .startupCanvassTimeoutNs(settings.startupCanvassTimeout().toNanos())
            .deleteDirOnStart(false)
            .errorHandler(e -> report("consensus module", e))
            .terminationHook(() -> LOG.warn("cluster consensus module terminated [member={}]", settings.memberId()));
        final ClusteredServiceContainer.Context serviceCtx = new ClusteredServiceContainer.Context()
            .aeronDirectoryName(aeronDir)
            .archiveContext(archiveClient.clone())
            .clusterDir(clusterDir.toFile())
            .clusteredService(service)
            .idleStrategySupplier(idle)
            .errorHandler(e -> report("service", e))
            .terminationHook(() -> LOG.warn("cluster service terminated [member={}]", settings.memberId()));
        // a process of this member killed moments ago left mark files Aeron would take for a running one
        StaleMarkFiles.await(archiveCtx.archiveDir(), clusterDir.toFile(), settings.memberId(), StaleMarkFiles.AERON_LIVENESS_MS, 3_000);
        try {
            driver = ClusteredMediaDriver.launch(driverCtx, archiveCtx, consensusCtx);
            container = ClusteredServiceContainer.launch(serviceCtx);
            aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(aeronDir).driverTimeoutMs(LIVENESS_TIMEOUT_MS));
            housekeeping = server.loop().scheduleAtFixedRate(this::housekeeping, 50, 50, TimeUnit.MILLISECONDS);
            awaitLeader();
        } catch (final RuntimeException e) {
            close();
            throw e;
        }
        LOG.info("cluster node started [member={}, role={}, leader={}, term={}, members={}, dir={}, aeronDir={}, logTermLength={}]",
            settings.memberId(), role, leaderId, term, settings.members().size(), settings.dir(), aeronDir, termLength);
        return this;
    }

    /** Aeron's events (a heartbeat timeout, an election) are warnings; anything else is an error. */
    private void report(final String component, final Throwable e) {
        if (e instanceof io.aeron.cluster.client.ClusterEvent) {
            LOG.warn("cluster {} [member={}]: {}", component, settings.memberId(), e.getMessage());
        } else {
            LOG.error("cluster {} error [member={}]", component, settings.memberId(), e);
        }
    }

    private static IdleStrategy idle() {
        // on 2 cores busy-spinning agents starve the Netty threads: spin briefly, then park up to 100 µs
        return new BackoffIdleStrategy(20, 10, 1_000, 100_000);
    }

    private String aeronDir() {
        if (settings.aeronDir() != null) {
            return settings.aeronDir().toString();
        }
        final File shm = new File("/dev/shm");
        final String name = "jtick-aeron-" + settings.memberId() + "-" + Integer.toHexString(settings.dir().toAbsolutePath().hashCode());
        return shm.isDirectory() && shm.canWrite() ? new File(shm, name).getPath() : settings.dir().resolve("driver").toString();
    }

    private void awaitLeader() {
        long lastMembershipQuery = 0;
        final long deadline = System.nanoTime() + settings.startTimeout().toNanos();
        while (!(leaderId >= 0 && started && reachedConsensusTerm())) {
            if (System.nanoTime() - deadline > 0) {
                final List<String> others = new ArrayList<>();
                for (final ClusterSettings.Member m : settings.members()) {
                    if (m.id() != settings.memberId()) {
                        others.add(m.id() + "=" + m.host() + ":" + m.portBase() + ".." + (m.portBase() + ClusterSettings.PORTS - 1));
                    }
                }
                throw new IllegalStateException("no cluster leader within " + settings.startTimeout().toSeconds() + " s [member="
                    + settings.memberId() + "]: a majority of the members must be running and reachable over UDP; not heard from: "
                    + String.join(", ", others));
            }
            if (started && System.nanoTime() - lastMembershipQuery > 500_000_000L) {
                // a node that rejoins a term from a snapshot replays no new-term event: ask the consensus module
                lastMembershipQuery = System.nanoTime();
                final long consensusTerm = counters.liveTerm();
                final int leader = counters.leaderOfConsensus();
                if (leader >= 0 && consensusTerm >= 0 && (leaderId < 0 || term < consensusTerm)) {
                    leaderId = leader;
                    term = consensusTerm;
                    server.execute(t -> followRole());
                }
            }
            try {
                Thread.sleep(10);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for a cluster leader", e);
            }
        }
    }

    /**
     * Whether the service has applied the leadership term the consensus module joined: a node that replays the log from
     * its start meets the old terms' leaders first.
     */
    private boolean reachedConsensusTerm() {
        final long consensusTerm = counters.liveTerm();
        return consensusTerm >= 0 && term >= consensusTerm;
    }

    // ------------------------------------------------------------------ from the service thread

    void roleChanged(final Cluster.Role newRole) {
        role = newRole;
        LOG.info("cluster role [member={}, role={}, leader={}, term={}]", settings.memberId(), newRole, leaderId, term);
        if (server != null) {
            server.execute(t -> followRole());
        }
    }

    void newTerm(final long leadershipTermId, final int leader) {
        final int previous = leaderId;
        term = leadershipTermId;
        leaderId = leader;
        elections.incrementAndGet();
        if (previous >= 0 && previous != leader) {
            leaderChanges.incrementAndGet();
        }
        LOG.info("cluster leadership term [member={}, term={}, leader={}, previousLeader={}]", settings.memberId(), leadershipTermId,
            leader, previous);
        if (server != null) {
            server.execute(t -> followRole());
        }
    }

    void stateApplied() {
        started = true;
    }

    TickerplantServer server() {
        return server;
    }

    /** Committed on the leader that offered it: how long from the feed's update reaching it to applied. */
    void committed(final int origin, final long ingressNanos) {
        if (origin == settings.memberId()) {
            commitLatency.record(System.nanoTime() - ingressNanos);
        }
    }

    // ------------------------------------------------------------------ ReplicatedLog, tickerplant thread

    /** True while this node leads and its ingress to the log is connected: feeds sent here are taken. */
    public boolean acceptsFeeds() {
        return isLeader() && ingress.connected();
    }

    @Override
    public boolean isLeader() {
        return role == Cluster.Role.LEADER && divergedReason == null;
    }

    @Override
    public String notLeaderReason(final boolean kdb) {
        final ClusterSettings.Member leader = leaderId >= 0 && leaderId != settings.memberId() ? settings.member(leaderId) : null;
        if (leader == null || kdb && leader.kdbPort() == 0) {
            return LeaderHint.reason(null, 0);
        }
        return LeaderHint.reason(leader.host(), kdb ? leader.kdbPort() : leader.tpPort());
    }

    @Override
    public ErrorCode offerUpdate(final UpdateSource from, final byte[] feed, final long feedSequence, final ByteBuf frame,
                                 final int offset, final int length) {
        return isLeader() ? ingress.offerUpdate(from, feed, feedSequence, frame, offset, length) : ErrorCode.NOT_LEADER;
    }

    @Override
    public ErrorCode offerEndOfDay() {
        return isLeader() ? ingress.offerEndOfDay() : ErrorCode.NOT_LEADER;
    }

    @Override
    public ErrorCode offerMode(final PublishMode mode, final long timerNanos) {
        return isLeader() ? ingress.offerMode(mode, timerNanos) : ErrorCode.NOT_LEADER;
    }

    @Override
    public void diverged(final String reason) {
        if (divergedReason != null) {
            return;
        }
        divergedReason = reason;
        LOG.error("this cluster node's journal no longer matches the log; it leaves the cluster and must be restarted [member={}]: {}",
            settings.memberId(), reason);
        final Thread t = new Thread(this::closeAeron, "cluster-node-leave");
        t.setDaemon(true);
        t.start();
    }

    /**
     * On the tickerplant thread: the ingress session follows the role; a node that stops leading
     * refuses what waited for the log and closes its numbered feeds (they go to the new leader).
     */
    void followRole() {
        if (isLeader()) {
            ingress.connect(aeron, term);
        } else {
            ingress.refuseWaiting(ErrorCode.NOT_LEADER, null);
            ingress.close();
            server.tickerplant().leadershipLost();
        }
    }

    private void housekeeping() {
        try {
            if (!ingress.housekeeping() && isLeader()) {
                followRole();
            }
        } catch (final RuntimeException e) {
            LOG.warn("cluster ingress housekeeping failed [member={}]: {}", settings.memberId(), e.toString());
            ingress.close();
        }
    }

    // ------------------------------------------------------------------ status, any thread

    /** What {@code GET /api/cluster} shows. */
    public ClusterStatus status() {
        final int leader = leaderId;
        final ClusterSettings.Member l = leader >= 0 ? settings.member(leader) : null;
        return new ClusterStatus(true, settings.memberId(), divergedReason != null ? "diverged" : counters.role(role), acceptsFeeds(),
            leader, l == null ? null : l.address(false), Math.max(term, counters.term()), counters.commitPosition(),
            service.appliedPosition(), Math.max(0, counters.snapshots()), counters.members(), divergedReason);
    }

    public ClusterSettings settings() {
        return settings;
    }

    // ------------------------------------------------------------------ close

    @Override
    public void close() {
        if (server != null && server.loop() != null && !server.loop().isShuttingDown()) {
            try {
                server.loop().submit(() -> {
                    if (housekeeping != null) {
                        housekeeping.cancel(false);
                    }
                    ingress.shutdown();
                }).get(5, TimeUnit.SECONDS);
            } catch (final Exception e) {
                LOG.warn("cluster ingress close failed: {}", e.toString());
            }
        }
        closeAeron();
    }

    private synchronized void closeAeron() {
        CloseHelper.quietCloseAll(aeron, container, driver);
        aeron = null;
        container = null;
        driver = null;
        role = Cluster.Role.FOLLOWER;
    }
}
