package dev.shove.opentelemetry;

import dev.shove.Broker;
import dev.shove.HandlerInterceptor;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Publisher;
import dev.shove.Topic;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.api.baggage.propagation.W3CBaggagePropagator;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Traces shove with OpenTelemetry: a producer span per published message, whose context travels in the message's
 * headers (W3C {@code traceparent}, {@code tracestate}, {@code baggage}), and a consumer span per handler call whose
 * parent is that context. Retries, hold tiers and the dead-letter queue copy every header, so every run of a message,
 * its dead letter and the replies it causes stay in the trace the publisher started. Spans and attributes follow the
 * OpenTelemetry messaging semantic conventions. Uses the OpenTelemetry API only: the application brings the SDK (or
 * an agent) and passes its {@link OpenTelemetry}.
 *
 * <pre>{@code
 * ShoveTracing tracing = ShoveTracing.of(openTelemetry);
 * Publisher publisher = tracing.publisher(broker);                        // "send orders" spans
 * var group = broker.consumerGroup().withContext(app)
 *         .withInterceptor(tracing.interceptor(broker));                  // "process orders" spans
 * group.register(ORDERS, tracing.deadLetterSpans(broker, ORDERS, OrderHandler::new)); // and around handleDead
 * }</pre>
 *
 * <p>Defaults: {@link #DEFAULT_PROPAGATOR} (W3C Trace Context and W3C Baggage, whatever propagators the {@code
 * OpenTelemetry} instance has), producer spans on, and each consumer span a child of its message's creation context
 * (as well as linked to it). Immutable and thread-safe: build one per application and share it; everything it makes
 * (publishers, interceptors, handlers) is thread-safe too.
 *
 * @since 0.1.0
 */
public final class ShoveTracing {
    /** The instrumentation scope name of every span this module starts. */
    public static final String INSTRUMENTATION_NAME = "dev.shove.opentelemetry";

    /** W3C Trace Context and W3C Baggage: the formats every OpenTelemetry SDK, in any language, reads. */
    public static final TextMapPropagator DEFAULT_PROPAGATOR =
            TextMapPropagator.composite(W3CTraceContextPropagator.getInstance(), W3CBaggagePropagator.getInstance());

    private final OpenTelemetry openTelemetry;
    private final Tracer tracer;
    private final TextMapPropagator propagator;
    private final boolean producerSpans;
    private final boolean messageParent;

    private ShoveTracing(Builder b) {
        this.openTelemetry = b.openTelemetry;
        this.propagator = b.propagator;
        this.producerSpans = b.producerSpans;
        this.messageParent = b.messageParent;
        var tracerBuilder = openTelemetry.tracerBuilder(INSTRUMENTATION_NAME);
        String version = ShoveTracing.class.getPackage().getImplementationVersion();
        if (version != null) {
            tracerBuilder.setInstrumentationVersion(version);
        }
        this.tracer = tracerBuilder.build();
    }

    /**
     * Tracing through {@code openTelemetry}, with every default.
     *
     * @param openTelemetry the application's OpenTelemetry instance
     * @return the tracing; thread-safe, make it once
     */
    public static ShoveTracing of(OpenTelemetry openTelemetry) {
        return builder(openTelemetry).build();
    }

    /**
     * A builder starting from the defaults.
     *
     * @param openTelemetry the application's OpenTelemetry instance
     * @return the builder
     */
    public static Builder builder(OpenTelemetry openTelemetry) {
        return new Builder(Objects.requireNonNull(openTelemetry, "openTelemetry"));
    }

    /** {@return a builder starting from this configuration} */
    public Builder toBuilder() {
        Builder b = new Builder(openTelemetry);
        b.propagator = propagator;
        b.producerSpans = producerSpans;
        b.messageParent = messageParent;
        return b;
    }

