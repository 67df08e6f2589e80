package dev.shove.kafka;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.Topic;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A transactional consumer run in a child JVM by {@link KafkaTransactionsIT}: it answers every message {@code n} of
 * the topic with a reply {@code n} on the reply topic, and with {@code haltAfter} > 0 it halts the JVM (like SIGKILL:
 * no commit, no abort, no leave-group) as soon as the broker has acknowledged its {@code haltAfter}-th reply, that is
 * inside a transaction that is written but not committed. Prints {@code STARTED} once its consumer runs.
 *
 * <p>Arguments: bootstrap servers, topic, reply topic, client name (the transactional ids derive from it), haltAfter.
 */
public final class TransactionalReplyChild {
    record Msg(int n) {}

    private TransactionalReplyChild() {}

    public static void main(String[] args) throws Exception {
        String replyTopicName = args[2];
        int haltAfter = Integer.parseInt(args[4]);
        System.setProperty(HaltOnReply.TOPIC, replyTopicName);
        System.setProperty(HaltOnReply.AFTER, Integer.toString(haltAfter));
        Topic<Msg> topic = Topic.builder(args[1], Msg.class).build();
        Topic<Msg> replies = Topic.builder(replyTopicName, Msg.class).build();
        KafkaConfig config = KafkaConfig.builder(args[0])
                .partitions(2)
                .sessionTimeout(java.time.Duration.ofSeconds(6))
                .transactional()
                .clientProperty("interceptor.classes", HaltOnReply.class.getName())
                .build();
        Broker<Kafka> broker = Broker.<Kafka>builder(config).clientName(args[3]).connect();
        var group = broker.consumerGroup();
        group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
            System.out.println("HANDLED " + m.n());
            System.out.flush();
            return Outcome.reply(replies, m);
        });
        group.start();
        System.out.println("STARTED");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE); // until killed or halted
    }

    /**
     * Halts the JVM once the broker acknowledged the {@code haltAfter}-th record written to the reply topic. A consumer
     * interceptor too (a no-op), because shove passes client properties to every client it creates.
     */
    @SuppressWarnings("exports") // instantiated by kafka-clients, which needs it public
    public static final class HaltOnReply
            implements ProducerInterceptor<byte[], byte[]>, ConsumerInterceptor<byte[], byte[]> {
        static final String TOPIC = "shove.test.haltTopic";
        static final String AFTER = "shove.test.haltAfter";
        private static final AtomicInteger acked = new AtomicInteger();

        /** Created by kafka-clients. */
        public HaltOnReply() {}

        @Override
        public ProducerRecord<byte[], byte[]> onSend(ProducerRecord<byte[], byte[]> record) {
            return record;
        }

        @Override
        public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
            int after = Integer.getInteger(AFTER, -1);
            if (exception == null
                    && after > 0
                    && metadata.topic().equals(System.getProperty(TOPIC))
                    && acked.incrementAndGet() == after) {
                System.out.println("HALT");
                System.out.flush();
                Runtime.getRuntime().halt(137);
            }
        }

        @Override
        public ConsumerRecords<byte[], byte[]> onConsume(ConsumerRecords<byte[], byte[]> records) {
            return records;
        }

        @Override
        public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {}

        @Override
        public void close() {}

        @Override
        public void configure(Map<String, ?> configs) {}
    }
}
