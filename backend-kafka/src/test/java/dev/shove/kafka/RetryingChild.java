package dev.shove.kafka;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.Topic;
import java.time.Duration;

/**
 * A consumer run in a child JVM by {@link KafkaCrashIT}, so the test can kill it at any moment with SIGKILL. It
 * retries every message it sees for the first time and prints one line per handler call: {@code HANDLED n retryCount}.
 *
 * <p>Arguments: bootstrap servers, topic name, hold tier in milliseconds, and optionally {@code sequenced}: the topic
 * is then sequenced by {@link #key} (its retries wait in place).
 */
public final class RetryingChild {
    record Msg(int n) {}

    private RetryingChild() {}

    /** The sequence key of message {@code n} in {@code sequenced} mode: five keys. */
    static String key(int n) {
        return "k" + n % 5;
    }

    public static void main(String[] args) throws Exception {
        var builder = Topic.builder(args[1], Msg.class)
                .holdQueue(Duration.ofMillis(Long.parseLong(args[2])))
                .dlq();
        if (args.length > 3 && args[3].equals("sequenced")) {
            builder.sequenced(SequenceFailure.SKIP, m -> key(m.n()));
        }
        Topic<Msg> topic = builder.build();
        KafkaConfig config = KafkaConfig.builder(args[0])
                .partitions(4)
                .sessionTimeout(Duration.ofSeconds(6))
                .build();
        Broker<Kafka> broker = Broker.connect(config);
        var group = broker.consumerGroup();
        group.register(topic, ConsumerGroupConfig.ofDefaults(), () -> (m, meta, c) -> {
            System.out.println("HANDLED " + m.n() + " " + meta.retryCount());
            System.out.flush();
            return meta.retryCount() == 0 ? Outcome.retry() : Outcome.ack();
        });
        group.start();
        System.out.println("STARTED");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE); // until killed
    }
}