    /**
     * The broker's publisher, traced: each message gets a producer span ({@code send <topic>}, or {@code create
     * <topic>} per message of a batch) and carries that span's context in its headers. Every method keeps the
     * {@link Publisher} contract; see {@code docs/concepts/tracing.md} for what a traced batch costs. Make it once
     * and share it, as the broker's own.
     *
     * @param broker the broker whose publisher to trace
     * @return a traced publisher
     */
    public Publisher publisher(Broker<?> broker) {
        Objects.requireNonNull(broker, "broker");
        return new TracingPublisher(broker.publisher(), this, MessagingAttributes.system(broker.backendName()));
    }

    /**
     * An interceptor that runs every handler call in a consumer span ({@code process <topic>}), current while the
     * handler runs; it records the outcome, and gives the outcome's replies (and its continuation) the span's
     * context. Register it first with {@link dev.shove.ConsumerGroup#withInterceptor}, so that it sees what every
     * other interceptor decides, or per registration. {@code messaging.consumer.group.name} is the registration's
     * group name.
     *
     * @param broker the broker the interceptor's group belongs to
     * @return the tracing interceptor
     */
    public HandlerInterceptor interceptor(Broker<?> broker) {
        Objects.requireNonNull(broker, "broker");
        return new TracingInterceptor(this, MessagingAttributes.system(broker.backendName()));
    }

    /**
     * A handler factory whose handlers run {@link MessageHandler#handleDead handleDead} and {@code
     * handleUnreadableDead} in a consumer span ({@code process <dlq>}) in the dead
     * letter's trace; interceptors do not wrap those methods. Everything else is passed through unchanged:
     *
     * <pre>{@code
     * group.register(ORDERS, tracing.deadLetterSpans(broker, ORDERS, OrderHandler::new));
     * }</pre>
     *
     * @param broker the broker the handlers' group belongs to
     * @param topic the topic the handlers are registered for; it has a dead-letter queue
     * @param handlerFactory makes the handlers to wrap
     * @param <T> the message type
     * @param <C> the context type
     * @return a factory of handlers that trace their dead letters
     * @throws IllegalArgumentException when the topic has no dead-letter queue (then handleDead is never called)
     */
    public <T, C> Supplier<MessageHandler<T, C>> deadLetterSpans(
            Broker<?> broker, Topic<T> topic, Supplier<? extends MessageHandler<T, C>> handlerFactory) {
        Objects.requireNonNull(broker, "broker");
        Objects.requireNonNull(handlerFactory, "handlerFactory");
        String dlq = Objects.requireNonNull(topic, "topic")
                .dlq()
                .orElseThrow(() -> new IllegalArgumentException("topic '" + topic.name()
                        + "' has no dead-letter queue, so handleDead is never called; register its handler factory"
                        + " as it is"));
        String system = MessagingAttributes.system(broker.backendName());
        return () -> DeadLetterSpans.wrap(
                Objects.requireNonNull(handlerFactory.get(), "the handler factory returned null"), this, system, dlq);
    }

    /**
     * The trace context a message carries: its creation context (the producer's span) and its baggage, on top of
     * {@link Context#root()}; the root context when it carries none. For code the interceptor does not wrap, e.g. a
     * {@link dev.shove.BatchMessageHandler} linking each {@code envelope.metadata()}, or a {@code handleDead} that
     * starts spans of its own from {@code deadMetadata.message()}.
     *
     * @param metadata the delivery's metadata, headers included
     * @return the message's context; the root context when it carries none
     */
    public Context extract(MessageMetadata metadata) {
        return extract(Objects.requireNonNull(metadata, "metadata").headers());
    }

    /** {@return how trace context is written into and read from headers} */
    public TextMapPropagator propagator() {
        return propagator;
    }

    /** {@return whether publishing starts producer spans (else it only passes on the current context)} */
    public boolean producerSpans() {
        return producerSpans;
    }

    /**
     * {@return whether a consumer span's parent is its message's creation context (else the context current around it)}
     */
    public boolean messageParent() {
        return messageParent;
    }

    @Override
    public String toString() {
        return "ShoveTracing[propagator=" + propagator + ", producerSpans=" + producerSpans + ", messageParent="
                + messageParent + "]";
    }

    // ---------------------------------------------------------------- shared by the publisher and the consumers

