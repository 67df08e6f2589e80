package dev.shove.jdbc;

import dev.shove.SequenceFailure;
import dev.shove.Topic;
import java.time.Duration;

/** The tests' topics and messages. */
final class Fixtures {
    private Fixtures() {}

    record OrderPaid(String orderId, long cents) {}

    record Step(String key, int seq) {}

    static final Topic<OrderPaid> ORDERS = Topic.builder("orders", OrderPaid.class)
            .holdQueue(Duration.ofMillis(200))
            .dlq()
            .build();

    static final Topic<Step> STEPS = Topic.builder("steps", Step.class)
            .holdQueue(Duration.ofMillis(200))
            .sequenced(SequenceFailure.SKIP, Step::key)
            .dlq()
            .build();
}
