package io.jtick.bench.pipeline;

import io.jtick.core.rdb.RealtimeTable;
import io.jtick.core.rdb.SymbolCatalog;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.time.NanoClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;

import java.util.List;

/**
 * One system under test for one run: a transport from the feed thread to its subscribers. The feed
 * thread calls {@link #start}, then {@link #send} batches of update frames; each subscriber calls
 * its {@link Receiver} on its own thread. A new instance per run; {@link #close} stops everything
 * it started and deletes its files.
 */
abstract class PipelineSystem implements AutoCloseable {
    final TableSchema schema;
    final boolean insert;
    final NanoClock clock;

    /**
     * @param schema the table every update is for (trade)
     * @param insert true: every subscriber inserts into an RDB table; false: it only checks
     */
    PipelineSystem(final TableSchema schema, final boolean insert, final NanoClock clock) {
        this.schema = schema;
        this.insert = insert;
        this.clock = clock;
    }

    /** Short name in the result tables ({@code jtick}, {@code chronicle}, {@code kafka}, {@code kafka-rf3}). */
    abstract String name();

    /**
     * The receiving end of one more subscriber, before {@link #start}: by default the RDB's table
     * ({@link RealtimeTable#append}, what an RDB does with an update) or the check alone.
     */
    Receiver newReceiver(final long capacityRows) {
        if (!insert) {
            return new Receiver((update, receiveNanos) -> { }, null, clock);
        }
        final RealtimeTable table = new RealtimeTable(schema, new SymbolCatalog(), (int) Math.min(capacityRows, 1 << 28));
        return new Receiver((update, receiveNanos) -> table.append(schema, update), () -> table.segment(0), clock);
    }

    /**
     * Starts the transport and one subscriber per receiver; returns once every subscriber is ready,
     * so that nothing sent afterwards can be missed.
     */
    abstract void start(Phase phase, List<Receiver> receivers) throws Exception;

    /** Allocator of the feed's frame buffers. */
    ByteBufAllocator alloc() {
        return PooledByteBufAllocator.DEFAULT;
    }

    /** Back pressure: waits until the transport takes more, false after the timeout. */
    boolean awaitWritable(final long timeoutNanos) {
        return true;
    }

    /**
     * Sends {@code count} whole update frames packed in {@code frames} (from its reader index); takes
     * ownership of the buffer.
     *
     * @return false when the transport refused them (the run fails)
     */
    abstract boolean send(ByteBuf frames, int count);

    /** A failure seen by the transport (refused send, subscriber error), or null. */
    String failure() {
        return null;
    }

    /** The system's own latency histograms (jtick's TP and RDB), percentiles; empty for peers. */
    List<Percentiles> internals() {
        return List.of();
    }

    /**
     * Processes of its own that do part of the work, whose CPU counts as the system's: Kafka's brokers,
     * a cluster's nodes in their own JVMs. None by default (everything runs in this JVM).
     */
    CpuTimes.Processes processes() {
        return CpuTimes.Processes.NONE;
    }

    /**
     * Feed → acknowledgement latency of this run, after {@link #start}: set for a paced phase by a
     * system whose feed is acknowledged (jtick's numbered feed, Kafka's producer), null otherwise
     * (raw Chronicle, a protocol 1 feed, a throughput phase).
     */
    AckLatency acks() {
        return null;
    }

    /** Forgets the internal histograms (after the warm-up). */
    void resetInternals() {
    }

    @Override
    public abstract void close() throws Exception;
}
