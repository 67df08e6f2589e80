package dev.shove.nats;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.Topic;
import java.time.Duration;

/**
 * A consumer run in a child JVM by {@link NatsCrashIT}, so the test can kill it at any moment with SIGKILL. It prints
 * one line per handler call, {@code HANDLED n retryCount epochMillis}, and {@code STARTED} once it consumes.
 *
 * <p>Arguments: server URL, topic name, hold tier in milliseconds, and the mode: {@code retry} (even messages are
 * retried, odd ones deferred, on first sight), {@code sequenced} (the topic is sequenced by {@link #key}, and every
 * message is retried on first sight: its retry waits in place) or {@code hang} (handlers never return).
 */
public final class NatsChild {
    record Msg(int n) {}

    private NatsChild() {}

    /** The sequence key of message {@code n} in {@code sequenced} mode: five keys. */
    static String key(int n) {
        return "k" + n % 5;
    }

    public static void main(String[] args) throws Exception {
        String mode = args[3];
        var builder = Topic.builder(args[1], Msg.class)
                .holdQueue(Duration.ofMillis(Long.parseLong(args[2])))
                .dlq();
        if (mode.equals("sequenced")) {
            builder.sequenced(SequenceFailure.SKIP, m -> key(m.n()));
        }
        Topic<Msg> topic = builder.build();
        NatsConfig config = NatsConfig.builder(args[0])
                .ackWait(Duration.ofSeconds(2))
                .shardLease(Duration.ofSeconds(2))
                .build();
        Broker<Nats> broker = Broker.connect(config);
        var group = broker.consumerGroup();
        group.register(
                topic,
                ConsumerGroupConfig.builder().prefetch(5).noHandlerTimeout().build(),
                () -> (m, meta, c) -> {
                    System.out.println("HANDLED " + m.n() + " " + meta.retryCount() + " " + System.currentTimeMillis());
                    System.out.flush();
                    return switch (mode) {
                        case "hang" -> {
                            Thread.sleep(Long.MAX_VALUE);
                            yield Outcome.ack();
                        }
                        case "retry" -> m.n() % 2 == 0 ? Outcome.retry() : Outcome.defer();
                        default -> Outcome.retry();
                    };
                });
        group.start();
        System.out.println("STARTED");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE); // until killed
    }
}
