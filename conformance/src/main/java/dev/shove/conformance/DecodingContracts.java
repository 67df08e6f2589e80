package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.shove.Codec;
import dev.shove.DecodeFailurePolicy;
import dev.shove.Outcome;
import dev.shove.SchemaVersions;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Messages that cannot be read (a payload that does not decode, a required header missing, headers that do not fit the
 * registration's header contract) never reach the handler and are settled by the registration's {@link
 * DecodeFailurePolicy}; messages that can be read expose their headers as a typed record.
 */
abstract class DecodingContracts<B> extends Contracts<B> {

    /** The header contract of these tests: {@code tenant-id} and {@code priority} required, {@code region} optional. */
    record TenantHeaders(String tenantId, int priority, Optional<String> region) {}

    /** A level of a header contract parsed into an enum. */
    enum Level {
        LOW,
        HIGH
    }

    /** A header contract with an enum and a boolean. */
    record Flags(Level level, boolean urgent) {}

    private static final byte[] GARBAGE = "not json {".getBytes(StandardCharsets.UTF_8);

    DecodingContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    private double decodeFailures(Topic<?> topic) {
        return h().count("shove.messages.failed", "topic", topic.name(), "reason", "decode");
    }

    @Test
    @DisplayName("policy REJECT: an undecodable payload is dead-lettered at once as decode-failed, its budget"
            + " untouched")
    void rejectPolicy() {
        Topic<Msg> topic = plainTopic("decode-reject");
        Recorder<Msg> rec = h().acking();
        h().consume(
                        topic,
                        config(c -> c.maxRetries(3)
                                .decodeFailurePolicy(DecodeFailurePolicy.REJECT)
                                .noDeadLetterConsumer()),
                        rec);
        Recorder<byte[]> dead = h().deadLetterReader(topic);
        h().publisher().publish(h().rawTwin(topic), GARBAGE);

        Recorder.Death<byte[]> death = dead.awaitDeaths(1).getFirst();
        assertThat(death.reason()).startsWith("decode-failed: ");
        assertThat(death.retryCount()).isZero();
        assertThat(death.message()).isEqualTo(GARBAGE);
        h().assertStays("decoded once, never retried", () -> decodeFailures(topic) == 1);
        assertThat(rec.calls()).isEmpty();
    }

    /** A topic named {@code name} whose JSON codec is at schema version {@code current}. */
    private Topic<Msg> versioned(String name, SchemaVersions<JsonNode> versions) {
        return Topic.builder(name, Codec.json(Msg.class, versions))
                .holdQueue(h().tier())
                .dlq()
                .build();
    }

    @Test
    @DisplayName("a schema version travels with the message: an older one is upcast on every attempt, a newer one is"
            + " dead-lettered as decode-failed naming it")
    void schemaVersions() {
        String name = h().name("decode-versions");
        // version 1 called the key "label"; version 2 renamed it
        Topic<Msg> topic = versioned(
                name,
                SchemaVersions.<JsonNode>builder(2)
                        .upcaster(1, v1 -> {
                            ObjectNode o = (ObjectNode) v1;
                            o.set("key", o.remove("label"));
                            return o;
                        })
                        .build());
        Topic<Msg> newer = versioned(name, SchemaVersions.<JsonNode>builder(3).build());
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> attempt == 0 ? Outcome.retry() : Outcome.ack());
        h().consume(topic, config(c -> c.noDeadLetterConsumer()), rec);
        Recorder<byte[]> dead = h().deadLetterReader(topic);
        // version 1 as its producer wrote it: no version header
        h().publisher().publish(h().rawTwin(topic), "{\"label\":\"old\",\"n\":1}".getBytes(StandardCharsets.UTF_8));
        h().publisher().publish(newer, new Msg("new", 3));

        List<Recorder.Call<Msg>> calls = rec.awaitCalls(2);
        assertThat(calls).extracting(Recorder.Call::message).containsOnly(new Msg("old", 1));
        assertThat(calls).extracting(c -> c.metadata().retryCount()).containsExactly(0, 1);
        Recorder.Death<byte[]> death = dead.awaitDeaths(1).getFirst();
        assertThat(death.reason())
                .startsWith("decode-failed: json(dev.shove.conformance.Msg, v2): schema version 3 is newer than this"
                        + " consumer reads (up to 2)");
        assertThat(death.metadata().message().header(ShoveHeaders.SCHEMA_VERSION))
                .hasValue("3");
    }

    @Test
    @DisplayName("policy RETRY: an undecodable payload is retried (retryCount advances), then dead-lettered as"
            + " max-retries-exceeded")
    void retryPolicy() {
        Topic<Msg> topic = plainTopic("decode-retry");
        Recorder<Msg> rec = h().acking();
        h().consume(
                        topic,
                        config(c -> c.maxRetries(2)
                                .decodeFailurePolicy(DecodeFailurePolicy.RETRY)
                                .noDeadLetterConsumer()),
                        rec);
        Recorder<byte[]> dead = h().deadLetterReader(topic);
        h().publisher().publish(h().rawTwin(topic), GARBAGE);

        Recorder.Death<byte[]> death = dead.awaitDeaths(1).getFirst();
        assertThat(death.reason()).isEqualTo("max-retries-exceeded");
        assertThat(death.retryCount()).isEqualTo(2);
        assertThat(death.message()).isEqualTo(GARBAGE);
        assertThat(decodeFailures(topic))
                .as("one decode per run: maxRetries + 1")
                .isEqualTo(3);
        assertThat(rec.calls()).isEmpty();
    }

    @Test
    @DisplayName("policy SKIP: an undecodable payload is acknowledged and dropped, counted in"
            + " shove.messages.discarded{reason=decode}, never dead-lettered")
    void skipPolicy() {
        Topic<Msg> topic = plainTopic("decode-skip");
        Recorder<Msg> rec = h().acking();
        h().consume(
                        topic,
                        config(c ->
                                c.decodeFailurePolicy(DecodeFailurePolicy.SKIP).noDeadLetterConsumer()),
                        rec);
        Recorder<byte[]> dead = h().deadLetterReader(topic);
        h().publisher().publish(h().rawTwin(topic), GARBAGE);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(1);
        h().await(
                        "shove.messages.discarded{reason=decode} = 1",
                        () -> h().count("shove.messages.discarded", "topic", topic.name(), "reason", "decode") == 1);
        dead.assertNoMoreDeaths(0);
        rec.assertNoMoreCalls(1);
        assertThat(rec.messages()).containsExactly(Msg.of(1));
    }

    @Test
    @DisplayName("a JSON message of the wrong shape (a required field missing, a primitive null) never reaches the"
            + " handler: it is dead-lettered as decode-failed, the reason naming the field")
    void wrongShapeDeadLettered() {
        Topic<Msg> topic = plainTopic("decode-shape");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, config(c -> c.noDeadLetterConsumer()), rec);
        Recorder<byte[]> dead = h().deadLetterReader(topic);
        byte[] missing = "{\"id\":\"o-1\",\"n\":5}".getBytes(StandardCharsets.UTF_8);
        byte[] nullPrimitive = "{\"key\":\"k\",\"n\":null}".getBytes(StandardCharsets.UTF_8);
        h().publisher().publish(h().rawTwin(topic), missing);
        h().publisher().publish(h().rawTwin(topic), nullPrimitive);

        var deaths = dead.awaitDeaths(2);
        assertThat(deaths)
                .extracting(d -> new String(d.message(), StandardCharsets.UTF_8), Recorder.Death::reason)
                .containsExactlyInAnyOrder(
                        tuple(
                                new String(missing, StandardCharsets.UTF_8),
                                "decode-failed: json(" + Msg.class.getName() + "): required field 'key' is missing"),
                        tuple(
                                new String(nullPrimitive, StandardCharsets.UTF_8),
                                "decode-failed: json(" + Msg.class.getName()
                                        + "): field 'n' is null, but its type int cannot be null"));
        assertThat(deaths).allSatisfy(d -> assertThat(d.retryCount()).isZero());
        assertThat(rec.calls()).isEmpty();
    }

    @Test
    @DisplayName("a JSON message with fields its type does not know is handled: producers may add fields")
    void unknownFieldsTolerated() {
        Topic<Msg> topic = plainTopic("decode-added");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        h().publisher()
                .publish(
                        h().rawTwin(topic),
                        "{\"key\":\"k\",\"n\":1,\"addedLater\":{\"x\":[1,2]}}".getBytes(StandardCharsets.UTF_8));

        rec.awaitCalls(1);
        assertThat(rec.messages()).containsExactly(Msg.of(1));
    }

    @Test
    @DisplayName("a message without a required header never reaches the handler: policy REJECT dead-letters it,"
            + " naming the header")
    void requiredHeaderMissing() {
        Topic<Msg> topic = plainTopic("decode-required");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, config(c -> c.requiredHeaders("tenant-id")), rec);
        h().publisher().publish(topic, Msg.of(1));
        h().publisher().publishWithHeaders(topic, Msg.of(2), Map.of("tenant-id", "t1"));

        Recorder.Death<Msg> death = rec.awaitDeaths(1).getFirst();
        assertThat(death.message()).isEqualTo(Msg.of(1));
        assertThat(death.reason()).startsWith("decode-failed: ").contains("tenant-id");
        assertThat(death.retryCount()).isZero();
        rec.awaitCalls(1);
        rec.assertNoMoreCalls(1);
        assertThat(rec.messages()).containsExactly(Msg.of(2));
    }

    @Test
    @DisplayName("a message without a required header is settled by the policy: SKIP drops it, counted as decode")
    void requiredHeaderMissingSkipped() {
        Topic<Msg> topic = plainTopic("decode-required-skip");
        Recorder<Msg> rec = h().acking();
        h().consume(
                        topic,
                        config(c -> c.requiredHeaders("tenant-id").decodeFailurePolicy(DecodeFailurePolicy.SKIP)),
                        rec);
        h().publisher().publish(topic, Msg.of(1));

        h().await(
                        "shove.messages.discarded{reason=decode} = 1",
                        () -> h().count("shove.messages.discarded", "topic", topic.name(), "reason", "decode") == 1);
        rec.assertNoMoreCalls(0);
        rec.assertNoMoreDeaths(0);
    }

    @Test
    @DisplayName("a header contract: the handler reads the headers as a typed record with metadata.headersAs")
    void headerContractParsed() {
        Topic<Msg> topic = plainTopic("headers-typed");
        CopyOnWriteArrayList<TenantHeaders> parsed = new CopyOnWriteArrayList<>();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            parsed.add(meta.headersAs(TenantHeaders.class));
            return Outcome.ack();
        });
        h().consume(topic, config(c -> c.headerContract(TenantHeaders.class)), rec);
        h().publisher()
                .publishWithHeaders(topic, Msg.of(1), Map.of("tenant-id", "acme", "priority", "7", "region", "eu"));

        // the call is recorded before the handler body runs: wait for what the body parsed

        h().await("the headers to be parsed", () -> parsed.size() == 1);
        assertThat(parsed).containsExactly(new TenantHeaders("acme", 7, Optional.of("eu")));
    }

    @Test
    @DisplayName("a header contract: a component is read from the header of its own name, or its kebab-case name")
    void headerContractNames() {
        Topic<Msg> topic = plainTopic("headers-names");
        CopyOnWriteArrayList<TenantHeaders> parsed = new CopyOnWriteArrayList<>();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            parsed.add(meta.headersAs(TenantHeaders.class));
            return Outcome.ack();
        });
        h().consume(topic, config(c -> c.headerContract(TenantHeaders.class)), rec);
        h().publisher().publishWithHeaders(topic, Msg.of(1), Map.of("tenantId", "camel", "priority", "1"));

        // the call is recorded before the handler body runs: wait for what the body parsed

        h().await("the headers to be parsed", () -> parsed.size() == 1);
        assertThat(parsed).containsExactly(new TenantHeaders("camel", 1, Optional.empty()));
    }

    @Test
    @DisplayName("a header contract: enums and booleans are parsed from their text")
    void headerContractTypes() {
        Topic<Msg> topic = plainTopic("headers-types");
        CopyOnWriteArrayList<Flags> parsed = new CopyOnWriteArrayList<>();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            parsed.add(meta.headersAs(Flags.class));
            return Outcome.ack();
        });
        h().consume(topic, config(c -> c.headerContract(Flags.class)), rec);
        h().publisher().publishWithHeaders(topic, Msg.of(1), Map.of("level", "HIGH", "urgent", "true"));

        // the call is recorded before the handler body runs: wait for what the body parsed

        h().await("the headers to be parsed", () -> parsed.size() == 1);
        assertThat(parsed).containsExactly(new Flags(Level.HIGH, true));
    }

    @Test
    @DisplayName("a header contract: Optional components may be missing, and the message is handled")
    void headerContractOptionalMissing() {
        Topic<Msg> topic = plainTopic("headers-optional");
        CopyOnWriteArrayList<TenantHeaders> parsed = new CopyOnWriteArrayList<>();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            parsed.add(meta.headersAs(TenantHeaders.class));
            return Outcome.ack();
        });
        h().consume(topic, config(c -> c.headerContract(TenantHeaders.class)), rec);
        h().publisher().publishWithHeaders(topic, Msg.of(1), Map.of("tenant-id", "acme", "priority", "2"));

        // the call is recorded before the handler body runs: wait for what the body parsed

        h().await("the headers to be parsed", () -> parsed.size() == 1);
        assertThat(parsed).containsExactly(new TenantHeaders("acme", 2, Optional.empty()));
        assertThat(rec.deaths()).isEmpty();
    }

    @Test
    @DisplayName("a header contract: a missing required component settles the message by the policy, without the"
            + " handler")
    void headerContractMissingComponent() {
        Topic<Msg> topic = plainTopic("headers-missing");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, config(c -> c.headerContract(TenantHeaders.class)), rec);
        h().publisher().publishWithHeaders(topic, Msg.of(1), Map.of("tenant-id", "acme"));

        Recorder.Death<Msg> death = rec.awaitDeaths(1).getFirst();
        assertThat(death.reason()).startsWith("decode-failed: ").contains("priority");
        rec.assertNoMoreCalls(0);
    }

    @Test
    @DisplayName("a header contract: a value that does not parse settles the message by the policy, without the"
            + " handler")
    void headerContractUnparsable() {
        Topic<Msg> topic = plainTopic("headers-unparsable");
        Recorder<Msg> rec = h().acking();
        h().consume(
                        topic,
                        config(c -> c.headerContract(TenantHeaders.class)
                                .maxRetries(1)
                                .decodeFailurePolicy(DecodeFailurePolicy.RETRY)),
                        rec);
        h().publisher().publishWithHeaders(topic, Msg.of(1), Map.of("tenant-id", "acme", "priority", "very high"));

        Recorder.Death<Msg> death = rec.awaitDeaths(1).getFirst();
        assertThat(death.reason()).isEqualTo("max-retries-exceeded");
        assertThat(death.retryCount()).isEqualTo(1);
        assertThat(decodeFailures(topic)).isEqualTo(2);
        rec.assertNoMoreCalls(0);
    }
}
