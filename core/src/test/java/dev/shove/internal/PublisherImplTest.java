package dev.shove.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.shove.AuthenticationException;
import dev.shove.BatchPublishException;
import dev.shove.BrokerUnavailableException;
import dev.shove.Codec;
import dev.shove.CodecException;
import dev.shove.PublishException;
import dev.shove.SequenceFailure;
import dev.shove.ShoveHeaders;
import dev.shove.ShoveMeters;
import dev.shove.Topic;
import dev.shove.TopologyException;
import dev.shove.spi.Capabilities;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.OutboundMessage;
import dev.shove.spi.Subscription;
import dev.shove.spi.SubscriptionRequest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("PublisherImpl")
class PublisherImplTest {
    private static final String UUID_V4 = "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}";

    record Order(String id, String customer) {}

    static final Topic<Order> ORDERS = Topic.builder("orders", Order.class)
            .holdQueue(Duration.ofSeconds(5))
            .dlq()
            .build();

    static final Topic<Order> SEQUENCED = Topic.builder("payments", Order.class)
            .holdQueue(Duration.ofSeconds(5))
            .dlq()
            .sequenced(SequenceFailure.SKIP, Order::customer)
            .routingShards(7)
            .build();

    /**
     * A transport that records what it is asked to publish and answers with {@link #answer}: the test double of the
     * SPI for the publisher, which never subscribes.
     */
    static class RecordingTransport extends TestTransport {
        final List<OutboundMessage> published = new CopyOnWriteArrayList<>();
        Function<OutboundMessage, CompletableFuture<Void>> answer = m -> CompletableFuture.completedFuture(null);

        RecordingTransport() {
            super(Capabilities.builder().build());
        }

        @Override
        public CompletableFuture<Void> publish(Topic<?> topic, OutboundMessage message) {
            published.add(message);
            return answer.apply(message);
        }

        @Override
        public Subscription subscribe(SubscriptionRequest request, DeliverySink sink) {
            throw new UnsupportedOperationException("the publisher never subscribes");
        }
    }

    private final RecordingTransport transport = new RecordingTransport();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final PublisherImpl publisher = new PublisherImpl(transport, new Metrics(registry));

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    private double published(String topic, String outcome) {
        var counter = registry.find(ShoveMeters.PUBLISHED)
                .tag("topic", topic)
                .tag("outcome", outcome)
                .counter();
        return counter == null ? 0 : counter.count();
    }

    private long publishTimings(String topic, String outcome) {
        var timer = registry.find(ShoveMeters.PUBLISH_DURATION)
                .tag("topic", topic)
                .tag("outcome", outcome)
                .timer();
        return timer == null ? 0 : timer.count();
    }

    /** Answers message {@code i} (in publish order) with {@code answers[i]}. */
    private void answerInOrder(List<CompletableFuture<Void>> answers) {
        List<CompletableFuture<Void>> queue = new ArrayList<>(answers);
        transport.answer = m -> queue.removeFirst();
    }

    @Nested
    @DisplayName("headers")
    class Headers {
        @Test
        @DisplayName("every message gets a fresh random UUID as shove-message-id")
        void messageId() {
            publisher.publish(ORDERS, new Order("o-1", "c-1"));
            publisher.publish(ORDERS, new Order("o-1", "c-1"));

            assertThat(transport.published).hasSize(2);
            String first = transport.published.get(0).headers().get(ShoveHeaders.MESSAGE_ID);
            String second = transport.published.get(1).headers().get(ShoveHeaders.MESSAGE_ID);
            assertThat(first).matches(UUID_V4);
            assertThat(second).matches(UUID_V4).isNotEqualTo(first);
        }

        @Test
        @DisplayName("the user's headers travel next to the message id, and the caller's map is left alone")
        void userHeaders() {
            Map<String, String> headers = new HashMap<>(Map.of("trace-id", "t-1", "x-custom", "v"));

            publisher.publishWithHeaders(ORDERS, new Order("o-1", "c-1"), headers);

            assertThat(transport.published.getFirst().headers())
                    .containsEntry("trace-id", "t-1")
                    .containsEntry("x-custom", "v")
                    .containsKey(ShoveHeaders.MESSAGE_ID)
                    .hasSize(3);
            assertThat(headers).hasSize(2);
        }

