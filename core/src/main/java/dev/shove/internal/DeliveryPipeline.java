package dev.shove.internal;

import dev.shove.CircuitBreakerConfig;
import dev.shove.ConsumerOptions;
import dev.shove.DecodeFailurePolicy;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.Position;
import dev.shove.SequenceFailure;
import dev.shove.ShoveHeaders;
import dev.shove.ShoveMeters;
import dev.shove.Topic;
import dev.shove.internal.DeliveryPolicy.Decision;
import dev.shove.spi.Delivery;
import dev.shove.spi.DurationText;
import dev.shove.spi.Settlement;
import dev.shove.spi.WireHeaders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens to a message of one registration around its handler, shared by all of the registration's consumers:
 * the checks before the handler (due time, poisoned key, retry budget, size), decoding and header checks, turning
 * what the handler did into an outcome, replies, and the verdict the {@link DeliveryPolicy} gives, logged and
 * counted. The flows call it in that order and hand the verdict to the engine. Thread-safe.
 */
final class DeliveryPipeline<T, C> {
    private static final Logger log = LoggerFactory.getLogger(DeliveryPipeline.class);

    /** A copy released this much before its due time counts as due: broker timers and host clocks jitter. */
    static final long NOT_BEFORE_TOLERANCE_MS = 50;

    final Topic<T> topic;
    final ConsumerOptions options;
    final C context;
    final DeliveryPolicy policy;
    final Metrics.ConsumerMeters meters;
    final Metrics.ConsumerMeters deadMeters;
    final long timeoutNanos;
    /** Whether the registration's workers may start jobs: pause, resume and the circuit breaker. */
    final Valve valve;

    private final Outcome timeoutOutcome;
    private final int maxMessageSize;
    private final boolean failAll;
    /** The registration's required headers, as an array: a set's iterator would be one more object per message. */
    private final String[] requiredHeaders;
    /** How long a poisoned key outlives its drained lane at least. */
    static final Duration POISON_GRACE = Duration.ofSeconds(60);

    /** The most poisoned keys one registration keeps. */
    static final int MAX_POISONED_KEYS = 100_000;

    private final @Nullable PoisonedKeys poisoned;
    private final EngineContext engine;
    private final WireHeaders wireHeaders;

    DeliveryPipeline(
            Topic<T> topic,
            String metricGroup,
            ConsumerOptions options,
            C context,
            @Nullable Duration defaultHandlerTimeout,
            EngineContext engine) {
        this.topic = topic;
        this.options = options;
        this.context = context;
        this.engine = engine;
        BrokerServices services = engine.services();
        this.wireHeaders = services.wireHeaders();
        this.policy =
                new DeliveryPolicy(topic, options.maxRetries(), services.capabilities(), options.decodeFailurePolicy());
        this.meters = services.metrics().consumer(topic.name(), metricGroup);
        this.deadMeters = topic.dlq()
                .map(dlq -> services.metrics().consumer(dlq, metricGroup))
                .orElse(meters);
        this.timeoutNanos = options.resolveHandlerTimeout(defaultHandlerTimeout)
                .map(Duration::toNanos)
                .orElse(0L);
        this.timeoutOutcome = options.handlerTimeoutOutcome();
        this.maxMessageSize = options.maxMessageSize().orElse(0);
        this.requiredHeaders = options.requiredHeaders().toArray(String[]::new);
        CircuitBreakerConfig breaker = options.circuitBreaker().orElse(null);
        this.valve = new Valve(
                topic.name(),
                breaker,
                services.metrics()
                        .state(ShoveMeters.PAUSED, "1 while the registration is paused", topic.name(), metricGroup),
                breaker == null
                        ? null
                        : services.metrics()
                                .state(
                                        ShoveMeters.CIRCUIT_STATE,
                                        "Circuit breaker: 0 closed, 1 open, 2 half-open",
                                        topic.name(),
                                        metricGroup));
        this.failAll = topic.sequencing()
                .map(s -> s.onFailure() == SequenceFailure.FAIL_ALL)
                .orElse(false);
        Duration longestTier = topic.holdTiers().isEmpty()
                ? Duration.ZERO
                : topic.holdTiers().getLast().delay();
        this.poisoned = failAll
                ? new PoisonedKeys(
                        (longestTier.compareTo(POISON_GRACE) > 0 ? longestTier : POISON_GRACE).toNanos(),
                        MAX_POISONED_KEYS,
                        System::nanoTime,
                        services.metrics()
                                .state(
                                        ShoveMeters.POISONED_KEYS,
                                        "Keys of a FAIL_ALL sequenced topic whose later messages are dead-lettered",
                                        topic.name(),
                                        metricGroup))
                : null;
    }

