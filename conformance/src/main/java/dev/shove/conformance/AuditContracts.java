package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.shove.AuditLog;
import dev.shove.AuditRecord;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.Topic;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Audited handlers: one record per delivery, strict by default, and the audit log topic. */
abstract class AuditContracts<B> extends Contracts<B> {

    AuditContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    @Test
    @DisplayName("an audited handler records one AuditRecord per delivery, with topic, payload, outcome and duration")
    void recordPerDelivery() {
        Topic<Msg> topic = plainTopic("audit");
        List<AuditRecord<?>> records = new CopyOnWriteArrayList<>();
        Recorder<Msg> rec = h().acking();
        h().consume(topic, config(), () -> rec.audited(records::add));
        for (int i = 0; i < 3; i++) {
            h().publisher().publish(topic, Msg.of(i));
        }

        h().await("3 audit records", () -> records.size() == 3);
        h().assertStays("exactly 3 audit records", () -> records.size() == 3);
        assertThat(records).allSatisfy(r -> {
            assertThat(r.topic()).isEqualTo(topic.name());
            assertThat(r.outcome()).isEqualTo(Outcome.Kind.ACK);
            assertThat(r.durationMs()).isNotNegative();
            assertThat(r.timestamp()).isNotNull();
            assertThat(r.metadata().topic()).isEqualTo(topic.name());
        });
        assertThat(records.stream().map(r -> (Object) r.payload()).toList())
                .containsExactlyInAnyOrder(Msg.of(0), Msg.of(1), Msg.of(2));
    }

    @Test
    @DisplayName("the audit record's trace id is the message's x-trace-id header")
    void traceIdFromHeader() {
        Topic<Msg> topic = plainTopic("audit-trace");
        List<AuditRecord<?>> records = new CopyOnWriteArrayList<>();
        h().consume(topic, config(), () -> h().<Msg>acking().audited(records::add));
        h().publisher().publishWithHeaders(topic, Msg.of(1), Map.of(AuditRecord.TRACE_ID_HEADER, "my-trace-123"));

        h().await("an audit record", () -> records.size() == 1);
        assertThat(records.getFirst().traceId()).isEqualTo("my-trace-123");
    }

    @Test
    @DisplayName("without an x-trace-id header, each audit record gets a fresh UUID as trace id")
    void traceIdGenerated() {
        Topic<Msg> topic = plainTopic("audit-uuid");
        List<AuditRecord<?>> records = new CopyOnWriteArrayList<>();
        h().consume(topic, config(), () -> h().<Msg>acking().audited(records::add));
        h().publisher().publish(topic, Msg.of(1));
        h().publisher().publish(topic, Msg.of(2));

        h().await("2 audit records", () -> records.size() == 2);
        List<String> ids = records.stream().map(AuditRecord::traceId).toList();
        assertThat(ids)
                .doesNotHaveDuplicates()
                .allSatisfy(id -> assertThat(UUID.fromString(id).toString()).isEqualTo(id));
    }

    @Test
    @DisplayName("an audited handler's outcome is carried out unchanged: a reject still dead-letters")
    void outcomeUnchanged() {
        Topic<Msg> topic = plainTopic("audit-reject");
        List<AuditRecord<?>> records = new CopyOnWriteArrayList<>();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.reject("audited"));
        h().consume(topic, config(), () -> rec.audited(records::add));
        h().publisher().publish(topic, Msg.of(1));

