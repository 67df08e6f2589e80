package dev.shove.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.Topic;
import dev.shove.spi.QueueStats;
import dev.shove.spi.Transport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;

/** Long polling, the window across pollers, queue depth, retries that wait in SQS, and dead letters at once. */
class SqsConsumptionIT {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static SqsClient sqs;

    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void emulator() {
        SqsTestSupport.requireSqs();
        sqs = SqsTestSupport.sqs();
    }

    @AfterAll
    static void closeClient() {
        if (sqs != null) {
            sqs.close();
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

    private static Topic<String> topic(String prefix) {
        return Topic.builder(SqsTestSupport.unique(prefix), String.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
    }

    private static Map<String, String> attributes(String queue) {
        String url = sqs.getQueueUrl(r -> r.queueName(queue)).queueUrl();
        return sqs.getQueueAttributes(r -> r.queueUrl(url).attributeNamesWithStrings("All"))
                .attributesAsStrings();
    }

    @Test
    @DisplayName("with 20 s long polls, an idle group stops at once, and its broker closes at once")
    void promptStop() {
        Topic<String> topic = topic("poll-stop");
        Broker<Sqs> broker = Broker.connect(SqsTestSupport.config().toBuilder()
                .receiveWait(Duration.ofSeconds(20))
                .build());
        var group = broker.consumerGroup();
        group.register(topic, ConsumerGroupConfig.of(2, 2), () -> (m, meta, c) -> Outcome.ack());
        group.start();
        await().pollDelay(Duration.ofMillis(500)).until(() -> true); // the polls are waiting in SQS now

        long start = System.nanoTime();
        assertThat(group.stop(Duration.ofSeconds(30)).exitCode()).isZero();
        broker.close();

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
    }

    @Test
    @DisplayName("prefetch 25 runs 3 pollers yet holds at most 25 messages; stats reads ApproximateNumberOfMessages,"
            + " ...NotVisible and ...Delayed")
    void windowAcrossPollersAndStats() throws Exception {
        Topic<String> topic = topic("poll-window");
        Broker<Sqs> broker = broker(SqsTestSupport.config());
        broker.topology().declare(topic);
        for (int i = 0; i < 60; i++) {
            broker.publisher().publish(topic, "m" + i);
        }
        CountDownLatch gate = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger handled = new AtomicInteger();
        var group = broker.consumerGroup();
        group.register(
                topic,
                ConsumerGroupConfig.builder().prefetch(25).noHandlerTimeout().build(),
                () -> (m, meta, c) -> {
                    running.incrementAndGet();
                    gate.await();
                    handled.incrementAndGet();
                    return Outcome.ack();
                });
        group.start();
        closeables.add(() -> group.stop(Duration.ofSeconds(5)));
        closeables.add(gate::countDown);

        await().atMost(PATIENCE).until(() -> running.get() == 25);
        Transport transport = broker.unwrap(Transport.class).orElseThrow();
        await().during(Duration.ofSeconds(1)).atMost(PATIENCE).until(() -> {
            QueueStats stats = transport.stats(topic);
            return stats.inFlight() == 25 && stats.ready() == 35;
        });
        assertThat(running).hasValue(25);
        gate.countDown();
        await().atMost(PATIENCE).until(() -> handled.get() == 60);
        await().atMost(PATIENCE).until(() -> transport.stats(topic).equals(new QueueStats(0, 0, 0)));
    }

    @Test
    @DisplayName("a retry waits in SQS as a delayed copy (not in the consumer), then comes back with retryCount 1")
    void retryWaitsInSqs() {
        Topic<String> topic = Topic.builder(SqsTestSupport.unique("retry-durable"), String.class)
                .holdQueue(Duration.ofSeconds(3))
                .dlq()
                .build();
        Broker<Sqs> broker = broker(SqsTestSupport.config());
        List<Integer> counts = new CopyOnWriteArrayList<>();
        var group = broker.consumerGroup();
        group.register(topic, () -> (m, meta, c) -> {
            counts.add(meta.retryCount());
            return meta.retryCount() == 0 ? Outcome.retry() : Outcome.ack();
        });
        group.start();
        closeables.add(() -> group.stop(Duration.ofSeconds(5)));
        broker.publisher().publish(topic, "r");

        await().atMost(PATIENCE).until(() -> counts.size() == 1);
        await().atMost(PATIENCE).until(() -> {
            Map<String, String> a = attributes(topic.name());
            return a.get("ApproximateNumberOfMessagesDelayed").equals("1")
                    && a.get("ApproximateNumberOfMessagesNotVisible").equals("0");
        });
        await().atMost(PATIENCE).until(() -> counts.size() == 2);
        assertThat(counts).containsExactly(0, 1);
    }

    @Test
    @DisplayName("a delay longer than one SQS delay is honoured by holding the copy again: never earlier, one handler"
            + " call")
    void longDelayHeldAgain() {
        Topic<String> topic = topic("retry-long");
        // copies wait at most 1 s in SQS here (15 minutes on SQS), so a 3.5 s delay takes several hops
        Broker<Sqs> broker = broker(SqsTestSupport.config().toBuilder()
                .maxCopyDelay(Duration.ofSeconds(1))
                .build());
        List<Long> starts = new CopyOnWriteArrayList<>();
        List<Integer> counts = new CopyOnWriteArrayList<>();
        var group = broker.consumerGroup();
        group.register(topic, () -> (m, meta, c) -> {
            starts.add(System.nanoTime());
            counts.add(meta.retryCount());
            return meta.retryCount() == 0 ? Outcome.retry(Duration.ofMillis(3500)) : Outcome.ack();
        });
        group.start();
        closeables.add(() -> group.stop(Duration.ofSeconds(5)));
        broker.publisher().publish(topic, "long");

        await().atMost(PATIENCE).until(() -> counts.size() == 2);
        assertThat(counts).containsExactly(0, 1);
        assertThat(Duration.ofNanos(starts.get(1) - starts.get(0))).isGreaterThanOrEqualTo(Duration.ofMillis(3450));
        await().during(Duration.ofSeconds(2)).atMost(PATIENCE).until(() -> counts.size() == 2);
    }

    @Test
    @DisplayName("reject goes to the DLQ at once with its reason: the message was received once, not maxReceiveCount"
            + " times")
    void rejectDeadLettersAtOnce() {
        Topic<String> topic = topic("reject-once");
        Broker<Sqs> broker = broker(SqsTestSupport.config());
        List<DeadMessageMetadata> dead = new CopyOnWriteArrayList<>();
        var group = broker.consumerGroup();
        group.register(topic, () -> new MessageHandler<String, NoContext>() {
            @Override
            public Outcome handle(String m, MessageMetadata meta, NoContext c) {
                return Outcome.reject("bad order");
            }

            @Override
            public void handleDead(String m, DeadMessageMetadata meta, NoContext c) {
                dead.add(meta);
            }
        });
        group.start();
        closeables.add(() -> group.stop(Duration.ofSeconds(5)));
        broker.publisher().publish(topic, "x");

        await().atMost(PATIENCE).until(() -> dead.size() == 1);
        assertThat(dead.getFirst().reason()).isEqualTo("rejected: bad order");
        assertThat(dead.getFirst().originalQueue()).isEqualTo(topic.name());
        assertThat(dead.getFirst().message().deliveryCount()).hasValue(1);
    }

    @Test
    @DisplayName("the redrive policy is the backstop: a message nobody settles goes to the DLQ after maxReceiveCount"
            + " receives")
    void redriveBackstop() {
        Topic<String> topic = topic("redrive");
        Broker<Sqs> broker =
                broker(SqsTestSupport.config().toBuilder().maxReceiveCount(2).build());
        broker.topology().declare(topic);
        broker.publisher().publish(topic, "crashes-its-consumer");
        String url = sqs.getQueueUrl(r -> r.queueName(topic.name())).queueUrl();
        for (int i = 0; i < 2; i++) {
            // a consumer that takes the message and dies: it becomes visible again without a settlement
            await().atMost(PATIENCE)
                    .until(() -> !sqs.receiveMessage(r -> r.queueUrl(url).visibilityTimeout(0))
                            .messages()
                            .isEmpty());
        }
        sqs.receiveMessage(r -> r.queueUrl(url).waitTimeSeconds(1));

        await().atMost(PATIENCE)
                .until(() -> attributes(topic.name() + "-dlq")
                        .get("ApproximateNumberOfMessages")
                        .equals("1"));
    }
}