    /** A message that cannot be read: its payload does not decode, or a required header is missing or bad. */
    static final class Unreadable extends Exception {
        private static final long serialVersionUID = 1L;

        Unreadable(String detail) {
            super(detail, null, false, false);
        }
    }

    // ---------------------------------------------------------------- before the handler

    /** The checks before decoding: due time, poisoned key, retry budget, size. Null when the message may run. */
    @Nullable
    Decision admit(Job job) {
        byte[] payload = job.delivery.payload();
        meters.size(payload.length);
        String notBefore = job.delivery.headers().get(ShoveHeaders.NOT_BEFORE);
        if (notBefore != null) { // the clock is read only for a copy that has a due time
            long now = System.currentTimeMillis();
            long remaining = wireHeaders.notBefore(notBefore, now) - now;
            if (remaining > NOT_BEFORE_TOLERANCE_MS) {
                return policy.notYetDue(Duration.ofMillis(remaining), job.retryCount());
            }
        }
        if (poisoned != null && poisoned.contains(laneKey(job))) {
            return policy.poisoned(job.retryCount());
        }
        if (job.retryCount() > policy.maxRetries()) {
            return policy.overBudget(job.retryCount());
        }
        if (maxMessageSize > 0 && payload.length > maxMessageSize) {
            meters.failed("oversize");
            return policy.oversize(payload.length, maxMessageSize, job.retryCount());
        }
        return null;
    }

    /** Why a payload of {@code size} bytes is too large for this registration, or null when it is not. */
    @Nullable
    String oversize(int size) {
        return maxMessageSize > 0 && size > maxMessageSize
                ? "oversize: %d bytes exceeds maxMessageSize %d".formatted(size, maxMessageSize)
                : null;
    }

    /**
     * Decodes the payload and checks the required headers and the header contract. A codec that throws anything but
     * a {@link VirtualMachineError} (a {@link StackOverflowError} from deeply nested input excepted, which is the
     * input's fault) makes the message unreadable; a virtual machine error goes on up to the engine.
     */
    T decode(Job job) throws Unreadable {
        T message;
        try {
            message = topic.codec().decode(job.delivery.payload(), job.delivery.headers());
        } catch (StackOverflowError e) {
            meters.failed("decode");
            throw new Unreadable(topic.codec().name() + ": " + firstLine(e));
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            meters.failed("decode");
            throw new Unreadable(topic.codec().name() + ": " + firstLine(e));
        }
        Map<String, String> headers = job.delivery.headers();
        for (String required : requiredHeaders) {
            if (!headers.containsKey(required)) {
                meters.failed("decode");
                throw new Unreadable("required header '" + required + "' is missing");
            }
        }
        Class<? extends Record> contract = options.headerContract().orElse(null);
        if (contract != null) {
            try {
                metadata(job).headersAs(contract);
            } catch (IllegalArgumentException e) {
                meters.failed("decode");
                throw new Unreadable(String.valueOf(e.getMessage()));
            }
        }
        return message;
    }

    /** The decision for a message that cannot be read; logged here when the policy retries it (others log later). */
    Decision unreadable(Job job, Unreadable e) {
        if (options.decodeFailurePolicy() == DecodeFailurePolicy.RETRY) {
            log.warn(
                    "message {} of topic '{}' cannot be read ({}); retrying it (decode-failure policy RETRY)",
                    job.messageId(),
                    topic.name(),
                    e.getMessage());
        }
        return policy.decodeFailure(String.valueOf(e.getMessage()), job.retryCount());
    }

    /**
     * The metadata of a delivery; in-place reruns add to the broker's delivery count. Its id, offset and position are
     * read from the delivery when the handler asks (most never do).
     */
    MessageMetadata metadata(Job job) {
        Delivery d = job.delivery;
        int count = d.deliveryCount();
        return MessageMetadata.ofDelivery(
                topic.name(),
                job.retryCount(),
                d,
                count > 0 ? deliveryCount(count + job.runs) : OptionalInt.empty(),
                partition(d.partition()),
                timestamps.of(d.timestampMs()));
    }

    /** The metadata's timestamps, shared by the registration's workers (one object per millisecond, not per message). */
    private final Timestamps timestamps = new Timestamps();

    /** The delivery counts most messages have, made once: metadata is built for every message. */
    private static final OptionalInt[] DELIVERY_COUNTS = new OptionalInt[16];

    static {
        for (int i = 1; i < DELIVERY_COUNTS.length; i++) {
            DELIVERY_COUNTS[i] = OptionalInt.of(i);
        }
    }

    /** The partitions most messages come from, made once. */
    private static final OptionalInt[] PARTITIONS = new OptionalInt[256];

    static {
        for (int i = 0; i < PARTITIONS.length; i++) {
            PARTITIONS[i] = OptionalInt.of(i);
        }
    }