    Tracer tracer() {
        return tracer;
    }

    Context extract(Map<String, String> headers) {
        return propagator.extract(Context.root(), headers, HeaderCarrier.INSTANCE);
    }

    /** {@code headers} plus the context's propagation headers (a new map, or {@code headers} when none were added). */
    Map<String, String> inject(Context context, Map<String, String> headers) {
        Map<String, String> out = new HashMap<>(headers);
        propagator.inject(context, out, HeaderCarrier.INSTANCE);
        return out.size() == headers.size() && out.equals(headers) ? headers : out;
    }

    static SpanContext spanContext(Context context) {
        return Span.fromContext(context).getSpanContext();
    }

    /**
     * A consumer span of one message, not started: its parent is the message's creation context ({@link
     * #messageParent}), else the ambient context with the message's baggage; it links to the creation context, and,
     * when it is parented to the message inside another span, to that span too (as the conventions ask).
     */
    ConsumerSpan consumerSpan(String name, Context ambient, Map<String, String> headers) {
        Context creation = extract(headers);
        SpanContext creationSpan = spanContext(creation);
        Context parent;
        if (messageParent && creationSpan.isValid()) {
            parent = creation;
        } else {
            Baggage baggage = Baggage.fromContextOrNull(creation);
            parent = baggage == null || baggage.isEmpty() ? ambient : ambient.with(baggage);
        }
        SpanBuilder span =
                tracer.spanBuilder(name).setSpanKind(SpanKind.CONSUMER).setParent(parent);
        if (creationSpan.isValid()) {
            span.addLink(creationSpan);
            SpanContext ambientSpan = spanContext(ambient);
            if (parent == creation && ambientSpan.isValid()) {
                span.addLink(ambientSpan);
            }
        }
        return new ConsumerSpan(span, parent);
    }

    /** A consumer span to start, and the context to make current with it. */
    record ConsumerSpan(SpanBuilder builder, Context parent) {}

    /** Ends {@code span} as failed by {@code error}: the exception recorded, status ERROR, {@code error.type}. */
    static void fail(Span span, Throwable error) {
        span.recordException(error);
        String message = error.getMessage();
        span.setStatus(
                StatusCode.ERROR, message != null ? message : error.getClass().getName());
        span.setAttribute(MessagingAttributes.ERROR_TYPE, error.getClass().getName());
    }

    /**
     * Builds a {@link ShoveTracing}. Not thread-safe; a later call replaces an earlier one.
     */
    public static final class Builder {
        private final OpenTelemetry openTelemetry;
        private TextMapPropagator propagator = DEFAULT_PROPAGATOR;
        private boolean producerSpans = true;
        private boolean messageParent = true;

        private Builder(OpenTelemetry openTelemetry) {
            this.openTelemetry = openTelemetry;
        }

        /**
         * Writes and reads trace context with {@code propagator} instead of {@link #DEFAULT_PROPAGATOR}, e.g. {@code
         * openTelemetry.getPropagators().getTextMapPropagator()} to use the instance's own. Every service on the
         * topics must read what this one writes.
         *
         * @param propagator the propagator to write and read headers with
         * @return this builder
         */
        public Builder propagator(TextMapPropagator propagator) {
            this.propagator = Objects.requireNonNull(propagator, "propagator");
            return this;
        }

        /**
         * Publishes without producer spans: a message carries the context current when it was published (say, the
         * application's request span), and consumer spans become that context's children.
         *
         * @return this builder
         */
        public Builder noProducerSpans() {
            this.producerSpans = false;
            return this;
        }

        /**
         * Makes each consumer span a child of the context current around the handler (usually none: a new trace) and
         * only links it to its message's creation context, as the conventions do by default. Each run of a message
         * is then a trace of its own, connected to the producer by the link.
         *
         * @return this builder
         */
        public Builder noMessageParent() {
            this.messageParent = false;
            return this;
        }

        /** {@return the configuration as set} */
        public ShoveTracing build() {
            return new ShoveTracing(this);
        }
    }
}
