package dev.shove.examples;

import dev.shove.Broker;
import dev.shove.Codec;
import dev.shove.ConsumerGroupConfig;
import dev.shove.DecodeFailurePolicy;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import dev.shove.memory.InMemoryProbe;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Messages that cannot be read, and the three decode-failure policies, on three topics of one group.
 *
 * <ul>
 *   <li>{@code payments}, policy {@link DecodeFailurePolicy#REJECT} (the default): every payment must carry an {@code
 *       idempotency-key} header and headers that fit the {@link PaymentHeaders} contract. {@code p-1} fits and is
 *       handled (the handler reads its headers with {@code headersAs}); {@code p-2} (JSON cut short), {@code p-3}
 *       (no idempotency key) and {@code p-4} ({@code schema-version: two}) never reach the handler: they go to the
 *       dead-letter queue at once, with a {@code decode-failed: ...} reason, without spending retries. The
 *       registration leaves its DLQ unconsumed, and the example reads what waits there: the bytes as published and
 *       the reason.
 *   <li>{@code clicks}, policy {@link DecodeFailurePolicy#SKIP}: a click that is not JSON is acknowledged and dropped,
 *       counted in {@code shove.messages.discarded{reason=decode}}; {@code c-1} is handled.
 *   <li>{@code ledger}, policy {@link DecodeFailurePolicy#RETRY}: its codec needs a schema registry that is down at
 *       first, so {@code l-1} fails to decode once, waits out the hold tier like any retry, and is handled at {@code
 *       retryCount} 1.
 * </ul>
 *
 * <p>The foreign bytes are published through a {@code byte[]} twin of each topic: the same queue, read by a codec
 * that passes bytes through. Run it with {@code scripts/quickstart.sh DecodeFailures}.
 */
public final class DecodeFailures {

    /** The hold tier of each topic. */
    public static final Duration HOLD_DELAY = Duration.ofMillis(500);

    /** How long the example may run before it gives up. */
    public static final Duration TIMEOUT = Duration.ofSeconds(20);

    private DecodeFailures() {}

    /**
     * A payment.
     *
     * @param paymentId the payment
     * @param cents how much
     */
    public record Payment(String paymentId, long cents) {}

    /**
     * A click on a page.
     *
     * @param clickId the click
     * @param page where
     */
    public record Click(String clickId, String page) {}

    /**
     * An entry of the ledger.
     *
     * @param entryId the entry
     * @param cents how much
     */
    public record LedgerEntry(String entryId, long cents) {}

    // region contract
    /**
     * The headers every payment carries. A component reads the header of its own name or its kebab-case form
     * ({@code tenantId} reads {@code tenantId}, else {@code tenant-id}); values are converted to the component's type;
     * {@code Optional} components may be missing.
     */
    public record PaymentHeaders(String tenantId, int schemaVersion, Optional<String> traceId) {}
    // endregion contract

    static Topic<Payment> payments(Duration hold) {
        return Topic.builder("payments", Payment.class).holdQueue(hold).dlq().build();
    }

    static Topic<Click> clicks(Duration hold) {
        return Topic.builder("clicks", Click.class).holdQueue(hold).dlq().build();
    }

    static Topic<LedgerEntry> ledger(Duration hold, SchemaRegistry registry) {
        return Topic.builder("ledger", new RegistryCodec(registry))
                .holdQueue(hold)
                .dlq()
                .build();
    }

    /** The same queue as {@code topic}, read and written as raw bytes: how a producer outside shove is simulated. */
    static Topic<byte[]> rawTwin(Topic<?> topic, Duration hold) {
        return Topic.builder(topic.name(), byte[].class).holdQueue(hold).dlq().build();
    }

    /**
     * A schema registry that is unreachable for its first {@code outages} lookups. Thread-safe.
     *
     * @param outages how many lookups fail
     * @param lookups how many lookups were made
     */
    record SchemaRegistry(int outages, AtomicInteger lookups) {
        void lookUp(String subject) {
            if (lookups.incrementAndGet() <= outages) {
                throw new IllegalStateException("schema registry unreachable (looking up " + subject + ")");
            }
        }
    }

    /** JSON, after a schema lookup that may fail: a decode failure that is worth retrying. */
    static final class RegistryCodec implements Codec<LedgerEntry> {
        private final SchemaRegistry registry;
        private final Codec<LedgerEntry> json = Codec.json(LedgerEntry.class);

        RegistryCodec(SchemaRegistry registry) {
            this.registry = registry;
        }

        @Override
        public byte[] encode(LedgerEntry message) throws Exception {
            return json.encode(message);
        }

        @Override
        public LedgerEntry decode(byte[] payload) throws Exception {
            registry.lookUp("ledger-entry");
            return json.decode(payload);
        }

        @Override
        public String contentType() {
            return json.contentType();
        }

        @Override
        public String name() {
            return "registry-json(LedgerEntry)";
        }
    }

    // region payment-handler
    /** Handles payments that fit the contract; reads the parsed headers. */
    static final class PaymentHandler implements MessageHandler<Payment, Desk> {
        @Override
        public Outcome handle(Payment payment, MessageMetadata meta, Desk desk) {
            PaymentHeaders headers = meta.headersAs(PaymentHeaders.class); // checked before the handler ran
            desk.print(
                    "payments",
                    "%s handled: tenant %s, schema v%d, trace %s"
                            .formatted(
                                    payment.paymentId(),
                                    headers.tenantId(),
                                    headers.schemaVersion(),
                                    headers.traceId().orElse("(none)")));
            desk.payments().add(payment.paymentId());
            return Outcome.ack();
        }
    }
    // endregion payment-handler

    /**
     * The context: what each handler saw. Thread-safe.
     *
     * @param out where to print
     * @param payments payments handled
     * @param clicks clicks handled
     * @param ledger ledger entries handled, with the retry count they were handled at
     */
    record Desk(PrintStream out, List<String> payments, List<String> clicks, List<String> ledger) {
        Desk(PrintStream out) {
            this(out, new CopyOnWriteArrayList<>(), new CopyOnWriteArrayList<>(), new CopyOnWriteArrayList<>());
        }

        synchronized void print(String topic, String text) {
            out.printf("%-9s %s%n", topic, text);
        }
    }

    /** Runs the example with {@link #HOLD_DELAY}; exits 0 when each policy did what the class comment says. */
    public static void main(String[] args) {
        Result result = run(System.out, HOLD_DELAY, TIMEOUT);
        System.exit(result.problems().isEmpty() ? 0 : 1);
    }

    /** Publishes the messages, runs the group until each reached its end (or {@code timeout} passes), and stops it. */
    public static Result run(PrintStream out, Duration holdDelay, Duration timeout) {
        MeterRegistry registry = new SimpleMeterRegistry();
        SchemaRegistry schemas = new SchemaRegistry(1, new AtomicInteger());
        Topic<Payment> payments = payments(holdDelay);
        Topic<byte[]> rawPayments = rawTwin(payments, holdDelay);
        Topic<Click> clicks = clicks(holdDelay);
        Topic<LedgerEntry> ledger = ledger(holdDelay, schemas);
        Desk desk = new Desk(out);
        List<String> deadPayments = new ArrayList<>();
        SupervisorOutcome outcome;
        try (Broker<InMemory> broker = Broker.builder(InMemoryConfig.ofDefaults())
                .meterRegistry(registry)
                .connect()) {
            InMemoryProbe probe = InMemoryProbe.of(broker);
            var group = broker.consumerGroup().withContext(desk);
            // region register
            group.register(
                    payments,
                    ConsumerGroupConfig.builder()
                            .requiredHeaders("idempotency-key")
                            .headerContract(PaymentHeaders.class) // policy: REJECT, the default
                            .noDeadLetterConsumer() // no handleDead: unreadable payments wait in payments-dlq
                            .build(),
                    PaymentHandler::new);
            group.register(
                    clicks,
                    ConsumerGroupConfig.builder()
                            .decodeFailurePolicy(DecodeFailurePolicy.SKIP) // a lost click costs nothing
                            .build(),
                    () -> (click, meta, d) -> {
                        d.print("clicks", click.clickId() + " handled: " + click.page());
                        d.clicks().add(click.clickId());
                        return Outcome.ack();
                    });
            group.register(
                    ledger,
                    ConsumerGroupConfig.builder()
                            .decodeFailurePolicy(DecodeFailurePolicy.RETRY) // the codec may recover
                            .build(),
                    () -> (entry, meta, d) -> {
                        d.print(
                                "ledger",
                                entry.entryId() + " handled at retryCount " + meta.retryCount()
                                        + (meta.retryCount() > 0 ? " (an earlier decode failed and was retried)" : ""));
                        d.ledger().add(entry.entryId() + "@" + meta.retryCount());
                        return Outcome.ack();
                    });
            // endregion register
            group.start();

            var publisher = broker.publisher();
            publisher.publishWithHeaders(
                    payments,
                    new Payment("p-1", 1_500),
                    Map.of("tenant-id", "acme", "schema-version", "2", "trace-id", "t-1", "idempotency-key", "k-1"));
            publisher.publishWithHeaders(
                    rawPayments,
                    "{\"paymentId\": \"p-2\", \"ce".getBytes(StandardCharsets.UTF_8), // cut short
                    Map.of("tenant-id", "acme", "schema-version", "2", "idempotency-key", "k-2"));
            publisher.publishWithHeaders(
                    payments, new Payment("p-3", 700), Map.of("tenant-id", "acme", "schema-version", "2"));
            publisher.publishWithHeaders(
                    payments,
                    new Payment("p-4", 300),
                    Map.of("tenant-id", "acme", "schema-version", "two", "idempotency-key", "k-4"));
            publisher.publish(rawTwin(clicks, holdDelay), "<click/>".getBytes(StandardCharsets.UTF_8));
            publisher.publish(clicks, new Click("c-1", "/pricing"));
            publisher.publish(ledger, new LedgerEntry("l-1", 4_200));

            long deadline = System.nanoTime() + timeout.toNanos();
            while (!(desk.payments().size() == 1
                            && probe.depth("payments-dlq") == 3
                            && desk.clicks().size() == 1
                            && discarded(registry, clicks) == 1
                            && desk.ledger().size() == 1)
                    && System.nanoTime() - deadline < 0) {
                sleep(Duration.ofMillis(5));
            }
            outcome = group.stop(Duration.ofSeconds(5));

            // region read-dlq
            // The raw twin reads the dead letters' bytes as they were published, whatever they are.
            List<byte[]> bodies = probe.deadLetters(rawPayments);
            List<Map<String, String>> headers = probe.deadLetterHeaders(payments);
            for (int i = 0; i < bodies.size(); i++) { // oldest first
                String body = new String(bodies.get(i), StandardCharsets.UTF_8);
                String reason = headers.get(i).get(ShoveHeaders.DEATH_REASON);
                desk.print("payments", "in payments-dlq: " + body + "\n          reason: " + reason);
                deadPayments.add(body + " -> " + reason);
            }
            // endregion read-dlq
        }
        double skipped = discarded(registry, clicks);
        out.printf("clicks    shove.messages.discarded{reason=decode} = %.0f (the unreadable click)%n", skipped);
        Result result = new Result(
                List.copyOf(desk.payments()),
                List.copyOf(deadPayments),
                List.copyOf(desk.clicks()),
                skipped,
                List.copyOf(desk.ledger()),
                outcome);
        List<String> problems = result.problems();
        out.println(problems.isEmpty() ? "each policy did its job" : "UNEXPECTED: " + problems);
        return result;
    }

    private static double discarded(MeterRegistry registry, Topic<?> topic) {
        Counter c = registry.find("shove.messages.discarded")
                .tag("topic", topic.name())
                .tag("reason", "decode")
                .counter();
        return c == null ? 0 : c.count();
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * What the run recorded.
     *
     * @param payments payments handled
     * @param deadPayments what waits in {@code payments-dlq}, oldest first: the payload as text, then the reason
     * @param clicks clicks handled
     * @param skippedClicks clicks discarded as unreadable
     * @param ledger ledger entries handled ({@code id@retryCount})
     * @param outcome how the group stopped
     */
    public record Result(
            List<String> payments,
            List<String> deadPayments,
            List<String> clicks,
            double skippedClicks,
            List<String> ledger,
            SupervisorOutcome outcome) {

        /** What differs from the behaviour in the class comment; empty when the run matched it. */
        public List<String> problems() {
            List<String> problems = new ArrayList<>();
            if (!payments.equals(List.of("p-1"))) {
                problems.add("only p-1 should reach the payment handler, reached: " + payments);
            }
            Map<String, String> expected = Map.of(
                    "p-2", "decode-failed: json(dev.shove.examples.DecodeFailures$Payment): ",
                    "p-3", "decode-failed: required header 'idempotency-key' is missing",
                    "p-4", "decode-failed: header 'schemaVersion' of PaymentHeaders does not parse as int: 'two'");
            boolean asExpected = deadPayments.size() == 3;
            for (Map.Entry<String, String> e : expected.entrySet()) {
                asExpected &= deadPayments.stream()
                        .anyMatch(d -> d.contains("\"" + e.getKey() + "\"") && d.contains(" -> " + e.getValue()));
            }
            if (!asExpected) {
                problems.add("p-2, p-3 and p-4 should wait in payments-dlq as decode failures, found: " + deadPayments);
            }
            if (!clicks.equals(List.of("c-1")) || skippedClicks != 1) {
                problems.add("c-1 should be handled and one click skipped, handled " + clicks + ", skipped "
                        + skippedClicks);
            }
            if (!ledger.equals(List.of("l-1@1"))) {
                problems.add("l-1 should be handled once, at retryCount 1, was: " + ledger);
            }
            if (!outcome.isClean()) {
                problems.add("the group should stop cleanly, ended with " + outcome);
            }
            return problems;
        }
    }
}