        assertThat(rec.awaitDeaths(1).getFirst().reason()).isEqualTo("rejected: audited");
        assertThat(records).extracting(AuditRecord::outcome).containsExactly(Outcome.Kind.REJECT);
    }

    @Test
    @DisplayName("a failing audit sink turns an ack into a retry: no delivery goes unaudited")
    void failingSinkRetries() {
        Topic<Msg> topic = plainTopic("audit-fails");
        AtomicInteger audits = new AtomicInteger();
        Recorder<Msg> rec = h().acking();
        h().consume(
                        topic,
                        config(),
                        () -> rec.audited(r -> {
                            if (audits.getAndIncrement() == 0) {
                                throw new IllegalStateException("audit store down on purpose");
                            }
                        }));
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(2);
        rec.assertNoMoreCalls(2);
        assertThat(rec.retryCounts()).containsExactly(0, 1);
    }

    @Test
    @DisplayName("with an audit timeout, a sink slower than it is abandoned and the handler's own outcome kept")
    void auditTimeoutKeepsOutcome() {
        Topic<Msg> topic = plainTopic("audit-slow");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.reject("kept"));
        h().consume(topic, config(), () -> rec.audited(r -> gate.pass(), tier()));
        h().publisher().publish(topic, Msg.of(1));

        assertThat(rec.awaitDeaths(1).getFirst().reason()).isEqualTo("rejected: kept");
        assertThat(rec.calls()).hasSize(1);
    }

    @Test
    @DisplayName("a handler that throws is audited as retry, and the message is retried")
    void throwingHandlerAuditedAsRetry() {
        Topic<Msg> topic = plainTopic("audit-throws");
        List<AuditRecord<?>> records = new CopyOnWriteArrayList<>();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            if (attempt == 0) {
                throw new IllegalStateException("fails on purpose");
            }
            return Outcome.ack();
        });
        h().consume(topic, config(), () -> rec.audited(records::add));
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(2);
        h().await("2 audit records", () -> records.size() == 2);
        assertThat(records).extracting(AuditRecord::outcome).containsExactly(Outcome.Kind.RETRY, Outcome.Kind.ACK);
    }

    @Test
    @DisplayName("handleDead of an audited handler is called but not audited")
    void handleDeadNotAudited() {
        Topic<Msg> topic = plainTopic("audit-dead");
        List<AuditRecord<?>> records = new CopyOnWriteArrayList<>();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.reject());
        h().consume(topic, config(), () -> rec.audited(records::add));
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitDeaths(1);
        h().assertStays("only the main delivery audited", () -> records.size() == 1);
        assertThat(records.getFirst().outcome()).isEqualTo(Outcome.Kind.REJECT);
    }

    @Test
    @DisplayName("AuditLog.sink publishes each record, as JSON, to the shove-audit-log topic")
    void auditLogSink() {
        Topic<Msg> topic = plainTopic("audit-log");
        h().broker().topology().declare(AuditLog.TOPIC);
        Recorder<AuditRecord<JsonNode>> log = h().acking();
        h().consume(
                        AuditLog.TOPIC,
                        h().config(c -> c.groupName(h().name("audit-reader")).noDeadLetterConsumer()),
                        log);
        h().consume(topic, config(), () -> h().<Msg>acking().audited(AuditLog.sink(h().publisher())));
        h().publisher().publishWithHeaders(topic, new Msg("logged", 7), Map.of(AuditRecord.TRACE_ID_HEADER, "t-7"));

        h().await(
                        "the audit record in shove-audit-log",
                        () -> log.calls(r -> r.topic().equals(topic.name())).size() == 1);
        AuditRecord<JsonNode> record =
                log.calls(r -> r.topic().equals(topic.name())).getFirst().message();
        assertThat(record.traceId()).isEqualTo("t-7");
        assertThat(record.outcome()).isEqualTo(Outcome.Kind.ACK);
        assertThat(record.payload().get("key").asText()).isEqualTo("logged");
        assertThat(record.payload().get("n").asInt()).isEqualTo(7);
    }

    @Test
    @DisplayName("a handler on the shove-audit-log topic itself is never audited")
    void auditLogNeverAudited() {
        h().broker().topology().declare(AuditLog.TOPIC);
        AtomicInteger audits = new AtomicInteger();
        Recorder<AuditRecord<JsonNode>> log = h().acking();
        h().consume(
                        AuditLog.TOPIC,
                        h().config(c -> c.groupName(h().name("audit-self")).noDeadLetterConsumer()),
                        () -> log.audited(r -> audits.incrementAndGet()));
        String marker = h().name("audited-topic");
        AuditRecord<Msg> record = new AuditRecord<>(
                "trace",
                marker,
                Msg.of(1),
                MessageMetadata.of(marker, "d-1", Map.of()),
                Outcome.Kind.ACK,
                1,
                Instant.now());
        h().publisher().publish(AuditLog.TOPIC, AuditLog.asJson(record));

        h().await(
                        "the record to be handled",
                        () -> log.calls(r -> r.topic().equals(marker)).size() == 1);
        assertThat(audits).hasValue(0);
    }
}
