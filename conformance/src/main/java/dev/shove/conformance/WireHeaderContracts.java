package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.Codec;
import dev.shove.ConsumerGroup;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.ShoveHeaders;
import dev.shove.ShoveMeters;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.spi.OutboundMessage;
import dev.shove.spi.Transport;
import dev.shove.spi.WireHeaders;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What another producer may put on the wire: {@code shove-} headers that cannot be read or lie out of range, and
 * codecs that throw more than exceptions. Every such message is handled, held or dead-lettered by bounded rules, and
 * the consumer goes on with the messages after it.
 */
abstract class WireHeaderContracts<B> extends Contracts<B> {

    WireHeaderContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    /**
     * Publishes {@code message} as another producer would: straight through the transport, with {@code shove-}
     * headers of its choosing (shove's publisher refuses them).
     */
    private <T> void publishForeign(Topic<T> topic, T message, Map<String, String> shoveHeaders) {
        h().broker().topology().declare(topic);
        Transport transport = h().broker().unwrap(Transport.class).orElseThrow();
        Map<String, String> headers = new HashMap<>(shoveHeaders);
        headers.putIfAbsent(ShoveHeaders.MESSAGE_ID, UUID.randomUUID().toString());
        String key = topic.sequencing().map(s -> s.keyOf(message)).orElse(null);
        int shard = -1;
        if (key != null) {
            headers.put(ShoveHeaders.SEQUENCE_KEY, key);
            shard = topic.sequencing().orElseThrow().shardOf(key);
        }
        try {
            byte[] payload = topic.codec().encode(message);
            transport
                    .publish(
                            topic,
                            new OutboundMessage(
                                    payload, headers, key, shard, topic.codec().contentType()))
                    .get(h().patience().toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError("publishing a foreign message to " + topic + " failed", e);
        }
    }

    private double invalid(String header, String problem) {
        return h().count(ShoveMeters.INVALID_HEADERS, "header", header, "problem", problem);
    }

    @Test
    @DisplayName("a shove-retry-count that cannot be read counts as 0: handled with retryCount 0, and counted")
    void unreadableRetryCount() {
        Topic<Msg> topic = plainTopic("wire-rc-unreadable");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        publishForeign(topic, Msg.of(1), Map.of(ShoveHeaders.RETRY_COUNT, "three"));

        assertThat(rec.awaitCalls(1).getFirst().retryCount()).isZero();
        h().await(
                        "shove.headers.invalid{header=shove-retry-count, problem=unreadable}",
                        () -> invalid(ShoveHeaders.RETRY_COUNT, "unreadable") >= 1);
    }

    @Test
    @DisplayName("a negative shove-retry-count counts as 0: handled with retryCount 0")
    void negativeRetryCount() {
        Topic<Msg> topic = plainTopic("wire-rc-negative");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        publishForeign(topic, Msg.of(1), Map.of(ShoveHeaders.RETRY_COUNT, "-5"));

        assertThat(rec.awaitCalls(1).getFirst().retryCount()).isZero();
    }

    @Test
    @DisplayName("a shove-retry-count past any budget is clamped: dead-lettered unhandled as max-retries-exceeded")
    void hugeRetryCount() {
        Topic<Msg> topic = plainTopic("wire-rc-huge");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        publishForeign(topic, Msg.of(1), Map.of(ShoveHeaders.RETRY_COUNT, "99999999999"));

        Recorder.Death<Msg> death = rec.awaitDeaths(1).getFirst();
        assertThat(death.reason()).isEqualTo("max-retries-exceeded");
        assertThat(death.retryCount()).isEqualTo(WireHeaders.MAX_RETRY_COUNT);
        assertThat(rec.calls()).isEmpty();
        assertThat(invalid(ShoveHeaders.RETRY_COUNT, "out_of_range")).isPositive();
    }

    @Test
    @DisplayName("a shove-not-before of Long.MIN_VALUE on a sequenced topic is due at once, and its key goes on")
    void minNotBeforeSequenced() {
        Topic<Msg> topic = h().topic("wire-nb-min")
                .holdQueue(tier())
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .build();
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        publishForeign(topic, new Msg("a", 0), Map.of(ShoveHeaders.NOT_BEFORE, Long.toString(Long.MIN_VALUE)));
        h().publisher().publish(topic, new Msg("a", 1));
        h().publisher().publish(topic, new Msg("a", 2));

        assertThat(rec.awaitCalls(3).stream().map(c -> c.message().label())).containsExactly("a0", "a1", "a2");
    }

    @Test
    @DisplayName("a far-future shove-not-before is clamped to at most MAX_DELAY ahead: held, never handled early, and"
            + " the messages after it flow")
    void farFutureNotBefore() {
        Topic<Msg> topic = plainTopic("wire-nb-future");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, config(c -> c.prefetch(1)), rec);
        publishForeign(topic, Msg.of(1), Map.of(ShoveHeaders.NOT_BEFORE, Long.toString(Long.MAX_VALUE)));
        h().publisher().publish(topic, Msg.of(2));

        assertThat(rec.awaitCalls(1).getFirst().message()).isEqualTo(Msg.of(2));
        rec.assertNoMoreCalls(1);
        assertThat(invalid(ShoveHeaders.NOT_BEFORE, "out_of_range")).isPositive();
    }

