package dev.shove.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.Topic;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/** Broadcast topics: an SNS topic fanned out to a queue of its own per running subscriber. */
class SqsBroadcastIT {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static SqsClient sqs;
    private static SnsClient sns;

    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void emulator() {
        SqsTestSupport.requireSqs();
        sqs = SqsTestSupport.sqs();
        sns = SqsTestSupport.sns();
    }

    @AfterAll
    static void closeClients() {
        if (sqs != null) {
            sqs.close();
            sns.close();
        }
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (AutoCloseable c : closeables.reversed()) {
            c.close();
        }
    }

    private Broker<Sqs> broker(SqsConfig config) {
        Broker<Sqs> broker = Broker.connect(config);
        closeables.add(broker);
        return broker;
    }

    private static String topicArn(String name) {
        return sns.listTopics().topics().stream()
                .map(t -> t.topicArn())
                .filter(a -> a.endsWith(":" + name))
                .findFirst()
                .orElseThrow();
    }

    @Test
    @DisplayName("each running subscriber has a queue of its own, subscribed on start and deleted on stop")
    void queuePerSubscriber() {
        Topic<String> topic = Topic.builder(SqsTestSupport.unique("bc"), String.class)
                .broadcast()
                .build();
        Broker<Sqs> broker = broker(SqsTestSupport.config());
        broker.topology().declare(topic);
        List<String> a = new CopyOnWriteArrayList<>();
        List<String> b = new CopyOnWriteArrayList<>();
        var groupA = broker.consumerGroup();
        groupA.register(topic, ConsumerGroupConfig.builder().groupName("a").build(), () -> (m, meta, c) -> {
            a.add(m);
            return Outcome.ack();
        });
        groupA.start();
        var groupB = broker.consumerGroup();
        groupB.register(topic, ConsumerGroupConfig.builder().groupName("b").build(), () -> (m, meta, c) -> {
            b.add(m);
            return Outcome.ack();
        });
        groupB.start();
        closeables.add(() -> groupA.stop(Duration.ofSeconds(5)));

        assertThat(SqsTestSupport.queues(sqs, topic.name() + "-bc-")).hasSize(2);
        assertThat(sns.listSubscriptionsByTopic(r -> r.topicArn(topicArn(topic.name())))
                        .subscriptions())
                .hasSize(2);
        broker.publisher().publish(topic, "hello");
        await().atMost(PATIENCE).until(() -> a.size() == 1 && b.size() == 1);

        assertThat(groupB.stop(Duration.ofSeconds(5)).exitCode()).isZero();
        assertThat(SqsTestSupport.queues(sqs, topic.name() + "-bc-")).hasSize(1);
        assertThat(sns.listSubscriptionsByTopic(r -> r.topicArn(topicArn(topic.name())))
                        .subscriptions())
                .hasSize(1);
    }

    @Test
    @DisplayName("the queue of a subscriber that died (stopped touching it past the expiry) is removed by the next"
            + " subscriber; a live subscriber's queue is kept")
    void deadSubscribersReaped() {
        Topic<String> topic = Topic.builder(SqsTestSupport.unique("bc-reap"), String.class)
                .broadcast()
                .build();
        SqsConfig config = SqsTestSupport.config().toBuilder()
                .broadcastQueueExpiry(Duration.ofSeconds(2))
                .build();
        Broker<Sqs> broker = broker(config);
        broker.topology().declare(topic);
        String arn = topicArn(topic.name());
        // what a subscriber killed -9 leaves behind: a subscribed queue nobody touches any more
        String deadName = topic.name() + "-bc-deadbeef00";
        String deadUrl = sqs.createQueue(r -> r.queueName(deadName)
                        .tags(Map.of(
                                SqsTopology.TAG_BROADCAST,
                                topic.name(),
                                SqsTopology.TAG_TOUCHED,
                                Long.toString(System.currentTimeMillis() - 60_000))))
                .queueUrl();
        String deadArn = sqs.getQueueAttributes(r -> r.queueUrl(deadUrl).attributeNamesWithStrings("QueueArn"))
                .attributesAsStrings()
                .get("QueueArn");
        sns.subscribe(r -> r.topicArn(arn).protocol("sqs").endpoint(deadArn));
        var live = broker.consumerGroup();
        live.register(topic, () -> (m, meta, c) -> Outcome.ack());
        live.start();
        closeables.add(() -> live.stop(Duration.ofSeconds(5)));

        assertThat(SqsTestSupport.queues(sqs, topic.name() + "-bc-")).hasSize(1).noneMatch(u -> u.endsWith(deadName));
        assertThat(sns.listSubscriptionsByTopic(r -> r.topicArn(arn)).subscriptions())
                .hasSize(1)
                .noneMatch(s -> s.endpoint().equals(deadArn));

        // the live subscriber keeps touching its queue: a second subscriber, past the expiry, leaves it alone
        await().pollDelay(Duration.ofSeconds(3)).atMost(PATIENCE).until(() -> true);
        var second = broker.consumerGroup();
        second.register(topic, () -> (m, meta, c) -> Outcome.ack());
        second.start();
        closeables.add(() -> second.stop(Duration.ofSeconds(5)));
        assertThat(SqsTestSupport.queues(sqs, topic.name() + "-bc-")).hasSize(2);
    }
}