    private static OptionalInt partition(int partition) {
        if (partition < 0) {
            return OptionalInt.empty();
        }
        return partition < PARTITIONS.length ? PARTITIONS[partition] : OptionalInt.of(partition);
    }

    private static OptionalInt deliveryCount(int count) {
        return count < DELIVERY_COUNTS.length ? DELIVERY_COUNTS[count] : OptionalInt.of(count);
    }

    // ---------------------------------------------------------------- after the handler

    /**
     * The outcome of a handler call: what it returned; for an exception, the outcome the registration maps its class
     * to ({@code exceptionOutcome}), else retry; retry when it returned null.
     */
    Outcome outcomeOf(Job job, @Nullable Object result, @Nullable Throwable error) {
        if (error != null) {
            meters.failed("handler_error");
            Outcome mapped = options.exceptionOutcome(error).orElse(null);
            log.warn(
                    "handler for topic '{}' failed on message {} (retryCount {}); treating it as {}",
                    topic.name(),
                    job.messageId(),
                    job.retryCount(),
                    mapped != null
                            ? mapped + " (the registration's outcome for "
                                    + error.getClass().getName() + ")"
                            : "retry",
                    error);
            return mapped != null ? mapped : Outcome.retry();
        }
        if (result instanceof Outcome o) {
            return o;
        }
        meters.failed("handler_error");
        log.warn(
                "handler for topic '{}' returned null for message {}; treating it as retry",
                topic.name(),
                job.messageId());
        return Outcome.retry();
    }

    /**
     * The verdict on a handler's outcome: its decision, replies published first (or, on a transactional backend,
     * carried to commit with the ack), its continuation, its seek where the registration allows seeking, and what the
     * handler threw, if it threw. For the single job a {@link Flow#run} ran: a plain ack is {@link Verdict#ACKED}.
     */
    Verdict conclude(Job job, Outcome outcome, @Nullable Throwable failure) {
        valve.record(failure != null || outcome.kind() == Outcome.Kind.RETRY);
        Decision decision = policy.decide(outcome, job.retryCount());
        if (decision == DeliveryPolicy.ACK
                && failure == null
                && outcome.replies().isEmpty()
                && outcome.continuation().isEmpty()
                && outcome.seek().isEmpty()) {
            return Verdict.ACKED; // what verdict() would make of it, minus the object (see Flow#run)
        }
        Verdict verdict =
                decision instanceof DeliveryPolicy.Ack && !outcome.replies().isEmpty()
                        ? ackWithReplies(job, outcome)
                        : verdict(job, decision, outcome.continuation().orElse(null));
        return verdict.seeking(seekOf(outcome)).failedWith(failure);
    }

    /** The verdict of the timeout outcome on a handler taken over at its deadline. */
    Verdict timedOut(Job job) {
        valve.record(true);
        return verdict(job, policy.decide(timeoutOutcome, job.retryCount()), null);
    }

    /** The handler-timeout outcome of this registration. */
    Outcome timeoutOutcome() {
        return timeoutOutcome;
    }

    /** A decision logged and counted; the key of a failed {@code FAIL_ALL} message is poisoned. */
    Verdict verdict(Job job, Decision decision, @Nullable Runnable continuation) {
        switch (decision) {
            case DeliveryPolicy.DeadLetter d -> {
                meters.deadLettered(d.metricReason());
                log.warn(
                        "message {} of topic '{}' goes to dead-letter queue '{}': {} (retryCount {})",
                        job.messageId(),
                        topic.name(),
                        topic.dlq().orElseThrow(),
                        Failures.oneLine(d.reason(), Failures.MAX_REASON),
                        d.retryCount());
                poisonIfFailAll(job);
            }
            case DeliveryPolicy.Discard d -> {
                meters.discarded(d.metricReason());
                log.warn(
                        "message {} of topic '{}' is discarded: {}",
                        job.messageId(),
                        topic.name(),
                        Failures.oneLine(d.reason(), Failures.MAX_REASON));
                poisonIfFailAll(job);
            }
            case DeliveryPolicy.Skip s -> {
                meters.discarded("decode");
                log.warn(
                        "message {} of topic '{}' is skipped: {}",
                        job.messageId(),
                        topic.name(),
                        Failures.oneLine(s.reason(), Failures.MAX_REASON));
            }
            default -> {}
        }
        return Verdict.of(job, decision, continuation);
    }

    private void poisonIfFailAll(Job job) {
        if (poisoned != null && poisoned.poison(laneKey(job))) {
            log.warn(
                    "key '{}' of sequenced topic '{}' is poisoned (FAIL_ALL): its later messages go to the"
                            + " dead-letter queue unhandled, until none of them has arrived for {}",
                    Failures.oneLine(laneKey(job), Failures.MAX_ID),
                    topic.name(),
                    DurationText.of(POISON_GRACE));
        }
    }

