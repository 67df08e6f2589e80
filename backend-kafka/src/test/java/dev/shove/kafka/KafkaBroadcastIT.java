package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroup;
import dev.shove.ConsumerGroupConfig;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.Topic;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Broadcast topics on Kafka: every subscriber reads every partition itself, from when it subscribed. */
class KafkaBroadcastIT {
    record Msg(int n) {}

    @RegisterExtension
    static final KafkaFixture kafka = new KafkaFixture();

    private static ConsumerGroup<Kafka, NoContext> subscriber(
            Broker<Kafka> broker, Topic<Msg> topic, String name, List<Integer> seen) {
        var group = broker.consumerGroup();
        group.register(topic, ConsumerGroupConfig.builder().groupName(name).build(), () -> (m, meta, c) -> {
            seen.add(m.n());
            return m.n() == 2 ? Outcome.retry() : Outcome.ack(); // not ack: discarded, never redelivered
        });
        group.start();
        return group;
    }

    @Test
    @DisplayName("every subscriber receives every message published after it subscribed, once")
    void everySubscriberReceivesEverything() {
        String name = kafka.topicName("broadcast");
        Topic<Msg> topic = Topic.builder(name, Msg.class).broadcast().build();
        List<Integer> a = new CopyOnWriteArrayList<>();
        List<Integer> b = new CopyOnWriteArrayList<>();
        List<Integer> late = new CopyOnWriteArrayList<>();
        try (Broker<Kafka> broker = kafka.connect()) {
            broker.topology().declare(topic);
            broker.publisher().publish(topic, new Msg(-1)); // before anyone subscribed: nobody gets it
            var first = subscriber(broker, topic, "a", a);
            var second = subscriber(broker, topic, "b", b);
            for (int i = 0; i < 5; i++) {
                broker.publisher().publish(topic, new Msg(i));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> a.size() == 5 && b.size() == 5);
            var third = subscriber(broker, topic, "late", late);
            broker.publisher().publish(topic, new Msg(5));
            await().atMost(Duration.ofSeconds(30)).until(() -> a.size() == 6 && b.size() == 6 && late.size() == 1);
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).until(() -> a.size() == 6);
            kafka.assertStopsCleanly(first);
            kafka.assertStopsCleanly(second);
            kafka.assertStopsCleanly(third);
        }
        assertThat(a).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5);
        assertThat(b).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5);
        assertThat(late).containsExactly(5);
    }
}
