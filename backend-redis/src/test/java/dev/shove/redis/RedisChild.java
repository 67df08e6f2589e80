package dev.shove.redis;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.Topic;
import java.time.Duration;

/**
 * A consumer run in a child JVM by {@link RedisCrashIT}, so the test can kill it at any moment with SIGKILL. It prints
 * one line per handler call: {@code HANDLED n retryCount deliveryCount}.
 *
 * <p>Arguments: Redis URI, topic name, hold tier in milliseconds, mode: {@code hang} (every handler blocks for good),
 * {@code retry} (retries every first attempt, acknowledges the retry) or {@code sequenced} (the same on a topic
 * sequenced by {@link #key}, whose retries wait in place).
 */
public final class RedisChild {
    record Msg(int n) {}

    private RedisChild() {}

    /** The sequence key of message {@code n} in {@code sequenced} mode: five keys. */
    static String key(int n) {
        return "k" + n % 5;
    }

    /** The settings both the child and the test's consumers use: quick renewals, claims and shard leases. */
    static RedisConfig config(String uri) {
        return RedisConfig.builder(uri)
                .leaseRenewal(Duration.ofMillis(500))
                .claimIdle(Duration.ofSeconds(3))
                .shardLease(Duration.ofSeconds(2))
                .build();
    }

    static Topic<Msg> topic(String name, long tierMs, boolean sequenced) {
        var builder = Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofMillis(tierMs))
                .dlq();
        if (sequenced) {
            builder.sequenced(SequenceFailure.SKIP, m -> key(m.n()));
        }
        return builder.build();
    }

    public static void main(String[] args) throws Exception {
        String mode = args[3];
        Topic<Msg> topic = topic(args[1], Long.parseLong(args[2]), mode.equals("sequenced"));
        Broker<Redis> broker = Broker.connect(config(args[0]));
        var group = broker.consumerGroup();
        group.register(
                topic,
                ConsumerGroupConfig.builder().consumers(1, 1).noHandlerTimeout().build(),
                () -> (m, meta, c) -> {
                    System.out.println("HANDLED " + m.n() + " " + meta.retryCount() + " "
                            + meta.deliveryCount().orElse(0));
                    System.out.flush();
                    if (mode.equals("hang")) {
                        Thread.sleep(Long.MAX_VALUE);
                    }
                    return meta.retryCount() == 0 ? Outcome.retry() : Outcome.ack();
                });
        group.start();
        System.out.println("STARTED");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE); // until killed
    }
}
