package dev.shove.examples;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.cloudevents.CloudEventHandler;
import dev.shove.cloudevents.CloudEventMessage;
import dev.shove.cloudevents.CloudEventOptions;
import dev.shove.cloudevents.CloudEventPublisher;
import dev.shove.cloudevents.CloudEventTopic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import io.cloudevents.CloudEvent;
import io.cloudevents.CloudEventContext;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonFormat;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A gateway between a partner's CloudEvents and the services inside: events arrive in structured mode (the JSON event
 * format, as an event router such as Knative or EventBridge sends them), are checked, and go on inside in binary mode
 * (the data as the payload, the attributes as headers) under their own id.
 *
 * <p>The partner writes its events with the CloudEvents SDK ({@code JsonFormat}), bytes shove did not write; here they
 * are put on {@code partner-payments} through a raw twin topic, as any producer would. The gateway reads them as
 * {@code PartnerPayment}s with their attributes, rejects an event type it does not know (to the dead-letter queue),
 * and republishes the others to {@code payments} with the partner's event id, which is also the shove message id
 * inside. The payments service reads each event's data, typed, and its attributes. Run it with {@code
 * scripts/quickstart.sh CloudEventsGateway}.
 */
public final class CloudEventsGateway {

    /** How long the example may run before it gives up. */
    public static final Duration TIMEOUT = Duration.ofSeconds(20);

    /** The only event type the gateway forwards. */
    static final String SETTLED = "com.partner.payment.settled";

    private CloudEventsGateway() {}

    /** A payment as the partner describes it. */
    public record PartnerPayment(String reference, long amountCents, String currency) {}

    /** A payment as the services inside describe it. */
    public record Payment(String paymentId, long cents) {}

    // region topics
    /** The partner's events: structured mode, the whole event in the payload. */
    static final Topic<CloudEventMessage<PartnerPayment>> PARTNER_TOPIC = Topic.builder(
                    "partner-payments", CloudEventMessage.structuredCodec(PartnerPayment.class))
            .holdQueue(Duration.ofSeconds(1))
            .dlq()
            .build();

    static final CloudEventTopic<PartnerPayment> PARTNER_PAYMENTS = CloudEventTopic.structured(PARTNER_TOPIC)
            .type(SETTLED)
            .source(URI.create("https://partner.example/payments"))
            .build();

    /** The events inside: binary mode, the attributes in headers ({@code ce_type} on Kafka, and so on). */
    static final Topic<Payment> PAYMENTS_TOPIC = Topic.builder("payments", Payment.class)
            .holdQueue(Duration.ofSeconds(1))
            .dlq()
            .build();

    static final CloudEventTopic<Payment> PAYMENTS = CloudEventTopic.binary(PAYMENTS_TOPIC)
            .type("com.acme.payment.received")
            .source(URI.create("/gateway/partner"))
            .build();
    // endregion topics

    /** The partner's topic as bytes, for writing what the partner's SDK produced. */
    static final Topic<byte[]> PARTNER_RAW = Topic.builder("partner-payments", byte[].class)
            .holdQueue(Duration.ofSeconds(1))
            .dlq()
            .build();

    // region gateway
    /** Forwards settled payments inside under the partner's event id; rejects the event types it does not know. */
    static final class Gateway implements CloudEventHandler<PartnerPayment, Desk> {
        @Override
        public Outcome handle(PartnerPayment payment, CloudEventContext event, MessageMetadata meta, Desk desk) {
            if (!SETTLED.equals(event.getType())) {
                return Outcome.reject("unknown event type " + event.getType());
            }
            if (!"EUR".equals(payment.currency())) {
                return Outcome.reject("currency " + payment.currency() + " is not booked here");
            }
            desk.events()
                    .publish(
                            PAYMENTS,
                            new Payment(payment.reference(), payment.amountCents()),
                            CloudEventOptions.builder()
                                    .id(event.getId()) // the same id: a forward repeated after a crash is a duplicate
                                    .subject(payment.reference())
                                    .extension("partner", event.getSource().getHost())
                                    .build());
            desk.print("gateway", event.getId() + " " + event.getType() + " forwarded to payments");
            return Outcome.ack();
        }

        @Override
        public void handleDead(PartnerPayment payment, CloudEventContext event, DeadMessageMetadata meta, Desk desk) {
            desk.print("dead", event.getId() + " " + meta.reason());
            desk.rejected().add(event.getId());
        }
    }
    // endregion gateway

    // region payments
    /** The payments service: the data typed, the attributes beside it. */
    static final class PaymentsService implements CloudEventHandler<Payment, Desk> {
        @Override
        public Outcome handle(Payment payment, CloudEventContext event, MessageMetadata meta, Desk desk) {
            desk.print(
                    "payments",
                    "%s %s %d cents, subject %s, partner %s, message id %s"
                            .formatted(
                                    event.getId(),
                                    event.getType(),
                                    payment.cents(),
                                    event.getSubject(),
                                    event.getExtension("partner"),
                                    meta.messageId().orElse("(none)")));
            desk.booked().put(event.getId(), meta.messageId().orElse(""));
            return Outcome.ack();
        }
    }
    // endregion payments

