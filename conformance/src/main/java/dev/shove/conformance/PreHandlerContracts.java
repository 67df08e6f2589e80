package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.Outcome;
import dev.shove.Topic;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Failures before the handler: oversize and undecodable payloads never reach it and never spend its budget. */
abstract class PreHandlerContracts<B> extends Contracts<B> {
    private static final int LIMIT = 1024;

    PreHandlerContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    private static byte[] bytes(int size) {
        byte[] payload = new byte[size];
        Arrays.fill(payload, (byte) 'x');
        return payload;
    }

    @Test
    @DisplayName("a payload over maxMessageSize goes to the DLQ unchanged, as oversize, without calling the handler")
    void oversizeDeadLettered() {
        Topic<byte[]> topic = h().rawTopic("oversize").holdQueue(tier()).dlq().build();
        Recorder<byte[]> rec = h().acking();
        h().consume(topic, config(c -> c.maxMessageSize(LIMIT).noDeadLetterConsumer()), rec);
        Recorder<byte[]> dead = h().deadLetterReader(topic);
        byte[] payload = bytes(8 * 1024);
        h().publisher().publish(topic, payload);

        Recorder.Death<byte[]> death = dead.awaitDeaths(1).getFirst();
        assertThat(death.message()).isEqualTo(payload);
        assertThat(death.reason()).startsWith("oversize");
        assertThat(death.retryCount()).isZero();
        assertThat(rec.calls()).isEmpty();
    }

    @Test
    @DisplayName("an oversize payload is counted in shove.messages.failed{reason=oversize}")
    void oversizeCounted() {
        Topic<byte[]> topic =
                h().rawTopic("oversize-count").holdQueue(tier()).dlq().build();
        Recorder<byte[]> rec = h().acking();
        h().consume(topic, config(c -> c.maxMessageSize(LIMIT)), rec);
        h().publisher().publish(topic, bytes(8 * 1024));

        h().await(
                        "shove.messages.failed{reason=oversize} = 1",
                        () -> h().count("shove.messages.failed", "topic", topic.name(), "reason", "oversize") == 1);
        rec.assertNoMoreCalls(0);
    }

    @Test
    @DisplayName("a payload of exactly maxMessageSize bytes is handled")
    void exactlyAtLimit() {
        Topic<byte[]> topic = h().rawTopic("at-limit").holdQueue(tier()).dlq().build();
        Recorder<byte[]> rec = h().acking();
        h().consume(topic, config(c -> c.maxMessageSize(LIMIT)), rec);
        h().publisher().publish(topic, bytes(LIMIT));

        assertThat(rec.awaitCalls(1).getFirst().message()).hasSize(LIMIT);
        assertThat(rec.deaths()).isEmpty();
    }

    @Test
    @DisplayName("withoutMessageSizeLimit accepts payloads over a limit set before it")
    void limitDisabled() {
        Topic<byte[]> topic = h().rawTopic("no-limit").holdQueue(tier()).dlq().build();
        Recorder<byte[]> rec = h().acking();
        h().consume(topic, config(c -> c.maxMessageSize(LIMIT).noMessageSizeLimit()), rec);
        h().publisher().publish(topic, bytes(64 * 1024));

        assertThat(rec.awaitCalls(1).getFirst().message()).hasSize(64 * 1024);
        assertThat(rec.deaths()).isEmpty();
    }

    @Test
    @DisplayName("the size limit is checked on raw bytes before decoding: an oversize undecodable payload is oversize")
    void sizeCheckedBeforeDecode() {
        Topic<Msg> topic = plainTopic("size-first");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, config(c -> c.maxMessageSize(LIMIT).noDeadLetterConsumer()), rec);
        Recorder<byte[]> dead = h().deadLetterReader(topic);
        h().publisher().publish(h().rawTwin(topic), bytes(4 * 1024));

