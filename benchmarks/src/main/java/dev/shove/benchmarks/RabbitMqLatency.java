package dev.shove.benchmarks;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import dev.shove.Broker;
import dev.shove.Topic;
import dev.shove.rabbitmq.RabbitMq;
import dev.shove.rabbitmq.RabbitMqConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link LatencyBenchmark} on RabbitMQ. The raw consumer is {@code basic.consume} on a channel of its own with
 * manual acks, {@code basic.qos(prefetch)}, and one multiple-ack every {@code ackEvery} deliveries (50 by default,
 * at most half the prefetch so that the window never fills): the best raw mode of the throughput harness. Deliveries
 * are decoded and handled on the client's consumer dispatch thread.
 */
final class RabbitMqLatency implements LatencyBenchmark.Backend {
    private final Broker<RabbitMq> broker;
    private final Connection connection;
    private final int ackEvery;

    RabbitMqLatency(String uri, int ackEvery) throws Exception {
        this.ackEvery = ackEvery;
        this.broker = Broker.connect(RabbitMqConfig.of(uri));
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(uri);
        this.connection = factory.newConnection("shove-latency-raw");
    }

    @Override
    public Broker<?> broker() {
        return broker;
    }

    @Override
    public String rawLabel() {
        return "raw amqp-client basic.consume, manual ack, one multiple-ack every " + ackEvery;
    }

    @Override
    public LatencyBenchmark.Lane raw(Topic<LatencyBenchmark.Msg> topic, int prefetch, LatencyBenchmark.Sink sink)
            throws IOException {
        int every = Math.max(1, Math.min(ackEvery, prefetch / 2));
        Channel channel = connection.createChannel();
        channel.basicQos(prefetch);
        String tag = channel.basicConsume(topic.name(), false, new DefaultConsumer(channel) {
            private long seen;

            @Override
            public void handleDelivery(
                    String consumerTag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
                    throws IOException {
                sink.handle(body);
                if (++seen % every == 0) {
                    getChannel().basicAck(envelope.getDeliveryTag(), true);
                }
            }
        });
        return LatencyBenchmark.published(broker, topic, () -> {
            try {
                channel.basicCancel(tag);
            } finally {
                channel.close();
            }
        });
    }

    @Override
    public void delete(Topic<LatencyBenchmark.Msg> topic) {
        LatencyBenchmark.deleteAll("RabbitMQ queues", queues(topic), queue -> {
            try (Channel channel = connection.createChannel()) {
                channel.queueDelete(queue);
            }
        });
    }

    /** The topic's queue, its hold queues and its dead-letter queue. */
    private static List<String> queues(Topic<?> topic) {
        List<String> queues = new ArrayList<>();
        queues.add(topic.name());
        topic.holdTiers().forEach(tier -> queues.add(tier.queue()));
        topic.dlq().ifPresent(queues::add);
        return queues;
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (IOException e) {
            System.err.println("could not close the raw RabbitMQ connection: " + e);
        } finally {
            broker.close();
        }
    }
}