        @Test
        @DisplayName("a shove-message-id given by the caller is the message's id, instead of a fresh one")
        void callerMessageId() {
            publisher.publishWithHeaders(
                    ORDERS, new Order("o-1", "c-1"), Map.of(ShoveHeaders.MESSAGE_ID, "evt-42", "x-custom", "v"));

            assertThat(transport.published.getFirst().headers())
                    .containsEntry(ShoveHeaders.MESSAGE_ID, "evt-42")
                    .containsEntry("x-custom", "v")
                    .hasSize(2);
        }

        @Test
        @DisplayName("on a sequenced topic too, the caller's shove-message-id is kept beside the ordering key")
        void callerMessageIdSequenced() {
            publisher.publishWithHeaders(SEQUENCED, new Order("o-1", "a"), Map.of(ShoveHeaders.MESSAGE_ID, "evt-7"));

            assertThat(transport.published.getFirst().headers())
                    .containsEntry(ShoveHeaders.MESSAGE_ID, "evt-7")
                    .containsEntry(ShoveHeaders.SEQUENCE_KEY, "a");
        }

        @ParameterizedTest(name = "\"{0}\"")
        @ValueSource(strings = {"", "   ", "two\nlines"})
        @DisplayName("a caller's shove-message-id that is blank or not on one line is refused; nothing is published")
        void callerMessageIdChecked(String id) {
            assertThatThrownBy(() -> publisher.publishWithHeaders(
                            ORDERS, new Order("o-1", "c-1"), Map.of(ShoveHeaders.MESSAGE_ID, id)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("header 'shove-message-id' must be a message id of 1 to 200 characters")
                    .hasMessageContaining("topic 'orders'");
            assertThat(transport.published).isEmpty();
        }

        @Test
        @DisplayName("a caller's shove-message-id longer than 200 characters is refused")
        void callerMessageIdTooLong() {
            assertThatThrownBy(() -> publisher.publishWithHeaders(
                            ORDERS, new Order("o-1", "c-1"), Map.of(ShoveHeaders.MESSAGE_ID, "x".repeat(201))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("1 to 200 characters");
            assertThat(transport.published).isEmpty();
        }

        @ParameterizedTest(name = "\"{0}\"")
        @ValueSource(strings = {"Shove-Message-Id", "shove-retry-count", "SHOVE-SEQUENCE-KEY", "shove-mine"})
        @DisplayName("a header with the reserved prefix, in any case, is refused and nothing is published")
        void reservedRefused(String header) {
            assertThatThrownBy(() -> publisher.publishWithHeaders(ORDERS, new Order("o-1", "c-1"), Map.of(header, "x")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("header '" + header + "'")
                    .hasMessageContaining("reserved prefix 'shove-'")
                    .hasMessageContaining("topic 'orders'");

            assertThat(transport.published).isEmpty();
            assertThat(published("orders", "success") + published("orders", "error"))
                    .isZero();
        }

        @Test
        @DisplayName("publishAsync refuses a reserved header at once, before anything is published")
        void reservedRefusedAsync() {
            assertThatThrownBy(() -> publisher.publishAsync(ORDERS, new Order("o", "c"), Map.of("shove-x", "1")))
                    .isInstanceOf(IllegalArgumentException.class);

            assertThat(transport.published).isEmpty();
        }

        @Test
        @DisplayName("a header with a null value is refused, naming the header, and nothing is published")
        void nullValueRefused() {
            Map<String, String> headers = new HashMap<>();
            headers.put("trace-id", null);

            assertThatThrownBy(() -> publisher.publishWithHeaders(ORDERS, new Order("o", "c"), headers))
                    .isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("trace-id");
            assertThat(transport.published).isEmpty();
        }
    }

    @Nested
    @DisplayName("the outbound message")
    class Outbound {
        @Test
        @DisplayName("carries the encoded payload and the codec's content type; no key or shard when unsequenced")
        void unsequenced() {
            publisher.publish(ORDERS, new Order("o-1", "c-1"));

            OutboundMessage m = transport.published.getFirst();
            assertThat(new String(m.payload(), StandardCharsets.UTF_8))
                    .contains("\"id\":\"o-1\"")
                    .contains("\"customer\":\"c-1\"");
            assertThat(m.contentType()).isEqualTo("application/json");
            assertThat(m.key()).isNull();
            assertThat(m.shard()).isEqualTo(-1);
            assertThat(m.headers()).doesNotContainKey(ShoveHeaders.SEQUENCE_KEY);
        }

        @Test
        @DisplayName("on a sequenced topic carries the key in shove-sequence-key and its FNV-1a shard")
        void sequenced() {
            // fnv1a64("a") = 0xaf63dc4c8601ec8c; unsigned mod 7 = 5
            publisher.publishWithHeaders(SEQUENCED, new Order("o-1", "a"), Map.of("trace-id", "t"));

            OutboundMessage m = transport.published.getFirst();
            assertThat(m.key()).isEqualTo("a");
            assertThat(m.shard()).isEqualTo(5);
            assertThat(m.headers())
                    .containsEntry(ShoveHeaders.SEQUENCE_KEY, "a")
                    .containsEntry("trace-id", "t")
                    .containsKey(ShoveHeaders.MESSAGE_ID)
                    .hasSize(3);
        }

        @Test
        @DisplayName("messages of one key always go to the same shard")
        void sameKeySameShard() {
            for (int i = 0; i < 5; i++) {
                publisher.publish(SEQUENCED, new Order("o-" + i, "customer-42"));
            }

            assertThat(transport.published)
                    .extracting(OutboundMessage::shard)
                    .containsOnly(0); // FNV-1a-64("customer-42") mod 7
        }

        @Test
        @DisplayName("a sequence key function returning null fails the publish, nothing published")
        void nullKey() {
            Topic<Order> topic = Topic.builder("nullkey", Order.class)
                    .holdQueue(Duration.ofSeconds(5))
                    .dlq()
                    .sequenced(SequenceFailure.SKIP, o -> null)
                    .build();

            assertThatThrownBy(() -> publisher.publish(topic, new Order("o-1", "c")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("returned null");
            assertThat(transport.published).isEmpty();
        }

        @Test
        @DisplayName("a message the codec cannot encode fails with a CodecException naming topic and codec")
        void encodeFailure() {
            Codec<Order> failing = new Codec<>() {
                @Override
                public byte[] encode(Order message) {
                    throw new IllegalStateException("cannot write " + message.id());
                }

                @Override
                public Order decode(byte[] payload) {
                    throw new UnsupportedOperationException();
                }

                @Override
                public String contentType() {
                    return "application/x-test";
                }

                @Override
                public String name() {
                    return "failing";
                }
            };
            Topic<Order> topic = Topic.builder("unencodable", failing).dlq().build();

            assertThatThrownBy(() -> publisher.publish(topic, new Order("o-9", "c")))
                    .isInstanceOf(CodecException.class)
                    .hasMessageContaining("topic 'unencodable'")
                    .hasMessageContaining("codec failing")
                    .hasMessageContaining("cannot write o-9")
                    .hasCauseInstanceOf(IllegalStateException.class);
            assertThat(transport.published).isEmpty();
        }

        @Test
        @DisplayName("null topic, message or headers are refused")
        void nulls() {
            assertThatThrownBy(() -> publisher.publish(null, new Order("o", "c")))
                    .isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> publisher.publish(ORDERS, null)).isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> publisher.publishWithHeaders(ORDERS, new Order("o", "c"), null))
                    .isInstanceOf(NullPointerException.class);
            assertThat(transport.published).isEmpty();
        }
    }

    @Nested
    @DisplayName("single publish")
    class Single {
        @Test
        @DisplayName("counts and times an accepted publish")
        void success() {
            publisher.publish(ORDERS, new Order("o", "c"));

            assertThat(published("orders", "success")).isEqualTo(1);
            assertThat(published("orders", "error")).isZero();
            assertThat(publishTimings("orders", "success")).isEqualTo(1);
        }

        @Test
        @DisplayName("a broker refusal is a PublishException naming the topic, counted as an error")
        void refused() {
            transport.answer = m -> CompletableFuture.failedFuture(new IllegalStateException("nope"));

            assertThatThrownBy(() -> publisher.publish(ORDERS, new Order("o", "c")))
                    .isInstanceOf(PublishException.class)
                    .hasMessageContaining("publishing to topic 'orders' failed")
                    .hasCauseInstanceOf(IllegalStateException.class)
                    .satisfies(e ->
                            assertThat(((PublishException) e).isRetriable()).isFalse());
            assertThat(published("orders", "error")).isEqualTo(1);
            assertThat(publishTimings("orders", "error")).isEqualTo(1);
        }

        @Test
        @DisplayName("an unreachable broker gives a retriable PublishException")
        void unavailableIsRetriable() {
            transport.answer = m -> CompletableFuture.failedFuture(new BrokerUnavailableException("down"));

            PublishException e =
                    catchThrowableOfType(PublishException.class, () -> publisher.publish(ORDERS, new Order("o", "c")));

            assertThat(e.isRetriable()).isTrue();
            assertThat(e).hasCauseInstanceOf(BrokerUnavailableException.class);
        }

        @Test
        @DisplayName("a broker that refuses the credentials gives a PublishException that is not retriable, with the"
                + " refusal as its cause")
        void refusedCredentialsAreNotRetriable() {
            transport.answer = m -> CompletableFuture.failedFuture(
                    new AuthenticationException("broker at b:1 refused user 'app'; check the password"));

            PublishException e =
                    catchThrowableOfType(PublishException.class, () -> publisher.publish(ORDERS, new Order("o", "c")));

            assertThat(e.isRetriable()).isFalse();
            assertThat(e)
                    .hasCauseInstanceOf(AuthenticationException.class)
                    .hasMessageContaining("topic 'orders'")
                    .hasMessageContaining("refused user 'app'");
        }

        @Test
        @DisplayName("a PublishException or TopologyException from the transport is passed on as is")
        void ownExceptionsPassThrough() {
            PublishException refusal = new PublishException("queue 'orders' refused it", null, true);
            transport.answer = m -> CompletableFuture.failedFuture(refusal);
            assertThatThrownBy(() -> publisher.publish(ORDERS, new Order("o", "c")))
                    .isSameAs(refusal);

            TopologyException missing = new TopologyException("queue 'orders' does not exist");
            transport.answer = m -> CompletableFuture.failedFuture(missing);
            assertThatThrownBy(() -> publisher.publish(ORDERS, new Order("o", "c")))
                    .isSameAs(missing);
        }

        @Test
        @DisplayName("a transport that throws instead of failing the future gives the same PublishException")
        void transportThrows() {
            transport.answer = m -> {
                throw new IllegalStateException("closed");
            };

            assertThatThrownBy(() -> publisher.publish(ORDERS, new Order("o", "c")))
                    .isInstanceOf(PublishException.class)
                    .hasMessageContaining("topic 'orders'")
                    .hasCauseInstanceOf(IllegalStateException.class);
            assertThat(published("orders", "error")).isEqualTo(1);
        }

        @Test
        @DisplayName("publishAsync completes when the broker accepts, and fails with the PublishException")
        void async() {
            CompletableFuture<Void> broker = new CompletableFuture<>();
            transport.answer = m -> broker;

            CompletableFuture<Void> result = publisher.publishAsync(ORDERS, new Order("o", "c"), Map.of());

            assertThat(result).isNotDone();
            assertThat(transport.published).hasSize(1);
            broker.completeExceptionally(new IllegalStateException("nope"));
            assertThat(result).isCompletedExceptionally();
            assertThatThrownBy(result::join)
                    .isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(PublishException.class);
            assertThat(published("orders", "error")).isEqualTo(1);
        }

        @Test
        @DisplayName("an interrupt while waiting says the message may or may not be published, and stays set")
        void interrupted() {
            transport.answer = m -> new CompletableFuture<>();
            Thread.currentThread().interrupt();

            assertThatThrownBy(() -> publisher.publish(ORDERS, new Order("o", "c")))
                    .isInstanceOf(PublishException.class)
                    .hasMessageContaining("topic 'orders'")
                    .hasMessageContaining("may or may not");
            assertThat(Thread.interrupted()).isTrue();
        }
    }

    @Nested
    @DisplayName("batch publish")
    class Batch {
        private final List<Order> five = List.of(
                new Order("o-0", "c"),
                new Order("o-1", "c"),
                new Order("o-2", "c"),
                new Order("o-3", "c"),
                new Order("o-4", "c"));

        @Test
        @DisplayName("publishes every message in order, each with its own id, counted once per message")
        void allAccepted() {
            publisher.publishBatch(ORDERS, five);

            assertThat(transport.published).hasSize(5);
            assertThat(transport.published)
                    .extracting(m -> new String(m.payload(), StandardCharsets.UTF_8))
                    .allMatch(p -> p.contains("\"o-"))
                    .satisfies(p -> assertThat(p.get(3)).contains("o-3"));
            assertThat(transport.published)
                    .extracting(m -> m.headers().get(ShoveHeaders.MESSAGE_ID))
                    .doesNotHaveDuplicates()
                    .allMatch(id -> id.matches(UUID_V4));
            assertThat(published("orders", "success")).isEqualTo(5);
            assertThat(publishTimings("orders", "success")).isEqualTo(1);
        }

        @Test
        @DisplayName("names exactly the indices the broker refused; the others were accepted")
        void partialFailure() {
            answerInOrder(List.of(
                    CompletableFuture.completedFuture(null),
                    CompletableFuture.failedFuture(new IllegalStateException("refused 1")),
                    CompletableFuture.completedFuture(null),
                    CompletableFuture.failedFuture(new IllegalStateException("refused 3")),
                    CompletableFuture.completedFuture(null)));

            BatchPublishException e =
                    catchThrowableOfType(BatchPublishException.class, () -> publisher.publishBatch(ORDERS, five));

            assertThat(e.failedIndices()).containsExactly(1, 3);
            assertThat(e.batchSize()).isEqualTo(5);
            assertThat(e.failures().get(1))
                    .isInstanceOf(PublishException.class)
                    .hasMessageContaining("topic 'orders'")
                    .hasRootCauseMessage("refused 1");
            assertThat(e.failures().get(3)).hasRootCauseMessage("refused 3");
            assertThat(e)
                    .hasMessageContaining("2 of 5 messages published to topic 'orders' were not accepted")
                    .hasMessageContaining("indices [1, 3]")
                    .hasCause(e.failures().get(1));
            assertThat(e.isRetriable()).isFalse();
            assertThat(published("orders", "success")).isEqualTo(3);
            assertThat(published("orders", "error")).isEqualTo(2);
            assertThat(publishTimings("orders", "error")).isEqualTo(1);
        }

        @Test
        @DisplayName("is retriable only when every failure is")
        void retriable() {
            answerInOrder(List.of(
                    CompletableFuture.failedFuture(new BrokerUnavailableException("down")),
                    CompletableFuture.completedFuture(null),
                    CompletableFuture.failedFuture(new BrokerUnavailableException("down")),
                    CompletableFuture.completedFuture(null),
                    CompletableFuture.completedFuture(null)));
            BatchPublishException allRetriable =
                    catchThrowableOfType(BatchPublishException.class, () -> publisher.publishBatch(ORDERS, five));
            assertThat(allRetriable.isRetriable()).isTrue();

            answerInOrder(List.of(
                    CompletableFuture.failedFuture(new BrokerUnavailableException("down")),
                    CompletableFuture.failedFuture(new IllegalStateException("refused")),
                    CompletableFuture.completedFuture(null),
                    CompletableFuture.completedFuture(null),
                    CompletableFuture.completedFuture(null)));
            BatchPublishException mixed =
                    catchThrowableOfType(BatchPublishException.class, () -> publisher.publishBatch(ORDERS, five));
            assertThat(mixed.isRetriable()).isFalse();
        }

        @Test
        @DisplayName("a transport that throws fails every index")
        void transportThrows() {
            RecordingTransport throwing = new RecordingTransport() {
                @Override
                public List<CompletableFuture<Void>> publishAll(Topic<?> topic, List<OutboundMessage> messages) {
                    throw new IllegalStateException("connection closed");
                }
            };
            PublisherImpl p = new PublisherImpl(throwing, new Metrics(registry));

            BatchPublishException e =
                    catchThrowableOfType(BatchPublishException.class, () -> p.publishBatch(ORDERS, five));

            assertThat(e.failedIndices()).containsExactly(0, 1, 2, 3, 4);
            assertThat(e.failures().get(4)).hasRootCauseMessage("connection closed");
        }

        @Test
        @DisplayName("an empty batch publishes nothing and records nothing")
        void empty() {
            publisher.publishBatch(ORDERS, List.of());

            assertThat(transport.published).isEmpty();
            assertThat(registry.getMeters()).isEmpty();
        }

        @Test
        @DisplayName("a message that cannot be prepared (here: a null key) fails alone, at its index, as permanent;"
                + " the others are published")
        void unpreparableFailsAlone() {
            Topic<Order> topic = Topic.builder("badbatch", Order.class)
                    .holdQueue(Duration.ofSeconds(5))
                    .dlq()
                    .sequenced(SequenceFailure.SKIP, o -> o.customer().isEmpty() ? null : o.customer())
                    .build();
            List<Order> batch = List.of(new Order("o-0", "c"), new Order("o-1", ""), new Order("o-2", "c"));

            BatchPublishException e =
                    catchThrowableOfType(BatchPublishException.class, () -> publisher.publishBatch(topic, batch));

            assertThat(e.failedIndices()).containsExactly(1);
            assertThat(e.permanentIndices()).containsExactly(1);
            assertThat(e.retriableIndices()).isEmpty();
            assertThat(e.failures().get(1)).hasMessageContaining("badbatch");
            assertThat(e).hasMessageContaining("1 of 3").hasMessageContaining("1 refused for good ([1])");
            assertThat(e)
                    .hasMessageContaining(
                            "the first, index 1: " + e.failures().get(1).getMessage());
            assertThat(transport.published).hasSize(2);
        }

        @Test
        @DisplayName("a message that cannot be encoded fails alone, at its index; the others are published")
        void unencodableFailsAlone() {
            Codec<Order> json = Codec.json(Order.class);
            Topic<Order> topic = Topic.builder("encodebatch", new Codec<Order>() {
                        @Override
                        public byte[] encode(Order order) throws Exception {
                            if (order.id().equals("o-2")) {
                                throw new IllegalStateException("no encoding for o-2");
                            }
                            return json.encode(order);
                        }

                        @Override
                        public Order decode(byte[] payload) throws Exception {
                            return json.decode(payload);
                        }

                        @Override
                        public String contentType() {
                            return json.contentType();
                        }
                    })
                    .holdQueue(Duration.ofSeconds(5))
                    .build();
            List<Order> batch = List.of(new Order("o-0", "c"), new Order("o-1", "c"), new Order("o-2", "c"));

            BatchPublishException e =
                    catchThrowableOfType(BatchPublishException.class, () -> publisher.publishBatch(topic, batch));

            assertThat(e.failedIndices()).containsExactly(2);
            assertThat(e.permanentIndices()).containsExactly(2);
            assertThat(e.failures().get(2)).hasMessageContaining("no encoding for o-2");
            assertThat(transport.published).hasSize(2);
        }

        @Test
        @DisplayName("an interrupt fails exactly the messages not yet confirmed, and stays set")
        void interrupted() {
            answerInOrder(List.of(
                    CompletableFuture.completedFuture(null),
                    new CompletableFuture<>(),
                    CompletableFuture.completedFuture(null),
                    new CompletableFuture<>(),
                    CompletableFuture.failedFuture(new IllegalStateException("refused"))));
            Thread.currentThread().interrupt();

            BatchPublishException e =
                    catchThrowableOfType(BatchPublishException.class, () -> publisher.publishBatch(ORDERS, five));

            assertThat(e.failedIndices()).containsExactly(1, 3, 4);
            assertThat(e.failures().get(1)).hasMessageContaining("interrupted");
            assertThat(Thread.interrupted()).isTrue();
        }
    }
}