    @Test
    @DisplayName("a shove-death-count that cannot be read counts as 0: the message's dead letter has death count 1")
    void unreadableDeathCount() {
        Topic<Msg> topic = plainTopic("wire-death");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.reject("no"));
        h().consume(topic, rec);
        publishForeign(topic, Msg.of(1), Map.of(ShoveHeaders.DEATH_COUNT, "many"));

        Recorder.Death<Msg> death = rec.awaitDeaths(1).getFirst();
        assertThat(death.metadata().deathCount()).isEqualTo(1);
    }

    /** JSON for {@link Msg}, except that decoding message 13 throws {@code error} (every time, or the first time). */
    private static Codec<Msg> throwingOn13(Error error, boolean once) {
        Codec<Msg> json = Codec.json(Msg.class);
        AtomicBoolean thrown = new AtomicBoolean();
        return new Codec<>() {
            @Override
            public byte[] encode(Msg message) throws Exception {
                return json.encode(message);
            }

            @Override
            public Msg decode(byte[] payload) throws Exception {
                Msg m = json.decode(payload);
                if (m.n() == 13 && (!once || thrown.compareAndSet(false, true))) {
                    throw error;
                }
                return m;
            }

            @Override
            public String contentType() {
                return json.contentType();
            }
        };
    }

    @Test
    @DisplayName("a codec that throws an Error makes the message unreadable: dead-lettered, and the next is handled")
    void codecError() {
        Topic<Msg> topic = h().topic("wire-codec-error")
                .codec(throwingOn13(new AssertionError("codec bug"), false))
                .holdQueue(tier())
                .dlq()
                .build();
        Recorder<Msg> rec = h().acking();
        h().consume(topic, config(c -> c.prefetch(1).noDeadLetterConsumer()), rec);
        Recorder<byte[]> dead = h().deadLetterReader(topic);
        h().publisher().publish(topic, Msg.of(13));
        h().publisher().publish(topic, Msg.of(14));

        assertThat(rec.awaitCalls(1).getFirst().message()).isEqualTo(Msg.of(14));
        assertThat(dead.awaitDeaths(1).getFirst().reason())
                .startsWith("decode-failed")
                .contains("codec bug");
        rec.assertNoMoreCalls(1);
    }

    @Test
    @DisplayName("a VirtualMachineError out of the codec retries the message (nothing lost), the consumer goes on,"
            + " and the group reports an internal crash (exit code 2)")
    void codecVirtualMachineError() {
        Topic<Msg> topic = h().topic("wire-codec-vm-error")
                .codec(throwingOn13(new OutOfMemoryError("simulated by the conformance kit"), true))
                .holdQueue(tier())
                .dlq()
                .build();
        Recorder<Msg> rec = h().acking();
        ConsumerGroup<B, NoContext> group = h().consume(topic, config(c -> c.prefetch(1)), rec);
        h().publisher().publish(topic, Msg.of(13));
        h().publisher().publish(topic, Msg.of(14));

        List<Recorder.Call<Msg>> calls = rec.awaitCalls(2);
        assertThat(calls).extracting(Recorder.Call::message).containsExactlyInAnyOrder(Msg.of(13), Msg.of(14));
        assertThat(rec.calls(m -> m.n() == 13).getFirst().retryCount()).isEqualTo(1);
        SupervisorOutcome outcome = group.stop(Duration.ofSeconds(10));
        assertThat(outcome.exitCode()).isEqualTo(2);
    }
}
