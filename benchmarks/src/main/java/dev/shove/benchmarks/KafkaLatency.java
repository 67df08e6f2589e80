package dev.shove.benchmarks;

import dev.shove.Broker;
import dev.shove.Topic;
import dev.shove.kafka.Kafka;
import dev.shove.kafka.KafkaConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * {@link LatencyBenchmark} on Kafka (shove's default {@link KafkaConfig}: 8 partitions). The raw consumer is the
 * plain poll loop: one {@code KafkaConsumer} of a fresh group on a platform thread, {@code poll(100 ms)}, each record
 * decoded and handled on the poll thread, {@code commitAsync} per poll, {@code max.poll.records} the client's
 * default of 500 (or {@code prefetch}, if smaller), {@code fetch.max.wait.ms} 100 as shove's consumer sets it.
 */
final class KafkaLatency implements LatencyBenchmark.Backend {
    private final String bootstrap;
    private final Broker<Kafka> broker;

    KafkaLatency(String bootstrap) {
        this.bootstrap = bootstrap;
        this.broker = Broker.connect(KafkaConfig.builder(bootstrap).build());
    }

    @Override
    public Broker<?> broker() {
        return broker;
    }

    @Override
    public String rawLabel() {
        return "raw KafkaConsumer poll loop, records decoded and handled on the poll thread, commitAsync per poll";
    }

    @Override
    public LatencyBenchmark.Lane raw(Topic<LatencyBenchmark.Msg> topic, int prefetch, LatencyBenchmark.Sink sink) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("group.id", "latency-raw-" + UUID.randomUUID());
        p.put("auto.offset.reset", "earliest");
        p.put("enable.auto.commit", "false");
        p.put("max.poll.records", Integer.toString(Math.min(prefetch, 500)));
        p.put("fetch.max.wait.ms", "100"); // as shove's consumer sets it
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean running = new AtomicBoolean(true);
        Thread poller = Thread.ofPlatform()
                .name("latency-raw-poll-" + topic.name())
                .daemon()
                .start(() -> {
                    try (consumer) {
                        consumer.subscribe(List.of(topic.name()));
                        while (running.get()) {
                            ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
                            if (records.isEmpty()) {
                                continue;
                            }
                            for (ConsumerRecord<byte[], byte[]> r : records) {
                                sink.handle(r.value());
                            }
                            consumer.commitAsync();
                        }
                    } catch (WakeupException e) {
                        // stopped
                    } catch (RuntimeException e) {
                        failure.set(e);
                    }
                });
        return LatencyBenchmark.published(broker, topic, () -> {
            running.set(false);
            consumer.wakeup();
            if (!poller.join(Duration.ofSeconds(30))) {
                throw new IllegalStateException(
                        "the raw consumer of topic '" + topic.name() + "' did not stop in 30 s");
            }
            if (failure.get() != null) {
                throw new IllegalStateException(
                        "the raw consumer of topic '" + topic.name() + "' failed: " + failure.get(), failure.get());
            }
        });
    }

    @Override
    public void delete(Topic<LatencyBenchmark.Msg> topic) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(p)) {
            List<String> doomed = new ArrayList<>();
            for (String t : admin.listTopics().names().get(30, TimeUnit.SECONDS)) {
                if (t.equals(topic.name()) || t.startsWith(topic.name() + "-")) {
                    doomed.add(t);
                }
            }
            admin.deleteTopics(doomed).all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            System.err.println("could not delete the Kafka topics of '" + topic.name() + "': " + e);
        }
    }

    @Override
    public void close() {
        broker.close();
    }
}
