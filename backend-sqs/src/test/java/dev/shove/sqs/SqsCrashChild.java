package dev.shove.sqs;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.Topic;
import java.time.Duration;

/**
 * A consumer run in a child JVM by {@link SqsCrashIT}, so the test can kill it with SIGKILL at any moment. It prints
 * one line per handler call, {@code HANDLED label retryCount}, then behaves by its mode:
 *
 * <ul>
 *   <li>{@code block}: never returns (the test kills it mid-handler);
 *   <li>{@code retry}: returns {@code retry(3 s)} (the test kills it while the copy waits in SQS);
 *   <li>{@code wait}: the topic is sequenced; returns {@code retry(30 s)}, which waits in place holding the message
 *       (the test kills it mid-wait).
 * </ul>
 *
 * <p>Arguments: endpoint, topic name, mode. Handler timeout 2 s (so the lease is 4 s), except in {@code block} mode,
 * which has none and a 3 s visibility timeout instead.
 */
public final class SqsCrashChild {
    /** The message of the crash tests: a key and a number. */
    public record Msg(String key, int n) {
        String label() {
            return key + n;
        }
    }

    private SqsCrashChild() {}

    static Topic<Msg> topic(String name, boolean sequenced) {
        var b = Topic.builder(name, Msg.class).holdQueue(Duration.ofSeconds(1)).dlq();
        if (sequenced) {
            b.sequenced(SequenceFailure.SKIP, Msg::key);
        }
        return b.build();
    }

    public static void main(String[] args) throws Exception {
        String mode = args[2];
        Topic<Msg> topic = topic(args[1], mode.equals("wait"));
        SqsConfig config = SqsTestSupport.config(args[0]).toBuilder()
                .visibilityTimeout(Duration.ofSeconds(3))
                .build();
        Broker<Sqs> broker = Broker.connect(config);
        var group = broker.consumerGroup();
        ConsumerGroupConfig.Builder options = ConsumerGroupConfig.builder();
        if (mode.equals("block")) {
            options.noHandlerTimeout();
        } else {
            options.handlerTimeout(Duration.ofSeconds(2));
        }
        group.register(topic, options.build(), () -> (m, meta, c) -> {
            System.out.println("HANDLED " + m.label() + " " + meta.retryCount());
            System.out.flush();
            return switch (mode) {
                case "block" -> {
                    Thread.sleep(Long.MAX_VALUE);
                    yield Outcome.ack();
                }
                case "retry" -> Outcome.retry(Duration.ofSeconds(3));
                default -> Outcome.retry(Duration.ofSeconds(30));
            };
        });
        group.start();
        System.out.println("STARTED");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE); // until killed
    }
}
