package dev.shove.examples;

import com.fasterxml.jackson.databind.JsonNode;
import dev.shove.AuditLog;
import dev.shove.AuditRecord;
import dev.shove.AuditSink;
import dev.shove.Broker;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * An audited handler: every delivery it handles is recorded, with the message, its metadata, the handler's outcome
 * and how long it took, to two {@link AuditSink sinks} at once: a local one (standing in for an audit table) and the
 * shared {@code shove-audit-log} topic ({@link AuditLog#sink}), which another consumer in the same group reads.
 *
 * <p>Two invoices are published: {@code inv-1} (with an {@code x-trace-id} header, which becomes the record's trace
 * id) is accepted, {@code inv-2} names an unknown customer and is rejected. Both deliveries are audited; the dead
 * letter that follows the rejection is not (dead letters are never audited), nor is the audit log topic itself.
 *
 * <p>Run it with {@code scripts/quickstart.sh AuditedHandler}.
 */
public final class AuditedHandler {

    /** How long the example may run before it gives up. */
    public static final Duration TIMEOUT = Duration.ofSeconds(20);

    private AuditedHandler() {}

    /**
     * An invoice to register.
     *
     * @param invoiceId the invoice
     * @param customer who pays it
     * @param cents how much
     */
    public record Invoice(String invoiceId, String customer, long cents) {}

    static final Topic<Invoice> INVOICES = Topic.builder("invoices", Invoice.class)
            .holdQueue(Duration.ofSeconds(1))
            .dlq()
            .build();

    /**
     * The context.
     *
     * @param customers the customers invoices may name
     */
    record Billing(Set<String> customers) {}

    /** Accepts invoices of known customers and rejects the others. Knows nothing about auditing. */
    static final class InvoiceHandler implements MessageHandler<Invoice, Billing> {
        @Override
        public Outcome handle(Invoice invoice, MessageMetadata meta, Billing billing) {
            return billing.customers().contains(invoice.customer())
                    ? Outcome.ack()
                    : Outcome.reject("unknown customer " + invoice.customer());
        }
    }

    /** Runs the example; exits 0 when both deliveries were audited to both sinks. */
    public static void main(String[] args) {
        Result result = run(System.out, TIMEOUT);
        System.exit(result.problems().isEmpty() ? 0 : 1);
    }

    /** Publishes the two invoices and runs the group until the audit log consumer has seen both records. */
    public static Result run(PrintStream out, Duration timeout) {
        List<AuditRecord<? extends Invoice>> local = new CopyOnWriteArrayList<>();
        List<AuditRecord<JsonNode>> fromTopic = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> bothLogged = new CompletableFuture<>();
        SupervisorOutcome outcome;
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            var group = broker.consumerGroup().withContext(new Billing(Set.of("acme", "globex")));

            // region audited
            broker.topology().declare(AuditLog.TOPIC); // the sink publishes to it
            AuditSink<Object> auditLog = AuditLog.sink(broker.publisher());
            AuditSink<Invoice> table = record -> {
                local.add(record); // stands in for an INSERT into an audit table
                out.printf(
                        "audit table : %s %s in %d ms, trace %s%n",
                        record.payload().invoiceId(), record.outcome(), record.durationMs(), record.traceId());
            };
            AuditSink<Invoice> both = record -> {
                table.audit(record);
                auditLog.audit(record); // a sink that throws turns the outcome into a retry: no delivery goes unaudited
            };
            group.register(INVOICES, () -> new InvoiceHandler().audited(both));
            // endregion audited

            // region audit-log-consumer
            group.register(AuditLog.TOPIC, () -> (record, meta, billing) -> {
                fromTopic.add(record);
                out.printf(
                        "audit log   : %s %s, payload %s, retryCount %d%n",
                        record.topic(),
                        record.outcome(),
                        record.payload(),
                        record.metadata().retryCount());
                if (fromTopic.size() == 2) {
                    bothLogged.complete(null);
                }
                return Outcome.ack();
            });
            // endregion audit-log-consumer

            broker.publisher()
                    .publishWithHeaders(
                            INVOICES, new Invoice("inv-1", "acme", 12_000), Map.of("x-trace-id", "trace-42"));
            broker.publisher().publish(INVOICES, new Invoice("inv-2", "initech", 990));
            outcome = group.runUntil(
                    bothLogged.copy().completeOnTimeout(null, timeout.toMillis(), TimeUnit.MILLISECONDS),
                    Duration.ofSeconds(5));
        }
        Result result = new Result(List.copyOf(local), List.copyOf(fromTopic), outcome);
        List<String> problems = result.problems();
        out.println(
                problems.isEmpty()
                        ? "both deliveries audited, to the table and to shove-audit-log"
                        : "UNEXPECTED: " + problems);
        return result;
    }

    /**
     * What the run recorded.
     *
     * @param table the records the local sink received
     * @param auditLog the records read back from the {@code shove-audit-log} topic
     * @param outcome how the group stopped
     */
    public record Result(
            List<AuditRecord<? extends Invoice>> table,
            List<AuditRecord<JsonNode>> auditLog,
            SupervisorOutcome outcome) {

        /** What differs from the behaviour in the class comment; empty when the run matched it. */
        public List<String> problems() {
            List<String> problems = new ArrayList<>();
            List<String> tableSummary = table.stream()
                    .map(r -> r.payload().invoiceId() + " " + r.outcome())
                    .sorted()
                    .toList();
            if (!tableSummary.equals(List.of("inv-1 ACK", "inv-2 REJECT"))) {
                problems.add("the table should hold [inv-1 ACK, inv-2 REJECT], holds " + tableSummary);
            }
            List<String> logSummary = auditLog.stream()
                    .map(r -> r.payload().path("invoiceId").asText() + " " + r.outcome())
                    .sorted()
                    .toList();
            if (!logSummary.equals(List.of("inv-1 ACK", "inv-2 REJECT"))) {
                problems.add("shove-audit-log should hold [inv-1 ACK, inv-2 REJECT], holds " + logSummary);
            }
            boolean traced = auditLog.stream()
                    .anyMatch(r -> r.payload().path("invoiceId").asText().equals("inv-1")
                            && r.traceId().equals("trace-42"));
            if (!traced) {
                problems.add("the record of inv-1 should carry trace id trace-42 from its x-trace-id header");
            }
            if (!outcome.isClean()) {
                problems.add("the group should stop cleanly, ended with " + outcome);
            }
            return problems;
        }
    }
}
