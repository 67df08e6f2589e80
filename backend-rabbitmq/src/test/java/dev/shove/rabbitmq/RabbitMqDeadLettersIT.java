package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.GetResponse;
import dev.shove.Broker;
import dev.shove.BrokerUnavailableException;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.spi.DeadLetterStore;
import dev.shove.spi.Delivery;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The dead-letter store on a real broker, beyond the conformance kit: what a pass leaves behind, where it ends, what a
 * removal takes, and a connection closed by the broker in the middle of a pass. Dead letters are published straight
 * to the dead-letter queue, so their properties and headers are known to the byte.
 */
class RabbitMqDeadLettersIT {
    record Order(String id) {}

    @RegisterExtension
    static final RabbitAdmin admin = new RabbitAdmin();

    /** Epoch milliseconds of a whole second: AMQP timestamps have a resolution of one second. */
    private static final long PUBLISHED_AT = 1_700_000_000_000L;

    private static Topic<Order> topic(String prefix) {
        return Topic.builder(admin.unique(prefix), Order.class).dlq().build();
    }

    private static String dlq(Topic<?> topic) {
        return topic.dlq().orElseThrow();
    }

    /** Dead letters {@code from..to} in the DLQ, in order: body {@code letter-i}, shove's headers, a user's header. */
    private static void fill(Topic<?> topic, int from, int to) throws Exception {
        for (int i = from; i <= to; i++) {
            admin.publish(dlq(topic), properties(i), body(i));
        }
    }

    private static AMQP.BasicProperties properties(int i) {
        return new AMQP.BasicProperties.Builder()
                .contentType("application/json")
                .deliveryMode(AmqpMessages.PERSISTENT)
                .messageId("m-" + i)
                .timestamp(new Date(PUBLISHED_AT + i * 1000L))
                .headers(Map.of(
                        ShoveHeaders.MESSAGE_ID,
                        "m-" + i,
                        ShoveHeaders.DEATH_REASON,
                        "bad " + i,
                        "tenant",
                        "acme",
                        "attempt",
                        i))
                .build();
    }

