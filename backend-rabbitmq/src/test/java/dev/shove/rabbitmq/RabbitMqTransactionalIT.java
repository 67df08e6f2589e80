package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.GetResponse;
import dev.shove.Broker;
import dev.shove.ConsumerGroup;
import dev.shove.ConsumerGroupConfig;
import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The transactional settlement mode: a copy and the acknowledgement of its original commit together. Proved by
 * killing the connection (from the broker's side) after the copy is published and before the acknowledgement.
 */
class RabbitMqTransactionalIT {
    record Job(String id) {}

    @RegisterExtension
    static final RabbitAdmin admin = new RabbitAdmin();

    /** Runs one rejected message through a consumer whose connection is killed between copy and ack, once. */
    private static List<MessageMetadata> rejectWithKillBetweenCopyAndAck(Topic<Job> topic, boolean transactional)
            throws Exception {
        String connectionName = admin.unique("tx-conn");
        RabbitMqConfig config = admin.config(connectionName);
        if (transactional) {
            config = config.toBuilder().transactionalSettlement().build();
        }
        List<MessageMetadata> handled = new CopyOnWriteArrayList<>();
        try (Broker<RabbitMq> broker = admin.connect(config)) {
            broker.topology().declare(topic);
            RabbitMqTransport transport = broker.unwrap(RabbitMqTransport.class).orElseThrow();
            AtomicBoolean killed = new AtomicBoolean();
            transport.afterCopiesHook = () -> {
                if (killed.compareAndSet(false, true)) {
                    try {
                        // The management API lists a new connection only after its first statistics tick.
                        await().atMost(Duration.ofSeconds(20)).until(() -> admin.killConnection(connectionName) == 1);
                        await().atMost(Duration.ofSeconds(10)).until(() -> !transport.isConnected());
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            };
            ConsumerGroup<RabbitMq, NoContext> group = broker.consumerGroup();
            group.register(
                    topic, ConsumerGroupConfig.builder().noDeadLetterConsumer().build(), () -> (m, meta, c) -> {
                        handled.add(meta);
                        return Outcome.reject("not today");
                    });
            group.start();
            broker.publisher().publish(topic, new Job("j-1"));
            await().atMost(Duration.ofSeconds(30)).until(() -> killed.get() && handled.size() >= 2);
            await().atMost(Duration.ofSeconds(30)).until(() -> admin.depth(topic.name()) == 0);
            // Let a late duplicate show up if there is one.
            await().pollDelay(Duration.ofSeconds(1)).until(() -> true);
            group.stop(Duration.ofSeconds(10));
        }
        return handled;
    }

    @Test
    @DisplayName("transactional: a connection killed between the copy and the ack leaves exactly one dead letter")
    void transactionalKillBetweenSteps() throws Exception {
        Topic<Job> topic = Topic.builder(admin.unique("tx"), Job.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        List<MessageMetadata> handled = rejectWithKillBetweenCopyAndAck(topic, true);
        assertThat(handled).hasSize(2);
        assertThat(handled.get(1).redelivered())
                .as("the second run is the broker's redelivery")
                .isTrue();
        List<GetResponse> dead = admin.drain(topic.dlq().orElseThrow());
        assertThat(dead).as("no loss, no duplicate").hasSize(1);
        assertThat(AmqpMessages.toStrings(dead.getFirst().getProps().getHeaders()))
                .containsEntry(
                        ShoveHeaders.MESSAGE_ID, handled.getFirst().headers().get(ShoveHeaders.MESSAGE_ID));
        assertThat(admin.depth(topic.name())).isZero();
    }

    @Test
    @DisplayName("with confirms instead, the same kill duplicates the dead letter but loses nothing")
    void confirmModeKillBetweenSteps() throws Exception {
        Topic<Job> topic = Topic.builder(admin.unique("notx"), Job.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        List<MessageMetadata> handled = rejectWithKillBetweenCopyAndAck(topic, false);
        assertThat(handled).hasSize(2);
        List<GetResponse> dead = admin.drain(topic.dlq().orElseThrow());
        assertThat(dead)
                .as("the copy of the lost attempt was confirmed before the kill")
                .hasSize(2);
        assertThat(dead)
                .extracting(
                        r -> AmqpMessages.toStrings(r.getProps().getHeaders()).get(ShoveHeaders.MESSAGE_ID))
                .containsOnly(handled.getFirst().headers().get(ShoveHeaders.MESSAGE_ID));
        assertThat(admin.depth(topic.name())).isZero();
    }

    @Test
    @DisplayName("transactional: retries travel through the hold tier and acks commit, for many messages at once")
    void transactionalRetries() throws Exception {
        Topic<Job> topic = Topic.builder(admin.unique("txretry"), Job.class)
                .holdQueue(Duration.ofMillis(300))
                .dlq()
                .build();
        List<String> acked = new CopyOnWriteArrayList<>();
        try (Broker<RabbitMq> broker = admin.connect(admin.config(admin.unique("txretry")).toBuilder()
                .transactionalSettlement()
                .build())) {
            broker.topology().declare(topic);
            ConsumerGroup<RabbitMq, NoContext> group = broker.consumerGroup();
            group.register(
                    topic,
                    ConsumerGroupConfig.builder().consumers(2, 2).prefetch(20).build(),
                    () -> (m, meta, c) -> {
                        if (meta.retryCount() == 0 && m.id().endsWith("7")) {
                            return Outcome.retry();
                        }
                        acked.add(m.id());
                        return Outcome.ack();
                    });
            group.start();
            broker.publisher()
                    .publishBatch(
                            topic,
                            IntStream.range(0, 200)
                                    .mapToObj(i -> new Job("j-" + i))
                                    .toList());
            await().atMost(Duration.ofSeconds(60)).until(() -> acked.size() >= 200);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> broker.unwrap(RabbitMqTransport.class)
                                    .orElseThrow()
                                    .stats(topic)
                                    .inFlight()
                            == 0);
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();
        }
        assertThat(acked).hasSize(200).doesNotHaveDuplicates();
        assertThat(admin.depth(topic.name())).isZero();
        assertThat(admin.depth(topic.holdTiers().getFirst().queue())).isZero();
        assertThat(admin.depth(topic.dlq().orElseThrow())).isZero();
    }

    record Receipt(String jobId) {}

    @Test
    @DisplayName("transactional: a reply commits with the ack; a kill between them leaves exactly one reply")
    void transactionalReply() throws Exception {
        Topic<Job> jobs = Topic.builder(admin.unique("txreq"), Job.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        Topic<Receipt> receipts = Topic.builder(admin.unique("txrep"), Receipt.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        String connectionName = admin.unique("txreply-conn");
        List<MessageMetadata> handled = new CopyOnWriteArrayList<>();
        try (Broker<RabbitMq> broker = admin.connect(admin.config(connectionName).toBuilder()
                .transactionalSettlement()
                .build())) {
            assertThat(broker.capabilities().transactions()).isTrue();
            broker.topology().declare(jobs);
            broker.topology().declare(receipts);
            RabbitMqTransport transport = broker.unwrap(RabbitMqTransport.class).orElseThrow();
            AtomicBoolean killed = new AtomicBoolean();
            transport.afterCopiesHook = () -> {
                if (killed.compareAndSet(false, true)) {
                    try {
                        await().atMost(Duration.ofSeconds(20)).until(() -> admin.killConnection(connectionName) == 1);
                        await().atMost(Duration.ofSeconds(10)).until(() -> !transport.isConnected());
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            };
            ConsumerGroup<RabbitMq, NoContext> group = broker.consumerGroup();
            group.register(
                    jobs, ConsumerGroupConfig.builder().noDeadLetterConsumer().build(), () -> (m, meta, c) -> {
                        handled.add(meta);
                        return Outcome.reply(receipts, new Receipt(m.id()));
                    });
            group.start();
            broker.publisher().publish(jobs, new Job("j-9"));
            await().atMost(Duration.ofSeconds(30)).until(() -> killed.get() && handled.size() >= 2);
            await().atMost(Duration.ofSeconds(30)).until(() -> admin.depth(jobs.name()) == 0);
            await().pollDelay(Duration.ofSeconds(1)).until(() -> true);
            group.stop(Duration.ofSeconds(10));
        }
        assertThat(handled).hasSize(2);
        List<GetResponse> replies = admin.drain(receipts.name());
        assertThat(replies).as("no loss, no duplicate").hasSize(1);
        assertThat(new String(replies.getFirst().getBody(), java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo("{\"jobId\":\"j-9\"}");
        assertThat(replies.getFirst().getProps().getDeliveryMode()).isEqualTo(2);
    }
}