    /** A key's lane drained (nothing of it left in the consumer): a poisoned key starts its grace period. */
    void laneDrained(String key) {
        if (poisoned != null) {
            poisoned.drained(key);
        }
    }

    /** Where the handler asked to move, when the registration allows it; otherwise logged and ignored. */
    @Nullable
    Position seekOf(Outcome outcome) {
        Position position = outcome.seek().orElse(null);
        if (position != null && !options.isSeeking()) {
            log.error(
                    "a handler of topic '{}' asked to seek to {}, but the registration does not allow seeking;"
                            + " register with seeking() in its ConsumerGroupConfig or ConsumerOptions",
                    topic.name(),
                    position);
            return null;
        }
        return position;
    }

    // ---------------------------------------------------------------- replies

    /**
     * An ack carrying replies: the replies are published before the ack. On a transactional backend they travel in
     * the verdict and commit with the ack; elsewhere they are published first and a failure retries the message.
     */
    private Verdict ackWithReplies(Job job, Outcome outcome) {
        Runnable continuation = outcome.continuation().orElse(null);
        List<Settlement.Copy.ToTopic> replies;
        try {
            replies = prepareReplies(outcome.replies());
        } catch (RuntimeException e) {
            log.warn(
                    "replies of message {} on topic '{}' cannot be prepared ({}); retrying the message",
                    job.messageId(),
                    topic.name(),
                    e.toString());
            return verdict(job, policy.decide(Outcome.retry(), job.retryCount()), null);
        }
        if (engine.services().capabilities().transactions()) {
            // The replies are published by the settlement itself; count them as publishes once it is done.
            job.confirmation = failure -> countReplies(replies, failure == null);
            return new Verdict(job, DeliveryPolicy.ACK, List.copyOf(replies), continuation, null, null);
        }
        Throwable failure = publishReplies(replies);
        if (failure != null) {
            log.warn(
                    "publishing the replies of message {} on topic '{}' failed ({}); retrying the message",
                    job.messageId(),
                    topic.name(),
                    failure.toString());
            return verdict(job, policy.decide(Outcome.retry(), job.retryCount()), null);
        }
        return verdict(job, DeliveryPolicy.ACK, continuation);
    }

    /** Encodes replies (declaring their topics once). */
    List<Settlement.Copy.ToTopic> prepareReplies(List<Outcome.Reply<?>> replies) {
        List<Settlement.Copy.ToTopic> prepared = new ArrayList<>(replies.size());
        for (Outcome.Reply<?> reply : replies) {
            engine.declareReplyTopic(reply.topic());
            prepared.add(new Settlement.Copy.ToTopic(reply.topic(), PublisherImpl.prepareReply(reply)));
        }
        return prepared;
    }

    private void countReplies(List<Settlement.Copy.ToTopic> replies, boolean accepted) {
        Metrics metrics = engine.services().metrics();
        for (Settlement.Copy.ToTopic reply : replies) {
            Metrics.PublishMeters publish = metrics.publish(reply.topic().name());
            (accepted ? publish.success : publish.error).increment();
        }
    }

    /** Publishes prepared replies and waits for the broker; returns the first failure, or null. */
    @Nullable
    Throwable publishReplies(List<Settlement.Copy.ToTopic> replies) {
        BrokerServices services = engine.services();
        List<CompletableFuture<Void>> pending = new ArrayList<>(replies.size());
        for (Settlement.Copy.ToTopic reply : replies) {
            try {
                pending.add(services.transport().publish(reply.topic(), reply.message()));
            } catch (RuntimeException e) {
                pending.add(CompletableFuture.failedFuture(e));
            }
        }
        Throwable first = null;
        for (int i = 0; i < pending.size(); i++) {
            Metrics.PublishMeters publish =
                    services.metrics().publish(replies.get(i).topic().name());
            try {
                pending.get(i).get();
                publish.success.increment();
            } catch (ExecutionException e) {
                publish.error.increment();
                first = first == null ? e.getCause() : first;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                publish.error.increment();
                first = first == null ? e : first;
            }
        }
        return first;
    }

    /** Runs a continuation after the settlement of a message was confirmed (batch continuations wait for all). */
    void submitContinuation(Runnable continuation, String messageId) {
        engine.continuations().submit(continuation, topic.name(), messageId);
    }

    // ---------------------------------------------------------------- helpers

    /** Times the message was dead-lettered before, from its header (bounded). */
    int deathCount(Map<String, String> headers) {
        return wireHeaders.deathCount(headers);
    }

    static String laneKey(Job job) {
        return job.key == null ? "" : job.key;
    }

    static String firstLine(Throwable e) {
        String m = e.getMessage();
        if (m == null) {
            return e.getClass().getSimpleName();
        }
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