    private static byte[] body(int i) {
        return ("letter-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] body) {
        return new String(body, StandardCharsets.UTF_8);
    }

    private static List<String> bodies(List<Delivery> letters) {
        return letters.stream().map(d -> text(d.payload())).toList();
    }

    private static DeadLetterStore store(Broker<RabbitMq> broker, Topic<?> topic) {
        return broker.unwrap(RabbitMqTransport.class).orElseThrow().deadLetters(topic, "any-group");
    }

    /** Reads the whole pass, a page of {@code page} at a time. */
    private static List<Delivery> readAll(DeadLetterStore.Scan scan, int page) {
        List<Delivery> all = new ArrayList<>();
        for (List<Delivery> next = scan.next(page); !next.isEmpty(); next = scan.next(page)) {
            all.addAll(next);
        }
        return all;
    }

    @Test
    @DisplayName("a pass that reads and removes nothing leaves the queue as it was: count, order, headers, properties")
    void passWithoutRemovalLeavesQueueAsItWas() throws Exception {
        Topic<Order> topic = topic("dl-as-was");
        try (Broker<RabbitMq> broker = admin.connect("dl-as-was")) {
            broker.topology().declare(topic);
            fill(topic, 1, 5);
            DeadLetterStore store = store(broker, topic);

            List<Delivery> firstRead;
            try (DeadLetterStore.Scan scan = store.scan()) {
                firstRead = new ArrayList<>(scan.next(2));
                firstRead.addAll(scan.next(1));
            }

            assertThat(store.count()).isEqualTo(5);
            assertThat(bodies(firstRead)).containsExactly("letter-1", "letter-2", "letter-3");
            Delivery first = firstRead.getFirst();
            assertThat(first.headers())
                    .isEqualTo(Map.of(
                            ShoveHeaders.MESSAGE_ID,
                            "m-1",
                            ShoveHeaders.DEATH_REASON,
                            "bad 1",
                            "tenant",
                            "acme",
                            "attempt",
                            "1"));
            assertThat(first.timestampMs()).isEqualTo(PUBLISHED_AT + 1000);
            assertThat(first.redelivered()).isFalse();
            assertThat(first.queue()).isEqualTo(dlq(topic));

            List<Delivery> again;
            try (DeadLetterStore.Scan scan = store.scan()) {
                again = readAll(scan, 2);
            }
            assertThat(bodies(again)).containsExactly("letter-1", "letter-2", "letter-3", "letter-4", "letter-5");
            assertThat(again.subList(0, 3))
                    .as("read before: given back flagged redelivered")
                    .allMatch(Delivery::redelivered);
            assertThat(again.subList(3, 5)).noneMatch(Delivery::redelivered);
            for (int i = 0; i < 3; i++) {
                assertThat(again.get(i).headers()).isEqualTo(firstRead.get(i).headers());
            }
        }
        List<GetResponse> left = admin.drain(dlq(topic));
        assertThat(left)
                .extracting(r -> text(r.getBody()))
                .containsExactly("letter-1", "letter-2", "letter-3", "letter-4", "letter-5");
        for (int i = 0; i < left.size(); i++) {
            AMQP.BasicProperties expected = properties(i + 1);
            AMQP.BasicProperties actual = left.get(i).getProps();
            assertThat(AmqpMessages.toStrings(actual.getHeaders()))
                    .isEqualTo(AmqpMessages.toStrings(expected.getHeaders()));
            assertThat(actual.getMessageId()).isEqualTo(expected.getMessageId());
            assertThat(actual.getTimestamp()).isEqualTo(expected.getTimestamp());
            assertThat(actual.getContentType()).isEqualTo(expected.getContentType());
            assertThat(actual.getDeliveryMode()).isEqualTo(AmqpMessages.PERSISTENT);
        }
    }

    @Test
    @DisplayName("a pass ends with the letters there when it began, while new dead letters arrive")
    void passIsBoundedByItsStart() throws Exception {
        Topic<Order> topic = topic("dl-bound");
        try (Broker<RabbitMq> broker = admin.connect("dl-bound")) {
            broker.topology().declare(topic);
            fill(topic, 1, 3);
            DeadLetterStore store = store(broker, topic);

            try (DeadLetterStore.Scan scan = store.scan()) {
                assertThat(bodies(scan.next(1))).containsExactly("letter-1");
                fill(topic, 4, 6);
                assertThat(bodies(scan.next(10))).containsExactly("letter-2", "letter-3");
                assertThat(scan.next(10)).isEmpty();
            }

            assertThat(store.count()).isEqualTo(6);
        }
    }

    @Test
    @DisplayName("remove takes exactly the letters given; the others go back in their order")
    void removeTakesExactlyThoseLetters() throws Exception {
        Topic<Order> topic = topic("dl-remove");
        try (Broker<RabbitMq> broker = admin.connect("dl-remove")) {
            broker.topology().declare(topic);
            fill(topic, 1, 6);
            DeadLetterStore store = store(broker, topic);

            try (DeadLetterStore.Scan scan = store.scan()) {
                List<Delivery> letters = readAll(scan, 10);
                scan.remove(List.of(letters.get(1), letters.get(0), letters.get(3))); // 1-2 contiguous, 4 alone
                scan.remove(List.of(letters.get(5)));
            }

            assertThat(store.count()).isEqualTo(2);
        }
        assertThat(admin.drain(dlq(topic))).extracting(r -> text(r.getBody())).containsExactly("letter-3", "letter-5");
    }

    @Test
    @DisplayName("a connection the broker closes mid-pass fails the pass, saying nothing is lost; and nothing is")
    void connectionLostMidPassLosesNothing() throws Exception {
        Topic<Order> topic = topic("dl-lost");
        String name = admin.unique("dl-lost");
        try (Broker<RabbitMq> broker = admin.connect(admin.config(name))) {
            broker.topology().declare(topic);
            fill(topic, 1, 5);
            RabbitMqTransport transport = broker.unwrap(RabbitMqTransport.class).orElseThrow();
            DeadLetterStore store = store(broker, topic);

            try (DeadLetterStore.Scan scan = store.scan()) {
                List<Delivery> read = scan.next(3);
                scan.remove(List.of(read.getFirst()));

                await().atMost(Duration.ofSeconds(20)).until(() -> admin.killConnection(name) == 1);
                await().atMost(Duration.ofSeconds(10)).until(() -> !transport.isConnected());

                assertThatThrownBy(() -> scan.next(10))
                        .isInstanceOf(BrokerUnavailableException.class)
                        .hasMessageContaining("'" + dlq(topic) + "'")
                        .hasMessageContaining("Nothing is lost");
                await().atMost(Duration.ofSeconds(20)).until(transport::isConnected);
                assertThatThrownBy(() -> scan.remove(List.of(read.get(1))))
                        .as("a recovered channel does not take the lost one's tags")
                        .isInstanceOf(BrokerUnavailableException.class)
                        .hasMessageContaining("removing 1 dead letter from dead-letter queue '" + dlq(topic) + "'")
                        .hasMessageContaining("Nothing is lost");
                assertThatThrownBy(() -> scan.next(10)).isInstanceOf(BrokerUnavailableException.class);
            }

            assertThat(store.count()).isEqualTo(4);
        }
        assertThat(admin.drain(dlq(topic)))
                .extracting(r -> text(r.getBody()))
                .containsExactly("letter-2", "letter-3", "letter-4", "letter-5");
    }
}
