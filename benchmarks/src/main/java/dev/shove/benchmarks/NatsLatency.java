package dev.shove.benchmarks;

import dev.shove.Broker;
import dev.shove.Topic;
import dev.shove.nats.Nats;
import dev.shove.nats.NatsConfig;
import io.nats.client.Connection;
import io.nats.client.ConsumeOptions;
import io.nats.client.JetStreamManagement;
import io.nats.client.MessageConsumer;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link LatencyBenchmark} on NATS JetStream. The raw consumer is jnats's {@code consume} (the simplified API's
 * continuous pull: it keeps {@code prefetch} messages requested ahead and refills at half) on a durable pull consumer
 * of its own with explicit acks, each message decoded, handled and then acknowledged with {@code ack()} (which does
 * not wait), on the client's dispatcher thread.
 */
final class NatsLatency implements LatencyBenchmark.Backend {
    private final Broker<Nats> broker;
    private final Connection connection;

    NatsLatency(String url) throws Exception {
        this.broker = Broker.connect(NatsConfig.of(url));
        this.connection = io.nats.client.Nats.connect(url);
    }

    @Override
    public Broker<?> broker() {
        return broker;
    }

    @Override
    public String rawLabel() {
        return "raw jnats consume() on a durable pull consumer, ack() each";
    }

    @Override
    public LatencyBenchmark.Lane raw(Topic<LatencyBenchmark.Msg> topic, int prefetch, LatencyBenchmark.Sink sink)
            throws Exception {
        String stream = topic.name();
        String durable = "latency-raw";
        connection
                .jetStreamManagement()
                .addOrUpdateConsumer(
                        stream,
                        ConsumerConfiguration.builder()
                                .durable(durable)
                                .filterSubject(topic.name())
                                .ackPolicy(AckPolicy.Explicit)
                                .deliverPolicy(DeliverPolicy.All)
                                .maxAckPending(Math.max(1000, prefetch * 10))
                                .build());
        MessageConsumer consumer = connection
                .jetStream()
                .getConsumerContext(stream, durable)
                .consume(ConsumeOptions.builder().batchSize(prefetch).build(), m -> {
                    sink.handle(m.getData());
                    m.ack();
                });
        return LatencyBenchmark.published(broker, topic, () -> {
            consumer.stop();
            consumer.close();
        });
    }

    @Override
    public void delete(Topic<LatencyBenchmark.Msg> topic) {
        List<String> streams = new ArrayList<>();
        streams.add(topic.name());
        topic.dlq().ifPresent(streams::add);
        JetStreamManagement jsm;
        try {
            jsm = connection.jetStreamManagement();
        } catch (Exception e) {
            System.err.println("could not delete the NATS streams of topic '" + topic.name() + "': " + e);
            return;
        }
        LatencyBenchmark.deleteAll("NATS streams", streams, jsm::deleteStream);
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            broker.close();
        }
    }
}
