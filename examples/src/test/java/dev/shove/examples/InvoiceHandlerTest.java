package dev.shove.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.examples.AuditedHandler.Billing;
import dev.shove.examples.AuditedHandler.Invoice;
import dev.shove.examples.AuditedHandler.InvoiceHandler;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import dev.shove.memory.InMemoryProbe;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** How an application tests its handlers: directly, and end to end on the in-memory broker. Quoted by the docs. */
class InvoiceHandlerTest {

    // region unit-test
    @Test
    @DisplayName("an invoice of an unknown customer is rejected with the customer's name")
    void rejectsUnknownCustomer() throws Exception {
        var handler = new InvoiceHandler();
        Outcome outcome = handler.handle(
                new Invoice("inv-2", "initech", 990),
                MessageMetadata.of("invoices", "delivery-1", Map.of()),
                new Billing(Set.of("acme")));
        assertThat(outcome).isEqualTo(Outcome.reject("unknown customer initech"));
    }
    // endregion unit-test

    // region probe-test
    @Test
    @DisplayName("a rejected invoice waits in invoices-dlq with its reason")
    void rejectedInvoiceIsDeadLettered() {
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            InMemoryProbe probe = InMemoryProbe.of(broker);
            var group = broker.consumerGroup().withContext(new Billing(Set.of("acme")));
            group.register(
                    AuditedHandler.INVOICES,
                    ConsumerGroupConfig.builder()
                            .noDeadLetterConsumer()
                            .build(), // leave dead letters in the DLQ for the probe to read
                    InvoiceHandler::new);
            group.start();

            broker.publisher().publish(AuditedHandler.INVOICES, new Invoice("inv-2", "initech", 990));

            await().atMost(Duration.ofSeconds(10))
                    .until(() -> probe.deadLetters(AuditedHandler.INVOICES).size() == 1);
            assertThat(probe.deadLetters(AuditedHandler.INVOICES))
                    .containsExactly(new Invoice("inv-2", "initech", 990));
            assertThat(probe.deadLetterHeaders(AuditedHandler.INVOICES).getFirst())
                    .containsEntry(ShoveHeaders.DEATH_REASON, "rejected: unknown customer initech")
                    .containsEntry(ShoveHeaders.ORIGINAL_QUEUE, "invoices");
            assertThat(group.stop(Duration.ofSeconds(5)).exitCode()).isZero();
        }
    }
    // endregion probe-test

    // region await-idle
    @Test
    @DisplayName("an invoice of a known customer leaves nothing behind: the broker goes idle, the DLQ empty")
    void acceptedInvoiceLeavesNothingBehind() {
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            InMemoryProbe probe = InMemoryProbe.of(broker);
            var group = broker.consumerGroup().withContext(new Billing(Set.of("acme")));
            group.register(
                    AuditedHandler.INVOICES,
                    ConsumerGroupConfig.builder().noDeadLetterConsumer().build(),
                    InvoiceHandler::new);
            group.start();

            broker.publisher().publish(AuditedHandler.INVOICES, new Invoice("inv-1", "acme", 12_000));

            // Idle: every queue but the DLQ empty, nothing unsettled, no retry waiting on its timer.
            probe.awaitIdle(Duration.ofSeconds(10));
            assertThat(probe.depth(AuditedHandler.INVOICES.name())).isZero();
            assertThat(probe.deadLetters(AuditedHandler.INVOICES)).isEmpty();
            assertThat(group.stop(Duration.ofSeconds(5)).exitCode()).isZero();
        }
    }
    // endregion await-idle
}
