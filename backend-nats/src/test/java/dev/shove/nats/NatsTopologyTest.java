package dev.shove.nats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.SequenceFailure;
import dev.shove.Topic;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class NatsTopologyTest {

    @Test
    @DisplayName("a group name of letters, digits and dashes is its own token; anything else is replaced and hashed")
    void groupTokens() {
        assertThat(NatsTopology.token("billing-2")).isEqualTo("billing-2");
        String dotted = NatsTopology.token("billing.eu");
        assertThat(dotted).startsWith("billing_eu-").matches("[A-Za-z0-9_-]+");
        assertThat(NatsTopology.token("billing_eu")).isNotEqualTo(dotted);
        assertThat(NatsTopology.token("billing.eu")).as("stable").isEqualTo(dotted);
    }

    @Test
    @DisplayName("a group's consumers never collide with another group's: shove's suffixes start with '_'")
    void consumerNames() {
        assertThat(NatsTopology.mainConsumer("orders")).isEqualTo("orders");
        assertThat(NatsTopology.retryConsumer("orders")).isEqualTo("orders_retry");
        assertThat(NatsTopology.mainConsumer("orders_retry")).isNotEqualTo(NatsTopology.retryConsumer("orders"));
        assertThat(NatsTopology.shardConsumerPrefix("orders", 3)).isEqualTo("orders_seq3_g");
        assertThat(NatsSubscription.generationOf("orders_seq3_g12")).isEqualTo(12);
    }

    @Test
    @DisplayName("a topic's stream holds its subject and its groups' retry subjects; dots in the name become '_'")
    void plainSubjects() {
        Topic<String> topic = Topic.builder("shop.orders", String.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        assertThat(NatsTopology.stream(topic.name())).isEqualTo("shop_orders");
        assertThat(NatsTopology.subjects(topic)).containsExactly("shop.orders", "shop.orders.retry.>");
        assertThat(NatsTopology.retrySubject(topic, "billing")).isEqualTo("shop.orders.retry.billing");
    }

    @Test
    @DisplayName("a sequenced topic's stream holds one subject per shard; a broadcast topic's only its own")
    void sequencedAndBroadcastSubjects() {
        Topic<String> sequenced = Topic.builder("orders", String.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .sequenced(SequenceFailure.SKIP, s -> s)
                .routingShards(3)
                .build();
        assertThat(NatsTopology.subjects(sequenced)).containsExactly("orders.seq.0", "orders.seq.1", "orders.seq.2");
        Topic<String> broadcast =
                Topic.builder("prices", String.class).broadcast().build();
        assertThat(NatsTopology.subjects(broadcast)).containsExactly("prices");
    }

    @Test
    @DisplayName("a topic's stream must keep messages twice its longest hold tier; a broadcast topic holds nothing")
    void minimumMaxAge() {
        Topic<String> plain = Topic.builder("orders", String.class)
                .holdQueue(Duration.ofSeconds(5))
                .holdQueue(Duration.ofMinutes(10))
                .dlq()
                .build();
        assertThat(NatsTopology.minimumMaxAge(plain)).isEqualTo(Duration.ofMinutes(20));
        Topic<String> broadcast =
                Topic.builder("prices", String.class).broadcast().build();
        assertThat(NatsTopology.minimumMaxAge(broadcast)).isNull();
    }
}
