package dev.shove.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.examples.Quickstart.Step;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
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
}
