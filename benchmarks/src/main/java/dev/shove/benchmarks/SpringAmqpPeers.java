package dev.shove.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.ConnectionFactory;
import dev.shove.benchmarks.RabbitMqBenchmark.Msg;
import dev.shove.benchmarks.RabbitMqBenchmark.Progress;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.BatchMessageListener;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageListener;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.DirectMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;

/**
 * The Spring AMQP peers of {@link RabbitMqBenchmark}: its two listener containers, used programmatically (a {@link
 * CachingConnectionFactory} and a container, no Spring Boot, no application context), each in its fastest
 * configuration for a consumer that must acknowledge what it handled: {@link AcknowledgeMode#AUTO} (the container
 * acknowledges after the listener returns), prefetch as shove's, acknowledgements batched into one multiple-ack per
 * {@code ackEvery} messages (50 by default, the raw mode (a)'s batch). Each listener decodes every message's body into
 * the same record with Jackson (what shove's default codec does) and does nothing else.
 *
 * <ul>
 *   <li>(d) {@link SimpleMessageListenerContainer}: one consumer, {@code batchSize} {@code ackEvery}, and {@code
 *       consumerBatchEnabled}: the container's thread takes up to {@code batchSize} deliveries from its queue, hands
 *       them to a {@link BatchMessageListener} in one call, then acknowledges the batch with one multiple-ack. {@code
 *       batchSize} alone (a per-message listener) acknowledges the same way but calls the listener once per message;
 *       the batch listener saves those calls, the one thing left to tune once acks are batched, so it is taken as the
 *       container's best configuration (argument {@code smlcListener=single} measures the per-message listener
 *       instead: on the 2-core machine, two runs each of 10,000 messages, both spent 100-115 us of client CPU per
 *       message and their rates were within the noise). Spring AMQP 4.1 offers no other acknowledgement batching for
 *       this container.
 *   <li>(e) {@link DirectMessageListenerContainer}: one consumer on the queue, {@code messagesPerAck} {@code ackEvery}:
 *       the listener runs on the client's dispatch thread, and the container acknowledges every {@code
 *       messagesPerAck}-th delivery with one multiple-ack (or, when fewer arrive, after {@code ackTimeout}). The
 *       container has no batch listener for discrete messages; {@code messagesPerAck} is its acknowledgement batching.
 * </ul>
 *
 * Neither container is given a transaction manager, retry advice or a message converter: the listener decodes the
 * body itself, which is the least a Spring user's {@code @RabbitListener} with a JSON converter would do. Not
 * thread-safe; one mode at a time.
 */
final class SpringAmqpPeers {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final AtomicLong sink = new AtomicLong();

    private final String uri;
    private final int prefetch;
    private final int ackEvery;
    private final boolean smlcBatchListener;

    /**
     * @param uri the broker's AMQP URI
     * @param prefetch the consumer's prefetch (basic.qos)
     * @param ackEvery how many deliveries one multiple-ack acknowledges
     * @param smlcBatchListener whether (d) uses a batch listener ({@code consumerBatchEnabled}) or a per-message one
     */
    SpringAmqpPeers(String uri, int prefetch, int ackEvery, boolean smlcBatchListener) {
        this.uri = uri;
        this.prefetch = prefetch;
        this.ackEvery = ackEvery;
        this.smlcBatchListener = smlcBatchListener;
    }

    /** {@return what (d) is, for the report} */
    String simpleLabel() {
        return smlcBatchListener
                ? "Spring AMQP SimpleMessageListenerContainer, batch listener, batchSize " + ackEvery
                        + " (one ack per batch)"
                : "Spring AMQP SimpleMessageListenerContainer, per-message listener, batchSize " + ackEvery
                        + " (one ack per batch)";
    }

    /** {@return what (e) is, for the report} */
    String directLabel() {
        return "Spring AMQP DirectMessageListenerContainer, messagesPerAck " + ackEvery;
    }

    /** (d): reads {@code queue} with a {@link SimpleMessageListenerContainer} until {@code progress} is done. */
    void simple(String queue, Progress progress) throws InterruptedException {
        CachingConnectionFactory connections = connections("shove-bench-spring-smlc");
        try {
            SimpleMessageListenerContainer container = new SimpleMessageListenerContainer(connections);
            container.setQueueNames(queue);
            container.setAcknowledgeMode(AcknowledgeMode.AUTO);
            container.setPrefetchCount(prefetch);
            container.setConcurrentConsumers(1);
            container.setBatchSize(ackEvery);
            if (smlcBatchListener) {
                container.setConsumerBatchEnabled(true);
                container.setMessageListener(new BatchMessageListener() {
                    @Override
                    public void onMessageBatch(List<Message> messages) {
                        for (Message message : messages) {
                            decode(message, queue, progress);
                        }
                        progress.handled(messages.size());
                    }
                });
            } else {
                container.setMessageListener(decoding(queue, progress));
            }
            runUntilDone(
                    container, progress, "(d) Spring AMQP SimpleMessageListenerContainer on queue '" + queue + "'");
        } finally {
            connections.destroy();
        }
    }

    /** (e): reads {@code queue} with a {@link DirectMessageListenerContainer} until {@code progress} is done. */
    void direct(String queue, Progress progress) throws InterruptedException {
        CachingConnectionFactory connections = connections("shove-bench-spring-dmlc");
        try {
            DirectMessageListenerContainer container = new DirectMessageListenerContainer(connections);
            container.setQueueNames(queue);
            container.setAcknowledgeMode(AcknowledgeMode.AUTO);
            container.setPrefetchCount(prefetch);
            container.setConsumersPerQueue(1);
            container.setMessagesPerAck(ackEvery);
            container.setMessageListener(decoding(queue, progress));
            runUntilDone(
                    container, progress, "(e) Spring AMQP DirectMessageListenerContainer on queue '" + queue + "'");
        } finally {
            connections.destroy();
        }
    }

    private CachingConnectionFactory connections(String name) {
        ConnectionFactory factory = new ConnectionFactory();
        try {
            factory.setUri(uri);
        } catch (Exception e) {
            throw new IllegalArgumentException("not a usable AMQP URI for the Spring AMQP modes: " + uri, e);
        }
        factory.setAutomaticRecoveryEnabled(false); // Spring AMQP recovers connections itself
        CachingConnectionFactory connections = new CachingConnectionFactory(factory);
        connections.setConnectionNameStrategy(f -> name);
        return connections;
    }

    private static MessageListener decoding(String queue, Progress progress) {
        return message -> {
            decode(message, queue, progress);
            progress.handled(1);
        };
    }

    private static void decode(Message message, String queue, Progress progress) {
        try {
            Msg msg = JSON.readValue(message.getBody(), Msg.class);
            sink.addAndGet(msg.amount());
        } catch (IOException e) {
            progress.failed("a message on queue '" + queue + "' is not the benchmark's JSON", e);
        }
    }

    private static void runUntilDone(AbstractMessageListenerContainer container, Progress progress, String what)
            throws InterruptedException {
        container.setDefaultRequeueRejected(false); // a listener failure must not loop; Progress reports it
        container.afterPropertiesSet();
        container.start();
        try {
            progress.await(what);
        } finally {
            container.stop();
            container.destroy();
        }
    }
}