    /**
     * The context: where to print, the publisher of events, and what was booked or rejected. Thread-safe.
     *
     * @param out where to print
     * @param events publishes events on the broker
     * @param booked event id to the shove message id the payments service saw, per booked payment
     * @param rejected the ids of the partner events that reached handleDead
     */
    record Desk(PrintStream out, CloudEventPublisher events, Map<String, String> booked, List<String> rejected) {
        Desk(PrintStream out, CloudEventPublisher events) {
            this(out, events, new ConcurrentHashMap<>(), new CopyOnWriteArrayList<>());
        }

        synchronized void print(String who, String what) {
            out.printf("%-9s %s%n", who, what);
        }
    }

    /** Runs the example; exits 0 when both settled payments were booked and the other two events rejected. */
    public static void main(String[] args) {
        Result result = run(System.out, TIMEOUT);
        System.exit(result.problems().isEmpty() ? 0 : 1);
    }

    /** Events as the partner's SDK writes them: two settled payments, one refund, one in a foreign currency. */
    static List<CloudEvent> partnerEvents() {
        return List.of(
                partnerEvent(
                        "evt-1001", SETTLED, "{\"reference\":\"pay-1\",\"amountCents\":1299,\"currency\":\"EUR\"}"),
                partnerEvent(
                        "evt-1002",
                        "com.partner.payment.refunded",
                        "{\"reference\":\"pay-1\",\"amountCents\":1299,\"currency\":\"EUR\"}"),
                partnerEvent("evt-1003", SETTLED, "{\"reference\":\"pay-2\",\"amountCents\":500,\"currency\":\"EUR\"}"),
                partnerEvent(
                        "evt-1004", SETTLED, "{\"reference\":\"pay-3\",\"amountCents\":700,\"currency\":\"USD\"}"));
    }

    private static CloudEvent partnerEvent(String id, String type, String json) {
        return CloudEventBuilder.v1()
                .withId(id)
                .withType(type)
                .withSource(URI.create("https://partner.example/payments"))
                .withData("application/json", json.getBytes(StandardCharsets.UTF_8))
                .build();
    }

    /** Publishes the partner's events and runs the gateway and the payments service until every event reached its end. */
    public static Result run(PrintStream out, Duration timeout) {
        List<CloudEvent> sent = partnerEvents();
        SupervisorOutcome outcome;
        Desk desk;
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            desk = new Desk(out, CloudEventPublisher.of(broker));
            var group = broker.consumerGroup().withContext(desk);
            var onePrefetch = ConsumerGroupConfig.builder().prefetch(1).build();
            PARTNER_PAYMENTS.register(group, onePrefetch, Gateway::new);
            PAYMENTS.register(group, onePrefetch, PaymentsService::new);
            group.start();
            JsonFormat json = new JsonFormat();
            for (CloudEvent event : sent) {
                desk.print("partner", event.getId() + " " + event.getType() + " sent as application/cloudevents+json");
                broker.publisher().publish(PARTNER_RAW, json.serialize(event));
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            while (desk.booked().size() + desk.rejected().size() < sent.size() && System.nanoTime() - deadline < 0) {
                try {
                    Thread.sleep(Duration.ofMillis(5));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            outcome = group.stop(Duration.ofSeconds(5));
        }
        Result result = new Result(Map.copyOf(desk.booked()), List.copyOf(desk.rejected()), outcome);
        List<String> problems = result.problems();
        out.println(
                problems.isEmpty()
                        ? "both settled payments booked under the partner's ids; the other two events rejected"
                        : "UNEXPECTED: " + problems);
        return result;
    }

    /**
     * What the run recorded.
     *
     * @param booked event id to the shove message id the payments service saw
     * @param rejected the ids of the partner events dead-lettered by the gateway
     * @param outcome how the group stopped
     */
    public record Result(Map<String, String> booked, List<String> rejected, SupervisorOutcome outcome) {
        /** What differs from the behaviour in the class comment; empty when the run matched it. */
        public List<String> problems() {
            List<String> problems = new ArrayList<>();
            if (!booked.equals(Map.of("evt-1001", "evt-1001", "evt-1003", "evt-1003"))) {
                problems.add("evt-1001 and evt-1003 should be booked, each with its event id as message id: " + booked);
            }
            if (!List.copyOf(rejected).stream().sorted().toList().equals(List.of("evt-1002", "evt-1004"))) {
                problems.add("evt-1002 and evt-1004 should be rejected, rejected: " + rejected);
            }
            if (!outcome.isClean()) {
                problems.add("the group should stop cleanly, ended with " + outcome);
            }
            return problems;
        }
    }
}
