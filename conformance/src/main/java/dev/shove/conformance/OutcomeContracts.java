package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.Outcome;
import dev.shove.Topic;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What each outcome does, and the retry arithmetic: {@code maxRetries = N} means at most N + 1 handler runs. */
abstract class OutcomeContracts<B> extends Contracts<B> {

    OutcomeContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    @Test
    @DisplayName("ack: the handler runs once and the message is not delivered again")
    void ackOnce() {
        Topic<Msg> topic = plainTopic("ack");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(1);
        rec.assertNoMoreCalls(1);
        assertThat(rec.deaths()).isEmpty();
    }

    @Test
    @DisplayName("retry: the message is delivered again with retryCount + 1")
    void retryIncrementsCount() {
        Topic<Msg> topic = plainTopic("retry");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> attempt < 2 ? Outcome.retry() : Outcome.ack());
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(3);
        rec.assertNoMoreCalls(3);
        assertThat(rec.retryCounts()).containsExactly(0, 1, 2);
        assertThat(rec.messages()).containsOnly(Msg.of(1));
    }

    @Test
    @DisplayName("an exception mapped to reject dead-letters the message at once, spending no retries")
    void exceptionMappedToReject() {
        Topic<Msg> topic = plainTopic("exception-reject");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            throw new IllegalArgumentException("malformed amount");
        });
        h().consume(topic, config(c -> c.exceptionOutcome(IllegalArgumentException.class, Outcome.reject())), rec);
        h().publisher().publish(topic, Msg.of(1));

        Recorder.Death<Msg> death = rec.awaitDeaths(1).getFirst();
        assertThat(death.reason()).isEqualTo("rejected");
        assertThat(death.retryCount()).isZero();
        assertThat(death.metadata().exceptionClass()).contains(IllegalArgumentException.class.getName());
        rec.assertNoMoreCalls(1);
    }

    @Test
    @DisplayName("an exception mapped to retry(delay) comes back no earlier than that delay; other exceptions retry")
    void exceptionMappedToRetryDelay() {
        Duration delay = tier().multipliedBy(3);
        Topic<Msg> topic = plainTopic("exception-retry");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            if (attempt == 0) {
                throw new java.util.concurrent.TimeoutException("dependency slow");
            }
            return Outcome.ack();
        });
        h().consume(
                        topic,
                        config(c ->
                                c.exceptionOutcome(java.util.concurrent.TimeoutException.class, Outcome.retry(delay))),
                        rec);
        h().publisher().publish(topic, Msg.of(1));

        List<Recorder.Call<Msg>> calls = rec.awaitCalls(2);
        assertThat(calls.get(1).retryCount()).isEqualTo(1);
        assertThat(millisBetween(calls.get(0).startNanos(), calls.get(1).startNanos()))
                .isGreaterThanOrEqualTo(atLeastMillis(delay));
    }

    @Test
    @DisplayName("retry: the next delivery comes no earlier than the tier's delay")
    void retryWaitsTierDelay() {
        Duration delay = tier().multipliedBy(2);
        Topic<Msg> topic = h().topic("retry-delay").holdQueue(delay).dlq().build();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> attempt == 0 ? Outcome.retry() : Outcome.ack());
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        List<Recorder.Call<Msg>> calls = rec.awaitCalls(2);
        assertThat(millisBetween(calls.get(0).startNanos(), calls.get(1).startNanos()))
                .isGreaterThanOrEqualTo(atLeastMillis(delay));
    }

    @Test
    @DisplayName(
            "retry n waits in tier min(n, tiers - 1): the waits between attempts follow the tiers, then stay on the last")
    void retryTierSelection() {
        Duration first = tier();
        Duration second = tier().multipliedBy(3);
        Topic<Msg> topic =
                h().topic("tiers").holdQueue(first).holdQueue(second).dlq().build();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> attempt < 3 ? Outcome.retry() : Outcome.ack());
        h().consume(topic, config(c -> c.maxRetries(5)), rec);
        h().publisher().publish(topic, Msg.of(1));

        List<Recorder.Call<Msg>> calls = rec.awaitCalls(4);
        assertThat(millisBetween(calls.get(0).startNanos(), calls.get(1).startNanos()))
                .as("retry 0 waits in tier 0")
                .isGreaterThanOrEqualTo(atLeastMillis(first));
        assertThat(millisBetween(calls.get(1).startNanos(), calls.get(2).startNanos()))
                .as("retry 1 waits in tier 1")
                .isGreaterThanOrEqualTo(atLeastMillis(second));
        assertThat(millisBetween(calls.get(2).startNanos(), calls.get(3).startNanos()))
                .as("retry 2 waits in the last tier, 1")
                .isGreaterThanOrEqualTo(atLeastMillis(second));
    }

    @Test
    @DisplayName("maxRetries = N: the handler runs exactly N + 1 times, then the message goes to the DLQ")
    void maxRetriesRuns() {
        Topic<Msg> topic = plainTopic("max-retries");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.retry());
        h().consume(topic, config(c -> c.maxRetries(3)), rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitDeaths(1);
        rec.assertNoMoreCalls(4);
        rec.assertNoMoreDeaths(1);
        assertThat(rec.retryCounts()).containsExactly(0, 1, 2, 3);
    }

    @Test
    @DisplayName("a retry past maxRetries goes to the DLQ with retryCount = maxRetries and reason max-retries-exceeded")
    void retryPastMaxRetries() {
        Topic<Msg> topic = plainTopic("past-max");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.retry());
        h().consume(topic, config(c -> c.maxRetries(2)), rec);
        h().publisher().publish(topic, Msg.of(1));

        Recorder.Death<Msg> death = rec.awaitDeaths(1).getFirst();
        assertThat(death.message()).isEqualTo(Msg.of(1));
        assertThat(death.retryCount()).isEqualTo(2);
        assertThat(death.reason()).isEqualTo("max-retries-exceeded");
    }

    @Test
    @DisplayName("maxRetries = 0: the handler runs once and its retry dead-letters the message")
    void maxRetriesZero() {
        Topic<Msg> topic = plainTopic("no-retries");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.retry());
        h().consume(topic, config(c -> c.maxRetries(0)), rec);
        h().publisher().publish(topic, Msg.of(1));

        Recorder.Death<Msg> death = rec.awaitDeaths(1).getFirst();
        rec.assertNoMoreCalls(1);
        assertThat(death.retryCount()).isZero();
        assertThat(death.reason()).isEqualTo("max-retries-exceeded");
    }

    @Test
    @DisplayName("reject: the message goes to the DLQ at once with reason rejected, without a retry")
    void rejectToDeadLetter() {
        Topic<Msg> topic = plainTopic("reject");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.reject());
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        Recorder.Death<Msg> death = rec.awaitDeaths(1).getFirst();
        rec.assertNoMoreCalls(1);
        assertThat(death.reason()).isEqualTo("rejected");
        assertThat(death.retryCount()).isZero();
        assertThat(death.message()).isEqualTo(Msg.of(1));
    }

    @Test
    @DisplayName("reject(reason): the dead letter's reason is 'rejected: <reason>'")
    void rejectWithReason() {
        Topic<Msg> topic = plainTopic("reject-reason");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.reject("no such customer"));
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        assertThat(rec.awaitDeaths(1).getFirst().reason()).isEqualTo("rejected: no such customer");
    }

    @Test
    @DisplayName("reject after retries: the dead letter keeps the retryCount the message had")
    void rejectKeepsRetryCount() {
        Topic<Msg> topic = plainTopic("reject-late");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> attempt < 2 ? Outcome.retry() : Outcome.reject());
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        assertThat(rec.awaitDeaths(1).getFirst().retryCount()).isEqualTo(2);
    }

    @Test
    @DisplayName(
            "reject without a DLQ: the message is discarded, counted in shove.messages.discarded, never redelivered")
    void rejectWithoutDeadLetterQueue() {
        Topic<Msg> topic = h().topic("reject-discard").holdQueue(tier()).build();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.reject());
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(1);
        h().await(
                        "shove.messages.discarded{reason=rejected} = 1",
                        () -> h().count("shove.messages.discarded", "topic", topic.name(), "reason", "rejected") == 1);
        rec.assertNoMoreCalls(1);
    }

    @Test
    @DisplayName("retries exhausted without a DLQ: the message is discarded and counted as max_retries_exceeded")
    void exhaustedWithoutDeadLetterQueue() {
        Topic<Msg> topic = h().topic("exhausted-discard").holdQueue(tier()).build();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.retry());
        h().consume(topic, config(c -> c.maxRetries(1)), rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(2);
        h().await(
                        "shove.messages.discarded{reason=max_retries_exceeded} = 1",
                        () -> h().count(
                                                "shove.messages.discarded",
                                                "topic",
                                                topic.name(),
                                                "reason",
                                                "max_retries_exceeded")
                                == 1);
        rec.assertNoMoreCalls(2);
    }

    @Test
    @DisplayName("defer: the message is delivered again with the same retryCount")
    void deferKeepsCount() {
        Topic<Msg> topic = plainTopic("defer");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> attempt < 2 ? Outcome.defer() : Outcome.ack());
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(3);
        rec.assertNoMoreCalls(3);
        assertThat(rec.retryCounts()).containsExactly(0, 0, 0);
    }

    @Test
    @DisplayName("defer waits in the first hold tier whatever the retryCount")
    void deferUsesFirstTier() {
        // The second tier is far beyond the patience: a defer that used it would never come back in time.
        Topic<Msg> topic = h().topic("defer-tier")
                .holdQueue(tier())
                .holdQueue(Duration.ofMinutes(10))
                .dlq()
                .build();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> switch (attempt) {
            case 0 -> Outcome.retry(); // rc 0 -> tier 0
            case 1, 2 -> Outcome.defer(); // rc 1: tier min(1, 1) would be the 10-minute tier
            default -> Outcome.ack();
        });
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        List<Recorder.Call<Msg>> calls = rec.awaitCalls(4);
        assertThat(rec.retryCounts()).containsExactly(0, 1, 1, 1);
        assertThat(millisBetween(calls.get(1).startNanos(), calls.get(2).startNanos()))
                .isGreaterThanOrEqualTo(atLeastMillis(tier()));
    }

    @Test
    @DisplayName("Retry, Defer, Ack: the handler observes retry counts [0, 1, 1]")
    void retryDeferAck() {
        Topic<Msg> topic = plainTopic("retry-defer-ack");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> switch (attempt) {
            case 0 -> Outcome.retry();
            case 1 -> Outcome.defer();
            default -> Outcome.ack();
        });
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(3);
        rec.assertNoMoreCalls(3);
        assertThat(rec.retryCounts()).containsExactly(0, 1, 1);
    }

    @Test
    @DisplayName("an always-deferring handler never reaches the DLQ, however often it defers")
    void alwaysDeferNeverDeadLetters() {
        Topic<Msg> topic = plainTopic("always-defer");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.defer());
        h().consume(topic, config(c -> c.maxRetries(1)), rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(4);
        assertThat(rec.deaths()).isEmpty();
        assertThat(rec.retryCounts()).containsOnly(0);
    }

    @Test
    @DisplayName("retry(delay) beyond the longest tier: the next delivery comes no earlier than the delay asked for")
    void retryWithDelay() {
        Duration asked = tier().multipliedBy(3);
        Topic<Msg> topic = plainTopic("retry-asked");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> attempt == 0 ? Outcome.retry(asked) : Outcome.ack());
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        List<Recorder.Call<Msg>> calls = rec.awaitCalls(2);
        assertThat(calls.get(1).retryCount()).isEqualTo(1);
        assertThat(millisBetween(calls.get(0).startNanos(), calls.get(1).startNanos()))
                .isGreaterThanOrEqualTo(atLeastMillis(asked));
    }

    @Test
    @DisplayName("defer(delay): the next delivery comes no earlier than the delay, with the same retryCount")
    void deferWithDelay() {
        Duration asked = tier().multipliedBy(3);
        Topic<Msg> topic = plainTopic("defer-asked");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> attempt == 0 ? Outcome.defer(asked) : Outcome.ack());
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        List<Recorder.Call<Msg>> calls = rec.awaitCalls(2);
        assertThat(calls.get(1).retryCount()).isZero();
        assertThat(millisBetween(calls.get(0).startNanos(), calls.get(1).startNanos()))
                .isGreaterThanOrEqualTo(atLeastMillis(asked));
    }

    @Test
    @DisplayName("a handler that throws is retried (retryCount + 1), not dead-lettered")
    void throwingHandlerRetried() {
        Topic<Msg> topic = plainTopic("throws");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            if (attempt == 0) {
                throw new IllegalStateException("transient failure on purpose");
            }
            return Outcome.ack();
        });
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(2);
        rec.assertNoMoreCalls(2);
        assertThat(rec.retryCounts()).containsExactly(0, 1);
        assertThat(rec.deaths()).isEmpty();
    }

    @Test
    @DisplayName("a throwing handler does not stop its consumer: other messages still flow")
    void throwingHandlerDoesNotStopConsumer() {
        Topic<Msg> topic = plainTopic("throws-flow");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            if (m.n() == 0) {
                throw new IllegalStateException("poison on purpose");
            }
            return Outcome.ack();
        });
        h().consume(topic, config(c -> c.prefetch(1).maxRetries(1)), rec);
        for (int i = 0; i < 5; i++) {
            h().publisher().publish(topic, Msg.of(i));
        }

        rec.awaitDeaths(1);
        h().await("messages 1..4 handled", () -> rec.calls(m -> m.n() > 0).size() == 4);
        assertThat(rec.calls(m -> m.n() == 0)).hasSize(2);
    }

    @Test
    @DisplayName("a handler that keeps throwing spends its retries and goes to the DLQ as max-retries-exceeded")
    void throwingHandlerExhausts() {
        Topic<Msg> topic = plainTopic("throws-always");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            throw new IllegalStateException("always failing on purpose");
        });
        h().consume(topic, config(c -> c.maxRetries(1)), rec);
        h().publisher().publish(topic, Msg.of(1));

        Recorder.Death<Msg> death = rec.awaitDeaths(1).getFirst();
        assertThat(rec.retryCounts()).containsExactly(0, 1);
        assertThat(death.reason()).isEqualTo("max-retries-exceeded");
        assertThat(death.retryCount()).isEqualTo(1);
    }

    @Test
    @DisplayName("a handler returning null is treated as retry")
    void nullOutcomeRetries() {
        Topic<Msg> topic = plainTopic("null-outcome");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> attempt == 0 ? null : Outcome.ack());
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(2);
        rec.assertNoMoreCalls(2);
        assertThat(rec.retryCounts()).containsExactly(0, 1);
    }

    @Test
    @DisplayName("a topic declared without hold tiers retries after its implicit 1 s tier, never at once")
    void implicitTier() {
        Topic<Msg> topic = h().topic("implicit-tier").dlq().build();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> attempt == 0 ? Outcome.retry() : Outcome.ack());
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        List<Recorder.Call<Msg>> calls = rec.awaitCalls(2);
        assertThat(calls.get(1).retryCount()).isEqualTo(1);
        assertThat(millisBetween(calls.get(0).startNanos(), calls.get(1).startNanos()))
                .isGreaterThanOrEqualTo(atLeastMillis(Topic.IMPLICIT_TIER_DELAY));
    }

    @Test
    @DisplayName("a retried message comes back with its payload bytes unchanged")
    void retryKeepsPayload() {
        Topic<byte[]> topic =
                h().rawTopic("retry-payload").holdQueue(tier()).dlq().build();
        byte[] payload = {0, 1, 2, (byte) 0xff, (byte) 0xfe, 10, 13};
        Recorder<byte[]> rec = h().recorder((m, meta, attempt) -> attempt == 0 ? Outcome.retry() : Outcome.ack());
        h().consume(topic, rec);
        h().publisher().publish(topic, payload);

        assertThat(rec.awaitCalls(2).get(1).message()).isEqualTo(payload);
    }

    @Test
    @DisplayName("a retry at maxRetries goes straight to the DLQ, without waiting in a hold tier first")
    void exhaustedSkipsHoldTier() {
        // the only tier is far beyond the patience: a hop through it would never reach the DLQ in time
        Topic<Msg> topic =
                h().topic("no-hold-hop").holdQueue(Duration.ofMinutes(10)).dlq().build();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.retry());
        h().consume(topic, config(c -> c.maxRetries(0)), rec);
        h().publisher().publish(topic, Msg.of(1));

        Recorder.Death<Msg> death = rec.awaitDeaths(1).getFirst();
        assertThat(death.reason()).isEqualTo("max-retries-exceeded");
        assertThat(death.retryCount()).isZero();
    }
}
