package io.jtick.bench.pipeline;

import io.jtick.core.schema.TableSchema;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.UpdateDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.ByteBufferDeserializer;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Apache Kafka: a producer on the feed thread sends each update frame as one record (the same bytes;
 * one update = one record, as one update is one journal entry and one publish in jtick) to a topic
 * of one partition (total order, like one tickerplant) on a {@link KafkaCluster} of brokers in their
 * own JVMs; one consumer thread per subscriber reads the whole partition from its start
 * ({@code assign}, no consumer group: four consumers are four independent readers each receiving
 * every row, like four RDB subscribers, not a group sharing the partition) and hands each record's
 * bytes to its receiver.
 *
 * <p>{@code kafka}: one broker, {@code acks=1}, idempotence off (it needs {@code acks=all}).
 * {@code kafka-rf3}: three brokers, the topic replicated to all three with {@code min.insync.replicas=2},
 * {@code acks=all} and idempotence on (Kafka's own defaults for a producer that must not lose or
 * duplicate a record): a record is acknowledged once the leader and at least one follower hold it.
 * Consumers read what is committed (the high watermark), so on {@code kafka-rf3} a subscriber sees an
 * update only after the followers have fetched it.
 *
 * <p>Producer batching follows the feed: as fast as possible, records are batched up to the feed's
 * write size ({@code batch.size} = the phase's batch bytes, {@code linger.ms=5}, Kafka 4's default);
 * paced, each record goes at once ({@code linger.ms=0}). No compression (jtick sends raw frames),
 * socket buffers of 1 MiB (jtick's), the rest Kafka's defaults. Paced, the producer's callback times
 * each record's acknowledgement ({@link AckLatency}).
 */
final class KafkaSystem extends PipelineSystem {
    private static final AtomicInteger TOPICS = new AtomicInteger();

    private final String name;
    private final KafkaCluster cluster;
    private final List<Thread> consumers = new ArrayList<>();
    private final List<KafkaConsumer<byte[], ByteBuffer>> open = new ArrayList<>();
    private volatile boolean running = true;
    private volatile String failure;
    private String topic;
    private KafkaProducer<byte[], byte[]> producer;
    private AckLatency acks;

    /** @param cluster one broker ({@code acks=1}) or several (the topic on all, {@code acks=all}) */
    KafkaSystem(final String name, final TableSchema schema, final boolean insert, final NanoClock clock, final KafkaCluster cluster) {
        super(schema, insert, clock);
        this.name = name;
        this.cluster = cluster;
    }

    @Override
    String name() {
        return name;
    }

    @Override
    void start(final Phase phase, final List<Receiver> receivers) throws Exception {
        topic = "pipeline-" + TOPICS.incrementAndGet();
        cluster.createTopic(topic);
        producer = new KafkaProducer<>(producerConfig(cluster.bootstrap(), phase, cluster.size() > 1));
        acks = phase.paced() ? AckLatency.perUpdate(clock) : null;
        final CountDownLatch ready = new CountDownLatch(receivers.size());
        for (int i = 0; i < receivers.size(); i++) {
            final Receiver r = receivers.get(i);
            final KafkaConsumer<byte[], ByteBuffer> c = new KafkaConsumer<>(consumerConfig(cluster.bootstrap(), i));
            synchronized (open) {
                open.add(c);
            }
            final Thread t = new Thread(() -> consume(c, r, ready), "kafka-consumer-" + i);
            t.setDaemon(true);
            consumers.add(t);
            t.start();
        }
        if (!ready.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("kafka consumers not positioned within 30 s [topic=" + topic + "]");
        }
    }

    /** @param replicated acknowledged by the in-sync replicas ({@code acks=all}, idempotent), else by the leader alone */
    static Map<String, Object> producerConfig(final String bootstrap, final Phase phase, final boolean replicated) {
        final Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "bench-feed");
        p.put(ProducerConfig.ACKS_CONFIG, replicated ? "all" : "1");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, replicated);
        p.put(ProducerConfig.LINGER_MS_CONFIG, phase.paced() ? 0 : 5);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, phase.batchBytes());
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
        p.put(ProducerConfig.SEND_BUFFER_CONFIG, 1 << 20);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        return p;
    }

    static Map<String, Object> consumerConfig(final String bootstrap, final int i) {
        final Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, "bench-subscriber-" + i);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, 1 << 20);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteBufferDeserializer.class);
        return c;
    }

    private void consume(final KafkaConsumer<byte[], ByteBuffer> consumer, final Receiver receiver, final CountDownLatch ready) {
        final UpdateDecoder decoder = new UpdateDecoder();
        final TopicPartition tp = new TopicPartition(topic, 0);
        try (consumer) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            consumer.position(tp, Duration.ofSeconds(20));
            ready.countDown();
            while (running) {
                final ConsumerRecords<byte[], ByteBuffer> records = consumer.poll(Duration.ofMillis(100));
                for (final ConsumerRecord<byte[], ByteBuffer> rec : records) {
                    final long now = receiver.now();
                    final ByteBuffer v = rec.value();
                    final ByteBuf frame = v.hasArray()
                        ? Unpooled.wrappedBuffer(v.array(), v.arrayOffset() + v.position(), v.remaining())
                        : Unpooled.copiedBuffer(v.duplicate());
                    receiver.onUpdate(decoder.wrap(frame, 0), now);
                }
            }
        } catch (final WakeupException e) {
            if (running) {
                failure = "consumer woken while running [topic=" + topic + "]";
            }
        } catch (final RuntimeException e) {
            failure = "consumer failed [topic=" + topic + "]: " + e;
        }
    }

    @Override
    boolean send(final ByteBuf frames, final int count) {
        try {
            int at = frames.readerIndex();
            for (int k = 0; k < count; k++) {
                final int length = frames.getIntLE(at);
                final byte[] value = new byte[length];
                frames.getBytes(at, value);
                final AckLatency a = acks;
                final long fed = a == null ? 0 : frames.getLongLE(at + FrameDescriptor.FEED_TIME_OFFSET);
                producer.send(new ProducerRecord<>(topic, value), (meta, e) -> {
                    if (e != null) {
                        if (failure == null) {
                            failure = "produce failed [topic=" + topic + "]: " + e;
                        }
                    } else if (a != null) {
                        a.acknowledged(fed);
                    }
                });
                at += length;
            }
            return failure == null;
        } finally {
            frames.release();
        }
    }

    @Override
    CpuTimes.Processes processes() {
        return new CpuTimes.Processes("broker", cluster.pids());
    }

    @Override
    AckLatency acks() {
        return acks;
    }

    @Override
    String failure() {
        return failure;
    }

    @Override
    public void close() throws Exception {
        running = false;
        if (producer != null) {
            producer.close(Duration.ofSeconds(10));
        }
        synchronized (open) {
            for (final KafkaConsumer<byte[], ByteBuffer> c : open) {
                c.wakeup();
            }
        }
        for (final Thread t : consumers) {
            t.join(TimeUnit.SECONDS.toMillis(10));
        }
        if (topic != null) {
            cluster.deleteTopic(topic);
        }
    }
}
