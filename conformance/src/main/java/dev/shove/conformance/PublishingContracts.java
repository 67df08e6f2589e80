package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.shove.BatchPublishException;
import dev.shove.Codec;
import dev.shove.CodecException;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.ShoveException;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.TopologyException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Publishing: every flavour delivers, headers are the user's (minus the reserved prefix), ids are stable. */
abstract class PublishingContracts<B> extends Contracts<B> {

    PublishingContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    @Test
    @DisplayName("publish delivers the message, decoded equal to what was published")
    void publishDelivers() {
        Topic<Msg> topic = plainTopic("publish");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        h().publisher().publish(topic, new Msg("hello", 42));

        assertThat(rec.awaitCalls(1)).extracting(Recorder.Call::message).containsExactly(new Msg("hello", 42));
    }

    @Test
    @DisplayName("a byte[] topic delivers the payload bytes exactly as published")
    void rawBytesRoundTrip() {
        Topic<byte[]> topic = h().rawTopic("raw").holdQueue(tier()).dlq().build();
        byte[] payload = new byte[256];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) i;
        }
        Recorder<byte[]> rec = h().acking();
        h().consume(topic, rec);
        h().publisher().publish(topic, payload);

        assertThat(rec.awaitCalls(1).getFirst().message()).isEqualTo(payload);
    }

    @Test
    @DisplayName("messages published before the group starts are delivered once it starts")
    void publishedBeforeStart() {
        Topic<Msg> topic = plainTopic("before-start");
        h().broker().topology().declare(topic);
        h().publisher().publish(topic, Msg.of(1));
        h().publisher().publish(topic, Msg.of(2));
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);

        rec.awaitCalls(2);
        assertThat(rec.messages()).containsExactlyInAnyOrder(Msg.of(1), Msg.of(2));
    }

    @Test
    @DisplayName("publishWithHeaders: the publisher's headers arrive in metadata.headers()")
    void headersArrive() {
        Topic<Msg> topic = plainTopic("headers");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        h().publisher().publishWithHeaders(topic, Msg.of(1), Map.of("x-trace-id", "trace-1", "tenant", "acme"));

        Map<String, String> headers = rec.awaitCalls(1).getFirst().metadata().headers();
        assertThat(headers).containsEntry("x-trace-id", "trace-1").containsEntry("tenant", "acme");
    }

    @Test
    @DisplayName("publishAsync completes once the broker accepted the message, and the message is delivered")
    void publishAsync() throws Exception {
        Topic<Msg> topic = plainTopic("async");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        CompletableFuture<Void> accepted = h().publisher().publishAsync(topic, Msg.of(7), Map.of("k", "v"));

        accepted.get(h().patience().toMillis(), TimeUnit.MILLISECONDS);
        Recorder.Call<Msg> call = rec.awaitCalls(1).getFirst();
        assertThat(call.message()).isEqualTo(Msg.of(7));
        assertThat(call.metadata().headers()).containsEntry("k", "v");
    }

    @Test
    @DisplayName("publishBatch of N messages delivers exactly those N")
    void batchDeliversAll() {
        Topic<Msg> topic = plainTopic("batch");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        List<Msg> batch = IntStream.range(0, 12).mapToObj(Msg::of).toList();
        h().publisher().publishBatch(topic, batch);

        rec.awaitCalls(12);
        rec.assertNoMoreCalls(12);
        assertThat(rec.messages()).containsExactlyInAnyOrderElementsOf(batch);
    }

    @Test
    @DisplayName("an empty publishBatch is a no-op: nothing is delivered and nothing is counted")
    void emptyBatch() {
        Topic<Msg> topic = plainTopic("empty-batch");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        h().publisher().publishBatch(topic, List.of());

        rec.assertNoMoreCalls(0);
        assertThat(h().count("shove.messages.published", "topic", topic.name())).isZero();
    }

    @Test
    @DisplayName(
            "a header with the reserved shove- prefix is refused with IllegalArgumentException; nothing is published")
    void reservedHeaderRefused() {
        Topic<Msg> topic = plainTopic("reserved");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);

        assertThatThrownBy(() ->
                        h().publisher().publishWithHeaders(topic, Msg.of(1), Map.of(ShoveHeaders.RETRY_COUNT, "5")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(ShoveHeaders.RETRY_COUNT)
                .hasMessageContaining(topic.name());
        h().publisher().publish(topic, Msg.of(2));

        rec.awaitCalls(1);
        rec.assertNoMoreCalls(1);
        assertThat(rec.messages()).containsExactly(Msg.of(2));
    }

    @Test
    @DisplayName("the reserved prefix is recognised in any case (Shove-, SHOVE-, sHoVe-)")
    void reservedHeaderAnyCase() {
        Topic<Msg> topic = plainTopic("reserved-case");
        h().broker().topology().declare(topic);

        for (String name : List.of("Shove-Message-Id", "SHOVE-DEATH-REASON", "sHoVe-anything")) {
            assertThatThrownBy(() -> h().publisher().publishWithHeaders(topic, Msg.of(1), Map.of(name, "x")))
                    .as(name)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(name);
        }
        assertThat(h().count("shove.messages.published", "topic", topic.name())).isZero();
    }

    @Test
    @DisplayName("publishAsync refuses a reserved header at the call, before anything is published")
    void reservedHeaderAsync() {
        Topic<Msg> topic = plainTopic("reserved-async");
        h().broker().topology().declare(topic);

        assertThatThrownBy(() -> h().publisher().publishAsync(topic, Msg.of(1), Map.of("shove-not-before", "0")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(h().count("shove.messages.published", "topic", topic.name())).isZero();
    }

    @Test
    @DisplayName("a message that cannot be encoded fails the publish with a CodecException naming the topic")
    void encodeFailure() {
        Codec<Msg> broken = new Codec<>() {
            @Override
            public byte[] encode(Msg message) {
                throw new IllegalStateException("cannot encode " + message);
            }

            @Override
            public Msg decode(byte[] payload) {
                throw new IllegalStateException("cannot decode");
            }

            @Override
            public String contentType() {
                return "application/x-broken";
            }
        };
        Topic<Msg> topic = Topic.builder(h().name("encode-fails"), broken)
                .holdQueue(tier())
                .dlq()
                .build();
        h().broker().topology().declare(topic);

        assertThatThrownBy(() -> h().publisher().publish(topic, Msg.of(1)))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining(topic.name());
    }

    @Test
    @DisplayName("every message carries its own shove-message-id, single or batched")
    void messageIdsAreUnique() {
        Topic<Msg> topic = plainTopic("message-id");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(0));
        h().publisher().publishBatch(topic, List.of(Msg.of(1), Msg.of(2), Msg.of(3)));

        List<String> ids =
                rec.awaitCalls(4).stream().map(Recorder.Call::messageId).toList();
        assertThat(ids).doesNotContain("").doesNotHaveDuplicates();
        assertThat(rec.calls())
                .allSatisfy(
                        c -> assertThat(c.metadata().headers()).containsEntry(ShoveHeaders.MESSAGE_ID, c.messageId()));
    }

    @Test
    @DisplayName("a shove-message-id given by the publisher is the message's id, and a retry keeps it")
    void callerMessageId() {
        Topic<Msg> topic = plainTopic("caller-id");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> attempt < 1 ? Outcome.retry() : Outcome.ack());
        h().consume(topic, rec);
        String id = "caller-" + UUID.randomUUID();
        h().publisher().publishWithHeaders(topic, Msg.of(1), Map.of(ShoveHeaders.MESSAGE_ID, id));

        List<String> ids =
                rec.awaitCalls(2).stream().map(Recorder.Call::messageId).toList();
        assertThat(ids).containsExactly(id, id);
    }

    @Test
    @DisplayName("the shove-message-id stays the same across retries")
    void messageIdSurvivesRetries() {
        Topic<Msg> topic = plainTopic("id-retry");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> attempt < 2 ? Outcome.retry() : Outcome.ack());
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        List<String> ids =
                rec.awaitCalls(3).stream().map(Recorder.Call::messageId).toList();
        assertThat(ids).hasSize(3).doesNotContain("").containsOnly(ids.getFirst());
    }

    @Test
    @DisplayName("a dead letter keeps the message's shove-message-id")
    void messageIdSurvivesDeadLettering() {
        Topic<Msg> topic = plainTopic("id-dead");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.reject());
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        String id = rec.awaitCalls(1).getFirst().messageId();
        assertThat(rec.awaitDeaths(1).getFirst().metadata().message().messageId())
                .contains(id);
    }

    @Test
    @DisplayName("the publisher's headers survive a retry")
    void headersSurviveRetry() {
        Topic<Msg> topic = plainTopic("headers-retry");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> attempt == 0 ? Outcome.retry() : Outcome.ack());
        h().consume(topic, rec);
        h().publisher().publishWithHeaders(topic, Msg.of(1), Map.of("x-trace-id", "t-9", "x-custom", "c"));

        Recorder.Call<Msg> second = rec.awaitCalls(2).get(1);
        assertThat(second.retryCount()).isEqualTo(1);
        assertThat(second.metadata().headers())
                .containsEntry("x-trace-id", "t-9")
                .containsEntry("x-custom", "c");
    }

    @Test
    @DisplayName("the publisher's headers survive dead-lettering and reach handleDead")
    void headersSurviveDeadLettering() {
        Topic<Msg> topic = plainTopic("headers-dead");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> attempt == 0 ? Outcome.retry() : Outcome.reject());
        h().consume(topic, rec);
        h().publisher().publishWithHeaders(topic, Msg.of(1), Map.of("x-custom", "kept"));

        Recorder.Death<Msg> death = rec.awaitDeaths(1).getFirst();
        assertThat(death.metadata().message().headers()).containsEntry("x-custom", "kept");
    }

    @Test
    @DisplayName("a sequenced topic refuses a message whose key function gives null, and publishes nothing")
    void nullSequenceKey() {
        Topic<Msg> topic = h().topic("null-key")
                .holdQueue(tier())
                .dlq()
                .sequenced(SequenceFailure.SKIP, m -> m.n() == 0 ? null : m.key())
                .build();
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);

        assertThatThrownBy(() -> h().publisher().publish(topic, new Msg("a", 0)))
                .isInstanceOf(IllegalArgumentException.class);
        h().publisher().publish(topic, new Msg("a", 1));
        rec.awaitCalls(1);
        rec.assertNoMoreCalls(1);
        assertThat(rec.messages()).containsExactly(new Msg("a", 1));
    }

    @Test
    @DisplayName("a publisher used after its broker closed fails with a ShoveException")
    void publishAfterClose() {
        Topic<Msg> topic = plainTopic("closed");
        var publisher = h().publisher();
        h().broker().topology().declare(topic);
        h().broker().close();

        assertThatThrownBy(() -> publisher.publish(topic, Msg.of(1))).isInstanceOf(ShoveException.class);
    }

    @Test
    @DisplayName("only the prefix is reserved: a header that merely contains 'shove' is accepted")
    void onlyPrefixReserved() {
        Topic<Msg> topic = plainTopic("prefix-only");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        h().publisher().publishWithHeaders(topic, Msg.of(1), Map.of("x-shove-trace", "1", "shovel", "2"));

        assertThat(rec.awaitCalls(1).getFirst().metadata().headers())
                .containsEntry("x-shove-trace", "1")
                .containsEntry("shovel", "2");
    }

    @Test
    @DisplayName("publishAsync to a topic the broker refuses completes exceptionally with the TopologyException")
    void publishAsyncFailure() {
        assumeTrue(h().kit().refusesUndeclaredTopics(), "the backend creates topics on first use");
        Topic<Msg> topic = plainTopic("async-refused");

        CompletableFuture<Void> future = h().publisher().publishAsync(topic, Msg.of(1), Map.of());
        assertThatThrownBy(future::join)
                .isInstanceOf(CompletionException.class)
                .cause()
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining(topic.name());
    }

    @Test
    @DisplayName("a batch the broker refuses fails with a BatchPublishException naming every refused index")
    void batchFailureNamesIndices() {
        assumeTrue(h().kit().refusesUndeclaredTopics(), "the backend creates topics on first use");
        Topic<Msg> topic = plainTopic("batch-refused");

        assertThatThrownBy(() -> h().publisher().publishBatch(topic, List.of(Msg.of(1), Msg.of(2), Msg.of(3))))
                .isInstanceOfSatisfying(BatchPublishException.class, e -> {
                    assertThat(e.batchSize()).isEqualTo(3);
                    assertThat(e.failedIndices()).containsExactly(0, 1, 2);
                    assertThat(e.getMessage()).contains(topic.name());
                });
    }
}
