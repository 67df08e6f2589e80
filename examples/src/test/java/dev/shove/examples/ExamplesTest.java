package dev.shove.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.examples.Quickstart.Step;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Runs every example's main logic once, with short delays, and checks what it did and printed. Each nested class
 * runs its example in {@code @BeforeAll}; its tests each check one part of the story the example tells.
 */
class ExamplesTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    /** Captures what an example prints. */
    private static final class Output {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream stream = new PrintStream(bytes, true, StandardCharsets.UTF_8);

        List<String> lines() {
            return bytes.toString(StandardCharsets.UTF_8).lines().toList();
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @DisplayName("Quickstart")
    class QuickstartJourney {
        private static final Duration HOLD = Duration.ofMillis(200);
        private final Output output = new Output();
        private Quickstart.Journey journey;

        @BeforeAll
        void run() {
            journey = Quickstart.run(output.stream, HOLD, TIMEOUT);
        }

        private List<Step> steps(String orderId) {
            return journey.steps().stream()
                    .filter(s -> s.orderId().equals(orderId))
                    .toList();
        }

        @Test
        @DisplayName("the first delivery of o-1 has retryCount 0 and is retried")
        void firstDelivery() {
            Step first = steps("o-1").getFirst();
            assertThat(first.where()).isEqualTo("handle");
            assertThat(first.retryCount()).isZero();
            assertThat(first.outcome()).isEqualTo(Outcome.Kind.RETRY);
            assertThat(output.lines()).anyMatch(l -> l.matches("\\[ *\\d+ ms] o-1 +handle +retryCount=0 .*-> retry"));
        }

        @Test
        @DisplayName("o-1 comes back with retryCount 1 no earlier than the hold delay, and is acknowledged")
        void retryAfterHoldDelay() {
            List<Step> o1 = steps("o-1");
            assertThat(o1).hasSize(2);
            Step retry = o1.get(1);
            assertThat(retry.retryCount()).isEqualTo(1);
            assertThat(retry.outcome()).isEqualTo(Outcome.Kind.ACK);
            assertThat(retry.elapsedMs() - o1.getFirst().elapsedMs()).isGreaterThanOrEqualTo(HOLD.toMillis());
            assertThat(output.lines())
                    .anyMatch(
                            l -> l.matches(
                                    "\\[ *\\d+ ms] o-1 +handle +retryCount=1 +booked -> ack +\\(\\d+ ms after the first delivery\\)"));
        }

        @Test
        @DisplayName("o-2 is rejected and handleDead sees it with the rejection's reason")
        void deadLetterQueue() {
            List<Step> o2 = steps("o-2");
            assertThat(o2).extracting(Step::where).containsExactly("handle", "handleDead");
            assertThat(o2.getFirst().outcome()).isEqualTo(Outcome.Kind.REJECT);
            assertThat(o2.get(1).retryCount()).isZero();
            assertThat(output.lines())
                    .anyMatch(l -> l.matches(
                            "\\[ *\\d+ ms] o-2 +handleDead +retryCount=0 +reason \"rejected: amount must be positive\","
                                    + " from queue 'orders', death count 1"));
        }

        @Test
        @DisplayName("the journey completes, the group stops cleanly and the verdict is printed")
        void verdict() {
            assertThat(journey.problems()).isEmpty();
            assertThat(journey.outcome())
                    .hasValueSatisfying(o -> assertThat(o.exitCode()).isZero());
            assertThat(output.lines()).last().asString().startsWith("journey complete");
        }
    }

    @Test
    @DisplayName("Quickstart: a journey cut short by the timeout is reported as incomplete")
    void incompleteJourney() {
        Output output = new Output();
        Quickstart.Journey journey = Quickstart.run(output.stream, Duration.ofSeconds(30), Duration.ofMillis(300));
        assertThat(journey.problems()).anyMatch(p -> p.startsWith("o-1 should be retried at retryCount 0"));
        assertThat(output.lines()).contains("journey INCOMPLETE:");
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @DisplayName("SequencedOrders")
    class Sequenced {
        private static final Duration HOLD = Duration.ofMillis(200);
        private SequencedOrders.Result skip;
        private SequencedOrders.Result failAll;

        @BeforeAll
        void run() {
            skip = SequencedOrders.run(new Output().stream, SequenceFailure.SKIP, HOLD, TIMEOUT);
            failAll = SequencedOrders.run(new Output().stream, SequenceFailure.FAIL_ALL, HOLD, TIMEOUT);
        }

        @Test
        @DisplayName("the other order's events are all handled, in order, whatever happens to order A")
        void otherKeyUnaffected() {
            assertThat(skip.handled("B")).isEqualTo(SequencedOrders.STEPS);
            assertThat(failAll.handled("B")).isEqualTo(SequencedOrders.STEPS);
            assertThat(skip.deadLettered("B")).isEmpty();
            assertThat(failAll.deadLettered("B")).isEmpty();
        }

        @Test
        @DisplayName("SKIP: order A keeps its order across the retry and carries on after the rejected event")
        void skip() {
            assertThat(skip.handled("A")).containsExactly("created", "paid", "shipped", "delivered");
            assertThat(skip.deadLettered("A")).containsExactly("packed: rejected: unknown warehouse");
            assertThat(skip.problems()).isEmpty();
        }

        @Test
        @DisplayName("FAIL_ALL: order A's events after the rejected one are dead-lettered unhandled")
        void failAll() {
            assertThat(failAll.handled("A")).containsExactly("created", "paid");
            assertThat(failAll.deadLettered("A"))
                    .containsExactly(
                            "packed: rejected: unknown warehouse",
                            "shipped: sequence-poisoned",
                            "delivered: sequence-poisoned");
            assertThat(failAll.problems()).isEmpty();
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @DisplayName("AutoscalingGroup")
    class Autoscaling {
        private final Output output = new Output();
        private AutoscalingGroup.Result result;

        @BeforeAll
        void run() {
            result = AutoscalingGroup.run(
                    output.stream, AutoscalingGroup.JOBS, Duration.ofMillis(AutoscalingGroup.WORK_MS), TIMEOUT);
        }

        @Test
        @DisplayName("the backlog makes the autoscaler add consumers")
        void scalesUp() {
            assertThat(result.peak()).isGreaterThan(1);
            assertThat(result.decisions().get("up")).isGreaterThanOrEqualTo(1.0);
            assertThat(output.lines()).anyMatch(l -> l.matches("\\[ *\\d+ ms] consumers 1 -> 2 .*"));
        }

        @Test
        @DisplayName("once the backlog is gone the group scales back down to its minimum")
        void scalesDown() {
            assertThat(result.last()).isEqualTo(1);
            assertThat(result.decisions().get("down")).isGreaterThanOrEqualTo(1.0);
            assertThat(output.lines()).anyMatch(l -> l.matches("\\[ *\\d+ ms] consumers 2 -> 1 .*"));
        }

        @Test
        @DisplayName("every job is done and the group stops cleanly")
        void completes() {
            assertThat(result.done()).isEqualTo(AutoscalingGroup.JOBS);
            assertThat(result.problems()).isEmpty();
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @DisplayName("AuditedHandler")
    class Audited {
        private final Output output = new Output();
        private AuditedHandler.Result result;

        @BeforeAll
        void run() {
            result = AuditedHandler.run(output.stream, TIMEOUT);
        }

        @Test
        @DisplayName("the local sink records every delivery with the handler's outcome")
        void localSink() {
            assertThat(result.table())
                    .extracting(r -> r.payload().invoiceId() + " " + r.outcome())
                    .containsExactlyInAnyOrder("inv-1 ACK", "inv-2 REJECT");
        }

        @Test
        @DisplayName("the records reach the shove-audit-log topic, with the x-trace-id header as trace id")
        void auditLogTopic() {
            assertThat(result.auditLog())
                    .extracting(r -> r.payload().path("invoiceId").asText() + " " + r.outcome())
                    .containsExactlyInAnyOrder("inv-1 ACK", "inv-2 REJECT");
            assertThat(result.auditLog())
                    .filteredOn(r -> r.payload().path("invoiceId").asText().equals("inv-1"))
                    .singleElement()
                    .satisfies(r -> assertThat(r.traceId()).isEqualTo("trace-42"));
            assertThat(output.lines()).anyMatch(l -> l.startsWith("audit log   : invoices ACK"));
        }

        @Test
        @DisplayName("the group stops cleanly")
        void completes() {
            assertThat(result.problems()).isEmpty();
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @DisplayName("BatchInserts")
    class Batches {
        private final Output output = new Output();
        private BatchInserts.Result result;

        @BeforeAll
        void run() {
            result = BatchInserts.run(output.stream, Duration.ofMillis(100), TIMEOUT);
        }

        @Test
        @DisplayName("no batch is larger than maxBatchSize, and the first deliveries of all readings fill the batches")
        void batchSizes() {
            assertThat(result.batches())
                    .isNotEmpty()
                    .allSatisfy(b -> assertThat(b.readingIds()).hasSizeLessThanOrEqualTo(BatchInserts.MAX_BATCH));
            int firstDeliveries = result.batches().stream()
                    .mapToInt(b ->
                            (int) b.retryCounts().stream().filter(c -> c == 0).count())
                    .sum();
            assertThat(firstDeliveries).isEqualTo(BatchInserts.READINGS);
            assertThat(output.lines()).anyMatch(l -> l.matches("\\[ *\\d+ ms] batch 1: 10 reading\\(s\\) .*"));
        }

        @Test
        @DisplayName("a rejected element goes to the dead-letter queue alone, with its reason")
        void rejectedElements() {
            assertThat(result.dead())
                    .containsOnly(
                            Map.entry("r-5", "rejected: temperature out of range"),
                            Map.entry("r-17", "rejected: temperature out of range"));
            assertThat(result.inserted()).doesNotContainKeys("r-5", "r-17");
        }

        @Test
        @DisplayName("a retried element comes back in a later batch with retryCount 1 and is inserted")
        void retriedElements() {
            for (String id : List.of("r-3", "r-12")) {
                assertThat(result.batches())
                        .filteredOn(b -> b.readingIds().contains(id))
                        .extracting(b -> b.retryCounts().get(b.readingIds().indexOf(id)))
                        .containsExactly(0, 1);
                assertThat(result.inserted()).containsEntry(id, 1);
            }
        }

        @Test
        @DisplayName("every other reading is inserted exactly once and the group stops cleanly")
        void completes() {
            assertThat(result.inserted())
                    .hasSize(BatchInserts.READINGS - 2)
                    .allSatisfy((id, n) -> assertThat(n).isOne());
            assertThat(result.problems()).isEmpty();
            assertThat(output.lines()).last().asString().startsWith("every reading inserted once");
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @DisplayName("Interceptors")
    class Intercepted {
        private final Output output = new Output();
        private Interceptors.Result result;

        @BeforeAll
        void run() {
            result = Interceptors.run(output.stream, TIMEOUT);
        }

        @Test
        @DisplayName(
                "the group's interceptor runs outermost, then the registration's in the order added, then the handler")
        void order() {
            assertThat(result.actors("o-1")).containsExactly("timing", "guard", "scope", "handler", "timing");
            assertThat(result.actors("o-2")).containsExactly("timing", "guard", "scope", "handler", "timing");
        }

        @Test
        @DisplayName("the guard short-circuits: o-3 and o-4 are rejected without the handler and reach handleDead")
        void shortCircuit() {
            assertThat(result.actors("o-3")).containsExactly("timing", "guard", "timing");
            assertThat(result.actors("o-4")).containsExactly("timing", "guard", "timing");
            assertThat(result.outcomes())
                    .containsEntry("o-3", Outcome.Kind.REJECT)
                    .containsEntry("o-4", Outcome.Kind.REJECT);
            assertThat(result.dead())
                    .containsOnly(
                            Map.entry("o-3", "rejected: unknown tenant (none)"),
                            Map.entry("o-4", "rejected: unknown tenant initech"));
        }

        @Test
        @DisplayName("the handler receives the context the scope interceptor enriched with the order's tenant")
        void enrichedContext() {
            assertThat(result.handled()).containsOnly(Map.entry("o-1", "acme"), Map.entry("o-2", "globex"));
            assertThat(output.lines()).contains("o-1  handler    reserved 2 x sku-1 for acme");
        }

        @Test
        @DisplayName("shove.messages.consumed counts the short-circuited calls too, and the group stops cleanly")
        void metricsAroundTheChain() {
            assertThat(result.consumed()).containsEntry("ack", 2.0).containsEntry("reject", 2.0);
            assertThat(result.problems()).isEmpty();
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @DisplayName("DecodeFailures")
    class Decoding {
        private final Output output = new Output();
        private DecodeFailures.Result result;

        @BeforeAll
        void run() {
            result = DecodeFailures.run(output.stream, Duration.ofMillis(100), TIMEOUT);
        }

        @Test
        @DisplayName("REJECT: only the payment that decodes and fits the header contract reaches the handler")
        void onlyReadablePaymentsAreHandled() {
            assertThat(result.payments()).containsExactly("p-1");
            assertThat(output.lines()).contains("payments  p-1 handled: tenant acme, schema v2, trace t-1");
        }

        @Test
        @DisplayName(
                "REJECT: the unreadable payments wait in the DLQ, bytes intact, each with its decode-failed reason")
        void unreadablePaymentsAreDeadLettered() {
            assertThat(result.deadPayments())
                    .hasSize(3)
                    .anySatisfy(d -> assertThat(d)
                            .startsWith("{\"paymentId\": \"p-2\", \"ce -> decode-failed: json(")
                            .contains("Unexpected end-of-input"))
                    .anySatisfy(d -> assertThat(d)
                            .endsWith("\"p-3\",\"cents\":700} -> decode-failed: required header 'idempotency-key' is"
                                    + " missing"))
                    .anySatisfy(d -> assertThat(d)
                            .endsWith(" -> decode-failed: header 'schemaVersion' of PaymentHeaders does not parse as"
                                    + " int: 'two'"));
        }

        @Test
        @DisplayName("SKIP: the unreadable click is dropped and counted; the readable one is handled")
        void skip() {
            assertThat(result.clicks()).containsExactly("c-1");
            assertThat(result.skippedClicks()).isEqualTo(1.0);
        }

        @Test
        @DisplayName("RETRY: the entry whose first decode failed is handled on its retry, at retryCount 1")
        void retry() {
            assertThat(result.ledger()).containsExactly("l-1@1");
        }

        @Test
        @DisplayName("the group stops cleanly")
        void completes() {
            assertThat(result.problems()).isEmpty();
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @DisplayName("Replies")
    class Replying {
        private final Output output = new Output();
        private Replies.Result result;

        @BeforeAll
        void run() {
            result = Replies.run(output.stream, TIMEOUT);
        }

        @Test
        @DisplayName("each priced request gets its quote, matched by the correlation id the handler copied")
        void quotes() {
            assertThat(result.quotes())
                    .containsOnly(
                            Map.entry("q-1", new Replies.PriceQuote("q-1", "sku-1", 1_000)),
                            Map.entry("q-2", new Replies.PriceQuote("q-2", "sku-2", 1_999)));
            assertThat(output.lines()).contains("q-1  quote received: 1000 cents (corr-q-1)");
        }

        @Test
        @DisplayName("the continuation runs once per acknowledged request, on a continuation thread")
        void continuations() {
            assertThat(result.continuations())
                    .containsOnly(
                            Map.entry("q-1", "shove-continuation-price-requests"),
                            Map.entry("q-2", "shove-continuation-price-requests"));
        }

        @Test
        @DisplayName("a rejected request gets no reply and no continuation, and reaches handleDead")
        void rejected() {
            assertThat(result.quotes()).doesNotContainKey("q-3");
            assertThat(result.continuations()).doesNotContainKey("q-3");
            assertThat(result.dead()).containsOnly(Map.entry("q-3", "rejected: unknown product sku-9"));
            assertThat(result.problems()).isEmpty();
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @DisplayName("Replay")
    class Replaying {
        private final Output output = new Output();
        private Replay.Result result;

        @BeforeAll
        void run() {
            result = Replay.run(output.stream, TIMEOUT);
        }

        @Test
        @DisplayName("seeking back to a captured position delivers that message again, then the rest in order")
        void seekBack() {
            assertThat(result.live()).containsExactly(1, 2, 3, 2, 3, 4, 5, 6);
            assertThat(result.liveBalance()).isEqualTo(2_100);
            assertThat(output.lines())
                    .anyMatch(l ->
                            l.startsWith("live    rolled back to 100; reading again from Captured[queue=deposits"));
        }

        @Test
        @DisplayName("a new group registered with startAt(start) reads the retained log from its oldest message")
        void startAt() {
            assertThat(result.rebuilt()).containsExactly(1, 2, 3, 4, 5, 6);
            assertThat(result.rebuiltBalance()).isEqualTo(2_100);
        }

        @Test
        @DisplayName("seeking on a broker without retention is refused at registration")
        void refusedWithoutLog() {
            assertThat(result.refusal())
                    .isEqualTo("topic 'deposits': startAt/seeking need a backend whose subscriptions are logs (Kafka,"
                            + " Redis Streams, NATS JetStream, the in-memory broker with retention); the memory"
                            + " backend has none");
            assertThat(result.problems()).isEmpty();
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @DisplayName("Broadcast")
    class Broadcasting {
        private final Output output = new Output();
        private Broadcast.Result result;

        @BeforeAll
        void run() {
            result = Broadcast.run(output.stream, TIMEOUT);
        }

        @Test
        @DisplayName("every running subscriber receives every message")
        void everySubscriber() {
            assertThat(result.a()).containsExactly(1, 2, 3, 4);
            assertThat(result.b()).containsExactly(1, 2, 3, 4);
        }

        @Test
        @DisplayName("a subscriber that starts late receives what is published from then on")
        void lateSubscriber() {
            assertThat(result.c()).containsExactly(4);
        }

        @Test
        @DisplayName("a retry on a broadcast is discarded and counted, never redelivered")
        void retryDiscarded() {
            assertThat(result.discarded()).containsOnly(Map.entry("a", 0.0), Map.entry("b", 1.0), Map.entry("c", 0.0));
            assertThat(result.settingsOfB()).doesNotContainKey("feature.search");
            assertThat(result.problems()).isEmpty();
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @DisplayName("VersionedOrders")
    class Versioned {
        private final Output output = new Output();
        private VersionedOrders.Result result;

        @BeforeAll
        void run() {
            result = VersionedOrders.run(output.stream, TIMEOUT);
        }

        @Test
        @DisplayName("orders written at versions 1 and 2 reach the version 3 handler upcast; its own as is")
        void upcast() {
            assertThat(result.handled())
                    .containsExactlyInAnyOrder(
                            new VersionedOrders.Order("o-1", 1_500, "EUR"),
                            new VersionedOrders.Order("o-2", 2_000, "GBP"),
                            new VersionedOrders.Order("o-3", 990, "USD"));
        }

        @Test
        @DisplayName("an order of version 4 is dead-lettered, its reason naming the version")
        void newerRefused() {
            assertThat(result.deadReasons())
                    .singleElement()
                    .asString()
                    .contains("schema version 4 is newer than this consumer reads (up to 3)");
            assertThat(String.join("\n", output.lines()))
                    .contains("written at version 1 (no header)", "written at version 2");
        }

        @Test
        @DisplayName("the run reports no problem and the group stops cleanly")
        void clean() {
            assertThat(result.problems()).isEmpty();
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @DisplayName("RawGateway")
    class Raw {
        private final Output output = new Output();
        private RawGateway.Result result;

        @BeforeAll
        void run() {
            result = RawGateway.run(output.stream, TIMEOUT);
        }

        @Test
        @DisplayName("a byte[] topic delivers foreign bytes exactly, and publishes them unchanged")
        void bytesUnchanged() {
            assertThat(result.received()).hasSize(2);
            for (int i = 0; i < 2; i++) {
                assertThat(result.received().get(i)).isEqualTo(result.sent().get(i));
            }
        }

        @Test
        @DisplayName("the frame without its ETX is rejected, and the group stops cleanly")
        void rejected() {
            assertThat(result.rejected())
                    .singleElement()
                    .isEqualTo(result.sent().get(2));
            assertThat(result.problems()).isEmpty();
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @DisplayName("CloudEventsGateway")
    class CloudEvents {
        private final Output output = new Output();
        private CloudEventsGateway.Result result;

        @BeforeAll
        void run() {
            result = CloudEventsGateway.run(output.stream, TIMEOUT);
        }

        @Test
        @DisplayName("settled payments written by the partner's SDK are booked inside, under the partner's event ids")
        void booked() {
            assertThat(result.booked()).containsOnlyKeys("evt-1001", "evt-1003");
            assertThat(output.lines())
                    .anyMatch(line -> line.startsWith("payments  evt-1001 com.acme.payment.received 1299 cents,"
                            + " subject pay-1, partner partner.example, message id evt-1001"));
        }

        @Test
        @DisplayName("the event shove's id is the partner's id: the message id the payments service sees")
        void messageIdIsTheEventId() {
            result.booked()
                    .forEach((eventId, messageId) -> assertThat(messageId).isEqualTo(eventId));
        }

        @Test
        @DisplayName("an unknown event type and a foreign currency are rejected to the dead-letter queue")
        void rejected() {
            assertThat(result.rejected()).containsExactlyInAnyOrder("evt-1002", "evt-1004");
            assertThat(output.lines())
                    .contains("dead      evt-1002 rejected: unknown event type com.partner.payment.refunded");
            assertThat(result.problems()).isEmpty();
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @DisplayName("HealthProbes")
    class HealthProbesRun {
        private final Output output = new Output();
        private HealthProbes.Result result;

        @BeforeAll
        void run() throws Exception {
            result = HealthProbes.run(output.stream);
        }

        @Test
        @DisplayName("live answers 200 throughout; ready answers 200 only while the group runs, paused included")
        void probes() {
            assertThat(result.problems()).isEmpty();
        }

        @Test
        @DisplayName("each answer prints its moment, endpoint and status")
        void printed() {
            assertThat(output.lines())
                    .anyMatch(l -> l.startsWith("before start") && l.contains("/health/ready") && l.contains("503"));
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @DisplayName("DeadLetterReplay")
    class DeadLetterReplaying {
        private final Output output = new Output();
        private DeadLetterReplay.Result result;

        @BeforeAll
        void run() {
            result = DeadLetterReplay.run(output.stream, TIMEOUT);
        }

        @Test
        @DisplayName("browsing shows each dead letter with why it died")
        void browse() {
            assertThat(output.lines())
                    .anyMatch(l -> l.startsWith("dead: p-2 ")
                            && l.contains(DeadLetterReplay.UnsupportedCurrencyException.class.getName())
                            && l.contains("the ledger cannot book CHF"))
                    .anyMatch(l -> l.startsWith("dead: p-3 rejected: negative amount"));
        }

        @Test
        @DisplayName("the dry run reports the CHF payments and moves nothing; the replay then moves and books them")
        void replay() {
            assertThat(result.wouldMove()).isEqualTo(2);
            assertThat(result.wasDryRun()).isTrue();
            assertThat(result.replayed()).isEqualTo(2);
            assertThat(result.booked()).containsExactlyInAnyOrder("p-1", "p-2", "p-4", "p-5");
        }

        @Test
        @DisplayName("the purge removes the rejected payment and the queue ends empty")
        void purge() {
            assertThat(result.purged()).isEqualTo(1);
            assertThat(result.left()).isZero();
            assertThat(result.problems()).isEmpty();
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @DisplayName("AsyncApiDocument")
    class AsyncApiDocumentRun {
        private JsonNode document;
        private AsyncApiDocument.Result yaml;

        @BeforeAll
        void run() throws Exception {
            Output json = new Output();
            AsyncApiDocument.run(json.stream, "json", AsyncApiDocument.DEFAULT_BROKER);
            document = new ObjectMapper().readTree(String.join("\n", json.lines()));
            yaml = AsyncApiDocument.run(new Output().stream, "yaml", AsyncApiDocument.DEFAULT_BROKER);
        }

        @Test
        @DisplayName("the printed document validates against the official AsyncAPI 3.0.0 schema")
        void validates() throws Exception {
            Path schema = repositoryRoot().resolve("asyncapi/src/test/resources/asyncapi/asyncapi-3.0.0.schema.json");
            var errors = SchemaRegistry.withDefaultDialect(Dialects.getDraft7())
                    .getSchema(new ObjectMapper().readTree(schema.toFile()))
                    .validate(document);
            assertThat(errors).isEmpty();
        }

        @Test
        @DisplayName("every topic of ShopTopics has its channel, and the YAML says the same as the JSON")
        void everyTopic() throws Exception {
            assertThat(yaml.problems()).isEmpty();
            assertThat(document.path("channels").has("orders")).isTrue();
            assertThat(new YAMLMapper().readTree(yaml.text())).isEqualTo(document);
        }

        @Test
        @DisplayName("the orders topic has its Kafka hold topic and dead-letter topic, of the URI's 12 partitions")
        void kafkaChannels() {
            assertThat(document.at("/channels/orders-hold-5s/bindings/kafka/partitions")
                            .asInt())
                    .isEqualTo(12);
            assertThat(document.at("/channels/orders-dlq/x-shove-dead-letter-queue/topics/0")
                            .asText())
                    .isEqualTo("orders");
            assertThat(document.at("/channels/order-events/bindings/kafka/partitions")
                            .asInt())
                    .as("a sequenced topic: one partition per shard")
                    .isEqualTo(8);
        }

        @Test
        @DisplayName("OrderPaid's schema is its record's components")
        void messageSchema() {
            assertThat(document.at("/components/schemas/OrderPaid/properties").has("orderId"))
                    .isTrue();
            assertThat(document.at("/components/schemas/OrderPaid/properties/cents/type")
                            .asText())
                    .isEqualTo("integer");
        }

        private static Path repositoryRoot() {
            Path dir = Path.of("").toAbsolutePath();
            while (dir != null && !Files.exists(dir.resolve("mvnw"))) {
                dir = dir.getParent();
            }
            assertThat(dir)
                    .as("the repository root above %s", Path.of("").toAbsolutePath())
                    .isNotNull();
            return dir;
        }
    }
}
