package dev.shove;

import dev.shove.spi.Bounds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a handler decided about a message. Outcomes are immutable values; the engine turns them into broker
 * operations the same way on every backend.
 *
 * <ul>
 *   <li>{@link #ack()}: done; the message leaves its queue.
 *   <li>{@link #retry()}: a transient failure. The message waits in the next hold tier and is delivered again with
 *       {@code retryCount + 1}. With {@code maxRetries = N}, the handler runs at most {@code N + 1} times; a retry at
 *       {@code retryCount == N} goes straight to the dead-letter queue.
 *   <li>{@link #retry(Duration)}: the same, waiting at least the given delay.
 *   <li>{@link #reject()}: a permanent failure. To the dead-letter queue now, or, without one, discarded with a WARN
 *       and counted in {@code shove.messages.discarded}.
 *   <li>{@link #defer()}: not ready yet. The message waits in the first hold tier; its retry budget is untouched, so
 *       a message can be deferred indefinitely: nothing in shove bounds it (each hold copy is a new broker message,
 *       so its {@link MessageMetadata#deliveryCount()} starts again at 1). Bound it in the handler, e.g. from a time
 *       in the message, if it can be deferred forever.
 * </ul>
 *
 * <p>Any outcome can carry a continuation ({@link #andThen(Runnable)}) that runs at most once, after the settlement
 * reached the broker, off the delivery path. An ack can carry replies ({@link #withReply}), published before the
 * message is acknowledged, and any outcome can move a log-like subscription ({@link #andSeek(Position)}).
 *
 * @since 0.1.0
 */
public final class Outcome {
    /** The longest delay a {@link #retry(Duration)} or {@link #defer(Duration)} may ask for: seven days. */
    public static final Duration MAX_DELAY = Bounds.MAX_DELAY;

    /** The four decisions a handler can make. */
    public enum Kind {
        /** Success: the message leaves its queue. */
        ACK,
        /** Transient failure: delivered again later, spending one retry. */
        RETRY,
        /** Permanent failure: dead-lettered now, or discarded and counted without a dead-letter queue. */
        REJECT,
        /** Not ready yet: delivered again later without spending a retry. */
        DEFER;

        /** {@return the lower-case name used in metric tags and logs: {@code ack}, {@code retry}, ...} */
        public String tag() {
            return switch (this) {
                case ACK -> "ack";
                case RETRY -> "retry";
                case REJECT -> "reject";
                case DEFER -> "defer";
            };
        }
    }

    /**
     * A message to publish before the handled message is acknowledged.
     *
     * @param topic where to publish it
     * @param message the reply
     * @param headers headers of your own (not {@code shove-*})
     * @param <R> the reply's type
     */
    public record Reply<R>(Topic<R> topic, R message, Map<String, String> headers) {
        /**
         * Copies {@code headers}.
         *
         * @param topic where to publish it
         * @param message the reply
         * @param headers headers of your own (not {@code shove-*})
         */
        public Reply {
            Objects.requireNonNull(topic, "topic");
            Objects.requireNonNull(message, "message");
            headers = Map.copyOf(headers);
        }
    }

    private static final Outcome ACK = new Outcome(Kind.ACK, null, null, null, List.of(), null);
    private static final Outcome RETRY = new Outcome(Kind.RETRY, null, null, null, List.of(), null);
    private static final Outcome REJECT = new Outcome(Kind.REJECT, null, null, null, List.of(), null);
    private static final Outcome DEFER = new Outcome(Kind.DEFER, null, null, null, List.of(), null);

    private final Kind kind;
    private final @Nullable Duration delay;
    private final @Nullable String reason;
    private final @Nullable Runnable continuation;
    private final List<Reply<?>> replies;
    private final @Nullable Position seek;

    private Outcome(
            Kind kind,
            @Nullable Duration delay,
            @Nullable String reason,
            @Nullable Runnable continuation,
            List<Reply<?>> replies,
            @Nullable Position seek) {
        this.kind = kind;
        this.delay = delay;
        this.reason = reason;
        this.continuation = continuation;
        this.replies = replies;
        this.seek = seek;
    }

    /** {@return an ack: success, the message leaves its queue} */
    public static Outcome ack() {
        return ACK;
    }

    /**
     * {@return a retry, for a transient failure: deliver again after the next hold tier's delay, spending one
     * retry}
     */
    public static Outcome retry() {
        return RETRY;
    }

    /**
     * Transient failure: deliver again after at least {@code delay} (positive, at most {@link #MAX_DELAY}), spending
     * one retry. Backends that can delay a message exactly do; the others round up to the shortest hold tier that is
     * at least as long (never earlier).
     *
     * @param delay the shortest wait before the next delivery
     * @return a retry with that delay
     * @throws IllegalArgumentException if {@code delay} is not positive or longer than {@link #MAX_DELAY}
     */
    public static Outcome retry(Duration delay) {
        return new Outcome(Kind.RETRY, requirePositive(delay), null, null, List.of(), null);
    }

    /**
     * {@return a reject, for a permanent failure: dead-letter the message now (or discard it, counted, when the
     * topic has no DLQ)}
     */
    public static Outcome reject() {
        return REJECT;
    }

    /**
     * Permanent failure with a reason, which travels to the dead-letter queue and {@link DeadMessageMetadata}.
     *
     * @param reason why the message can never succeed, for the people reading the dead-letter queue
     * @return a reject carrying {@code reason}
     */
    public static Outcome reject(String reason) {
        return new Outcome(Kind.REJECT, null, Objects.requireNonNull(reason, "reason"), null, List.of(), null);
    }

    /**
     * {@return a defer, for a message not ready yet: deliver again after the first hold tier's delay, without
     * spending a retry}
     */
    public static Outcome defer() {
        return DEFER;
    }

    /**
     * Not ready yet: deliver again after at least {@code delay} (positive, at most {@link #MAX_DELAY}), without
     * spending a retry.
     *
     * @param delay the shortest wait before the next delivery
     * @return a defer with that delay
     * @throws IllegalArgumentException if {@code delay} is not positive or longer than {@link #MAX_DELAY}
     */
    public static Outcome defer(Duration delay) {
        return new Outcome(Kind.DEFER, requirePositive(delay), null, null, List.of(), null);
    }

    /**
     * The same outcome with a continuation: it runs at most once, only after the settlement reached the broker, on
     * its own virtual thread, and is drained on shutdown. A continuation that throws is logged; it never causes the
     * message to be delivered again. Adding a second continuation runs both, in order.
     *
     * @param next what to run after the settlement
     * @return a new outcome of the same kind with {@code next} added; this one is unchanged
     */
    public Outcome andThen(Runnable next) {
        Objects.requireNonNull(next, "continuation");
        Runnable first = continuation;
        Runnable combined = first == null
                ? next
                : () -> {
                    try {
                        first.run();
                    } finally {
                        next.run();
                    }
                };
        return new Outcome(kind, delay, reason, combined, replies, seek);
    }

    /**
     * Acknowledge, after publishing {@code message} to {@code topic}. Shorthand for {@code
     * Outcome.ack().withReply(topic, message)}.
     *
     * @param topic where to publish the reply
     * @param message the reply
     * @param <R> the reply's type
     * @return an ack carrying the reply
     */
    public static <R> Outcome reply(Topic<R> topic, R message) {
        return ACK.withReply(topic, message);
    }

    /**
     * This ack with a reply: shove publishes it (and every other reply of this outcome) before acknowledging the
     * handled message. If a reply cannot be published the handled message is retried instead, so a reply may be
     * published twice (at-least-once); where the backend has transactions the replies and the acknowledgement commit
     * together.
     *
     * @param topic where to publish the reply
     * @param message the reply
     * @param <R> the reply's type
     * @return a new ack carrying this outcome's replies and this one; this outcome is unchanged
     * @throws IllegalStateException when this outcome is not an ack
     */
    public <R> Outcome withReply(Topic<R> topic, R message) {
        return withReply(topic, message, Map.of());
    }

    /**
     * This ack with a reply carrying headers of your own; see {@link #withReply(Topic, Object)}.
     *
     * @param topic where to publish the reply
     * @param message the reply
     * @param headers headers of your own (not {@code shove-*})
     * @param <R> the reply's type
     * @return a new ack carrying this outcome's replies and this one; this outcome is unchanged
     * @throws IllegalStateException when this outcome is not an ack
     */
    public <R> Outcome withReply(Topic<R> topic, R message, Map<String, String> headers) {
        if (kind != Kind.ACK) {
            throw new IllegalStateException("only an ack can carry replies; this outcome is " + this);
        }
        List<Reply<?>> more = new ArrayList<>(replies);
        more.add(new Reply<>(topic, message, headers));
        return new Outcome(kind, delay, reason, continuation, List.copyOf(more), seek);
    }

    /**
     * This outcome, then a move of the subscription to {@code position} once the message settled: the messages the
     * consumer received but had not started are dropped, and consumption resumes at the position. Needs a
     * registration that allows seeking ({@link ConsumerOptions.Builder#seeking()}) on a log-like backend. A
     * position that no longer exists is refused: logged as an ERROR, and the subscription stays where it was.
     *
     * @param position where consumption resumes
     * @return a new outcome of the same kind that also seeks; this one is unchanged
     */
    public Outcome andSeek(Position position) {
        Objects.requireNonNull(position, "position");
        return new Outcome(kind, delay, reason, continuation, replies, position);
    }

    /** {@return the replies to publish before the ack, in the order added; empty for none} */
    public List<Reply<?>> replies() {
        return replies;
    }

    /** {@return where to move the subscription after this outcome settled; empty for nowhere} */
    public Optional<Position> seek() {
        return Optional.ofNullable(seek);
    }

    /** {@return which of the four decisions this is} */
    public Kind kind() {
        return kind;
    }

    /**
     * {@return the delay asked for by {@link #retry(Duration)} or {@link #defer(Duration)}; empty for the hold tier's
     * delay}
     */
    public Optional<Duration> delay() {
        return Optional.ofNullable(delay);
    }

    /** {@return the reason given to {@link #reject(String)}; empty when none was given} */
    public Optional<String> reason() {
        return Optional.ofNullable(reason);
    }

    /** {@return the continuation added with {@link #andThen(Runnable)}; several run as one, in order} */
    public Optional<Runnable> continuation() {
        return Optional.ofNullable(continuation);
    }

    /** {@return whether this is an {@link Kind#ACK ack}} */
    public boolean isAck() {
        return kind == Kind.ACK;
    }

    /** {@return whether this is a {@link Kind#RETRY retry}, with or without a delay} */
    public boolean isRetry() {
        return kind == Kind.RETRY;
    }

    /** {@return whether this is a {@link Kind#REJECT reject}, with or without a reason} */
    public boolean isReject() {
        return kind == Kind.REJECT;
    }

    /** {@return whether this is a {@link Kind#DEFER defer}, with or without a delay} */
    public boolean isDefer() {
        return kind == Kind.DEFER;
    }

    /** Equal when kind, delay, reason, replies and seek are equal; continuations are not compared. */
    @Override
    public boolean equals(Object o) {
        return o instanceof Outcome other
                && kind == other.kind
                && Objects.equals(delay, other.delay)
                && Objects.equals(reason, other.reason)
                && replies.equals(other.replies)
                && Objects.equals(seek, other.seek);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, delay, reason, replies, seek);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(kind.tag());
        if (delay != null) {
            s.append('(').append(delay).append(')');
        }
        if (reason != null) {
            s.append("(\"").append(reason).append("\")");
        }
        if (!replies.isEmpty()) {
            s.append(" with ").append(replies.size()).append(" reply(ies)");
        }
        if (seek != null) {
            s.append(" then seek ").append(seek);
        }
        return s.toString();
    }

    private static Duration requirePositive(Duration delay) {
        return Bounds.within("a retry or defer delay", delay, false, MAX_DELAY);
    }
}