        assertThat(dead.awaitDeaths(1).getFirst().reason()).startsWith("oversize");
        assertThat(h().count("shove.messages.failed", "topic", topic.name(), "reason", "decode"))
                .isZero();
        assertThat(rec.calls()).isEmpty();
    }

    @Test
    @DisplayName("an undecodable payload goes to the DLQ unchanged without calling the handler")
    void undecodableDeadLettered() {
        Topic<Msg> topic = plainTopic("undecodable");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, config(c -> c.noDeadLetterConsumer()), rec);
        Recorder<byte[]> dead = h().deadLetterReader(topic);
        byte[] garbage = "not valid json {".getBytes(StandardCharsets.UTF_8);
        h().publisher().publish(h().rawTwin(topic), garbage);

        assertThat(dead.awaitDeaths(1).getFirst().message()).isEqualTo(garbage);
        rec.assertNoMoreCalls(0);
    }

    @Test
    @DisplayName("an undecodable payload's dead letter has reason 'decode-failed: <detail>'")
    void undecodableReason() {
        Topic<Msg> topic = plainTopic("undecodable-reason");
        h().consume(topic, config(c -> c.noDeadLetterConsumer()), h().acking());
        Recorder<byte[]> dead = h().deadLetterReader(topic);
        h().publisher().publish(h().rawTwin(topic), "[1, 2".getBytes(StandardCharsets.UTF_8));

        String reason = dead.awaitDeaths(1).getFirst().reason();
        assertThat(reason).startsWith("decode-failed: ");
        assertThat(reason.length()).isGreaterThan("decode-failed: ".length());
    }

    @Test
    @DisplayName(
            "an undecodable payload does not spend the retry budget: it is dead-lettered at once with retryCount 0")
    void undecodableSpendsNoBudget() {
        Topic<Msg> topic = plainTopic("undecodable-budget");
        h().consume(topic, config(c -> c.maxRetries(3).noDeadLetterConsumer()), h().acking());
        Recorder<byte[]> dead = h().deadLetterReader(topic);
        h().publisher().publish(h().rawTwin(topic), "\u0000\u0001".getBytes(StandardCharsets.UTF_8));

        Recorder.Death<byte[]> death = dead.awaitDeaths(1).getFirst();
        assertThat(death.retryCount()).isZero();
        assertThat(death.reason()).startsWith("decode-failed");
        h().assertStays(
                        "shove.messages.failed{reason=decode} = 1",
                        () -> h().count("shove.messages.failed", "topic", topic.name(), "reason", "decode") == 1);
    }

    @Test
    @DisplayName("messages after an undecodable one are handled: a poison pill blocks nothing")
    void undecodableBlocksNothing() {
        Topic<Msg> topic = plainTopic("poison-pill");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, config(c -> c.prefetch(1)), rec);
        h().publisher().publish(h().rawTwin(topic), "garbage".getBytes(StandardCharsets.UTF_8));
        h().publisher().publish(topic, Msg.of(1));
        h().publisher().publish(topic, Msg.of(2));

        rec.awaitCalls(2);
        assertThat(rec.messages()).containsExactlyInAnyOrder(Msg.of(1), Msg.of(2));
    }

    @Test
    @DisplayName("a message the handler rejects after decoding is not counted as a decode failure")
    void rejectIsNotDecodeFailure() {
        Topic<Msg> topic = plainTopic("not-decode");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.reject());
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitDeaths(1);
        assertThat(h().count("shove.messages.failed", "topic", topic.name(), "reason", "decode"))
                .isZero();
        assertThat(h().count("shove.messages.failed", "topic", topic.name(), "reason", "oversize"))
                .isZero();
    }

    @Test
    @DisplayName("a message arriving with more retries spent than maxRetries is dead-lettered without the handler")
    void overBudgetArrival() {
        Topic<Msg> topic = plainTopic("over-budget");
        Recorder<Msg> first = h().recorder((m, meta, attempt) -> Outcome.retry());
        var group = h().consume(topic, config(c -> c.maxRetries(5)), first);
        h().publisher().publish(topic, Msg.of(1));
        h().await(
                        "the first retry to settle",
                        () -> h().count("shove.messages.consumed", "topic", topic.name(), "outcome", "retry") == 1);
        assertThat(group.stop(h().patience()).exitCode()).isZero();

        // the limit is lowered while the retry waits in its tier
        Recorder<Msg> second = h().acking();
        h().consume(topic, config(c -> c.maxRetries(0)), second);
        Recorder.Death<Msg> death = second.awaitDeaths(1).getFirst();
        assertThat(death.reason()).isEqualTo("max-retries-exceeded");
        assertThat(death.retryCount()).isEqualTo(1);
        assertThat(second.calls()).isEmpty();
    }
}
