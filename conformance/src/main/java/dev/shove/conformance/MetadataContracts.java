package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What {@link MessageMetadata} says about a delivery, including the parts only some brokers know. */
abstract class MetadataContracts<B> extends Contracts<B> {

    MetadataContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    private MessageMetadata firstDelivery(String prefix, Map<String, String> headers) {
        Topic<Msg> topic = plainTopic(prefix);
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        h().publisher().publishWithHeaders(topic, Msg.of(1), headers);
        return rec.awaitCalls(1).getFirst().metadata();
    }

    @Test
    @DisplayName("a first delivery has retryCount 0 and is not flagged redelivered")
    void firstDeliveryBasics() {
        MessageMetadata meta = firstDelivery("meta-first", Map.of());

        assertThat(meta.retryCount()).isZero();
        assertThat(meta.redelivered()).isFalse();
    }

    @Test
    @DisplayName("deliveryId is non-empty and differs between deliveries")
    void deliveryIds() {
        Topic<Msg> topic = plainTopic("meta-delivery-id");
        Recorder<Msg> rec =
                h().recorder((m, meta, attempt) -> m.n() == 0 && attempt == 0 ? Outcome.retry() : Outcome.ack());
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(0));
        h().publisher().publish(topic, Msg.of(1));

        List<String> ids =
                rec.awaitCalls(3).stream().map(c -> c.metadata().deliveryId()).toList();
        assertThat(ids).doesNotContain("").doesNotHaveDuplicates();
    }

    @Test
    @DisplayName("headers() holds the publisher's headers and shove's message id; messageId() reads it")
    void headersAndMessageId() {
        MessageMetadata meta = firstDelivery("meta-headers", Map.of("x-request-id", "r-1"));

        assertThat(meta.headers()).containsEntry("x-request-id", "r-1").containsKey(ShoveHeaders.MESSAGE_ID);
        assertThat(meta.messageId()).contains(meta.headers().get(ShoveHeaders.MESSAGE_ID));
        assertThat(meta.header("x-request-id")).contains("r-1");
    }

    @Test
    @DisplayName("header values in any script, with a tab, or looking like an encoded word arrive unchanged")
    void unicodeHeaderValues() {
        Map<String, String> headers = Map.of(
                "x-name", "Jürgen Müller",
                "x-city", "北京",
                "x-mood", "\uD83D\uDE00",
                "x-tabbed", "a\tb",
                "x-encoded-looking", "=?UTF-8?B?aGk=?=");
        MessageMetadata meta = firstDelivery("meta-unicode", headers);

        assertThat(meta.headers()).containsAllEntriesOf(headers);
    }

    @Test
    @DisplayName("a header value with a control character is refused at publish, naming the header and the topic;"
            + " nothing is published")
    void controlCharacterRefused() {
        Topic<Msg> topic = plainTopic("meta-control");
        assertThatThrownBy(() -> h().publisher().publishWithHeaders(topic, Msg.of(1), Map.of("x-note", "line\nbreak")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("header 'x-note' holds the character U+000A at index 4 (publishing to topic '"
                        + topic.name() + "')");
    }

    @Test
    @DisplayName(
            "deliveryCount is 1 on a first delivery where the broker counts deliveries, and empty where it does not")
    void deliveryCountFirst() {
        MessageMetadata meta = firstDelivery("meta-count", Map.of());

        if (capabilities().deliveryCount()) {
            assertThat(meta.deliveryCount()).hasValue(1);
        } else {
            assertThat(meta.deliveryCount()).isEmpty();
        }
    }

    @Test
    @DisplayName("a retry is a new broker message: deliveryCount restarts at 1 and it is not flagged redelivered")
    void retryIsNewMessage() {
        Topic<Msg> topic = plainTopic("meta-retry");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> attempt == 0 ? Outcome.retry() : Outcome.ack());
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        MessageMetadata retry = rec.awaitCalls(2).get(1).metadata();
        assertThat(retry.retryCount()).isEqualTo(1);
        assertThat(retry.redelivered()).isFalse();
        if (capabilities().deliveryCount()) {
            assertThat(retry.deliveryCount()).hasValue(1);
        } else {
            assertThat(retry.deliveryCount()).isEmpty();
        }
    }

    @Test
    @DisplayName("a message returned at shutdown comes back flagged redelivered with deliveryCount 2")
    void returnedMessageIsRedelivered() {
        assumeTrue(
                capabilities().redeliveryFlag() || capabilities().deliveryCount(),
                "the broker has neither a redelivered flag nor a delivery count");
        Topic<Msg> topic = plainTopic("meta-redelivered");
        Gate gate = h().gate();
        Recorder<Msg> first = h().recorder((m, meta, attempt) -> {
            gate.pass();
            return Outcome.ack();
        });
        var group = h().consume(topic, config(c -> c.noHandlerTimeout()), first);
        h().publisher().publish(topic, Msg.of(1));
        h().await("the handler to start", () -> gate.arrived() == 1);
        assertThat(group.stop(tier()).timedOut()).isTrue();

        Recorder<Msg> second = h().acking();
        h().consume(topic, second);
        MessageMetadata meta = second.awaitCalls(1).getFirst().metadata();
        if (capabilities().redeliveryFlag()) {
            assertThat(meta.redelivered()).isTrue();
        }
        if (capabilities().deliveryCount()) {
            assertThat(meta.deliveryCount()).hasValue(2);
        }
        assertThat(meta.retryCount()).isZero();
    }

    @Test
    @DisplayName("timestampMs is the broker's acceptance time where the broker has one, and empty where it does not")
    void timestamp() {
        long before = System.currentTimeMillis();
        MessageMetadata meta = firstDelivery("meta-timestamp", Map.of());
        long after = System.currentTimeMillis();

        if (capabilities().timestamps()) {
            // A broker on another clock may be a little off; an hour off means the field is something else.
            long slack = Duration.ofSeconds(5).toMillis();
            assertThat(meta.timestampMs()).isPresent();
            assertThat(meta.timestampMs().getAsLong()).isBetween(before - slack, after + slack);
        } else {
            assertThat(meta.timestampMs()).isEmpty();
        }
    }

    @Test
    @DisplayName("partition is present exactly when the backend declares coordinates; offset too, or where it seeks"
            + " in a log")
    void coordinates() {
        MessageMetadata meta = firstDelivery("meta-coordinates", Map.of());

        if (capabilities().coordinates()) {
            assertThat(meta.partition()).isPresent();
            assertThat(meta.partition().getAsInt()).isNotNegative();
            assertThat(meta.offset()).isPresent();
            assertThat(meta.offset().getAsLong()).isNotNegative();
        } else {
            assertThat(meta.partition()).isEmpty();
            if (capabilities().seek()) {
                // a log without partitions (a stream, the in-memory log) may number its messages
                meta.offset().ifPresent(offset -> assertThat(offset).isNotNegative());
            } else {
                assertThat(meta.offset()).isEmpty();
            }
        }
    }

    @Test
    @DisplayName("a dead letter's metadata carries the retryCount and headers of the message that died")
    void deadLetterMetadata() {
        Topic<Msg> topic = plainTopic("meta-dead");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> attempt < 2 ? Outcome.retry() : Outcome.reject());
        h().consume(topic, rec);
        h().publisher().publishWithHeaders(topic, Msg.of(1), Map.of("x-tenant", "t1"));

        MessageMetadata meta = rec.awaitDeaths(1).getFirst().metadata().message();
        assertThat(meta.retryCount()).isEqualTo(2);
        assertThat(meta.headers()).containsEntry("x-tenant", "t1");
        assertThat(meta.messageId()).contains(rec.calls().getFirst().messageId());
        assertThat(meta.deliveryId()).isNotEmpty();
    }
}
