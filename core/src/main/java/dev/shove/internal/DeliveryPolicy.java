package dev.shove.internal;

import dev.shove.DecodeFailurePolicy;
import dev.shove.HoldTier;
import dev.shove.Outcome;
import dev.shove.Topic;
import dev.shove.spi.Capabilities;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The one place that decides what happens to a message: a pure function from (outcome, retry count, limits, the
 * topic's tiers and DLQ, the backend's capabilities) to a {@link Decision}. Every backend obeys it; its table is the
 * spec and {@code DeliveryPolicyTest} checks it cell by cell.
 *
 * <pre>
 * outcome        | condition                  | decision
 * ---------------+----------------------------+----------------------------------------------------------
 * ack            |                            | Ack
 * reject(r)      | DLQ                        | DeadLetter("rejected[: r]", rc)
 * reject(r)      | no DLQ                     | Discard("rejected[: r]")
 * retry[(d)]     | rc >= maxRetries, DLQ      | DeadLetter("max-retries-exceeded", rc)       (no hold hop)
 * retry[(d)]     | rc >= maxRetries, no DLQ   | Discard("max_retries_exceeded")
 * retry          | rc < maxRetries            | Hold(tier min(rc, n-1), its delay, rc + 1)
 * retry(d)       | rc < maxRetries            | Hold(shortest tier >= d, d or that tier's delay, rc + 1)
 * defer          |                            | Hold(tier 0, its delay, rc)
 * defer(d)       |                            | Hold(shortest tier >= d, d or that tier's delay, rc)
 * retry / defer  | sequenced topic            | WaitInPlace(asked delay, else the tier's; same count): in process
 * not ack        | broadcast topic            | Discard("broadcast: ...") (best effort: no retry, no DLQ)
 * </pre>
 *
 * A requested delay {@code d} is honoured exactly where the backend has {@linkplain Capabilities#exactDelays() exact
 * delays} up to its maximum, and otherwise rounded <em>up</em> to the shortest tier at least as long; beyond the
 * longest tier the copy waits in the longest tier and is held again on arrival until it is due (see {@link
 * #notYetDue}), so a delay is never cut short. Before the handler runs: an oversize or undecodable payload, a
 * message arriving with {@code rc > maxRetries}, or a message of a poisoned key goes to the DLQ (or is discarded)
 * without spending budget; a message that cannot be read follows the registration's {@link DecodeFailurePolicy}
 * ({@link #decodeFailure}).
 */
final class DeliveryPolicy {

    /** What to do with a message. */
    public sealed interface Decision {}

    /** Acknowledge. */
    public record Ack() implements Decision {}

    /** Publish a copy to hold tier {@code tier}, due after {@code delay}, carrying {@code retryCount}; then ack. */
    public record Hold(int tier, Duration delay, int retryCount) implements Decision {}

    /**
     * Keep the delivery unsettled and run the handler on it again after {@code delay} with {@code retryCount}: the
     * retry of a sequenced topic, whose key waits with it.
     */
    public record WaitInPlace(Duration delay, int retryCount) implements Decision {}

    /**
     * Publish a copy to the DLQ with this reason and retry count; then ack. {@code metricReason} is the coarse tag
     * for metrics ({@code rejected}, {@code max_retries_exceeded}, {@code decode}, {@code oversize}, {@code
     * poisoned}).
     */
    public record DeadLetter(String reason, String metricReason, int retryCount) implements Decision {}

    /** Acknowledge without a copy: the message is gone. Logged at WARN and counted with {@code metricReason}. */
    public record Discard(String reason, String metricReason) implements Decision {}

    /**
     * Acknowledge an unreadable message because the decode-failure policy says SKIP: counted as discarded, but not a
     * failure of its key (a {@code FAIL_ALL} key is not poisoned by it).
     */
    public record Skip(String reason) implements Decision {}

    public static final Decision ACK = new Ack();

    private final List<HoldTier> tiers;
    private final boolean hasDlq;
    private final boolean sequenced;
    private final boolean broadcast;
    private final int maxRetries;
    private final Duration maxExactDelay;
    private final DecodeFailurePolicy decodeFailurePolicy;

    DeliveryPolicy(Topic<?> topic, int maxRetries, Capabilities capabilities) {
        this(topic, maxRetries, capabilities, DecodeFailurePolicy.REJECT);
    }

    DeliveryPolicy(Topic<?> topic, int maxRetries, Capabilities capabilities, DecodeFailurePolicy decodeFailurePolicy) {
        this.tiers = topic.holdTiers();
        this.hasDlq = topic.dlq().isPresent();
        this.sequenced = topic.isSequenced();
        this.broadcast = topic.isBroadcast();
        this.maxRetries = maxRetries;
        this.maxExactDelay = capabilities.exactDelays() ? capabilities.maxExactDelay() : Duration.ZERO;
        this.decodeFailurePolicy = decodeFailurePolicy;
        if (tiers.isEmpty() && !broadcast) {
            throw new IllegalArgumentException(topic + " has no hold tier");
        }
    }

    public int maxRetries() {
        return maxRetries;
    }

    /** The decision for a handler's outcome on a message that has spent {@code retryCount} retries. */
    public Decision decide(Outcome outcome, int retryCount) {
        Objects.requireNonNull(outcome, "outcome");
        if (broadcast && !outcome.isAck()) {
            return new Discard(
                    "broadcast topics neither retry nor dead-letter: "
                            + outcome.kind().tag(),
                    "broadcast");
        }
        return switch (outcome.kind()) {
            case ACK -> ACK;
            case REJECT -> {
                String reason = outcome.reason().map(r -> "rejected: " + r).orElse("rejected");
                yield hasDlq ? new DeadLetter(reason, "rejected", retryCount) : new Discard(reason, "rejected");
            }
            case RETRY -> {
                if (retryCount >= maxRetries) {
                    yield exhausted(retryCount);
                }
                @Nullable Duration asked = outcome.delay().orElse(null);
                int tier = asked == null ? Math.min(retryCount, tiers.size() - 1) : tierFor(asked);
                yield later(tier, asked, retryCount + 1);
            }
            case DEFER -> {
                @Nullable Duration asked = outcome.delay().orElse(null);
                yield later(asked == null ? 0 : tierFor(asked), asked, retryCount);
            }
        };
    }

    /** A message that arrives having already spent more than {@code maxRetries} (the limit was lowered). */
    public Decision overBudget(int retryCount) {
        return exhausted(retryCount);
    }

    /** A payload larger than the limit, dead-lettered unread. */
    public Decision oversize(int size, int limit, int retryCount) {
        String reason = "oversize: %d bytes exceeds maxMessageSize %d".formatted(size, limit);
        return hasDlq ? new DeadLetter(reason, "oversize", retryCount) : new Discard(reason, "oversize");
    }

    /** A payload the codec cannot read, dead-lettered without calling the handler. */
    public Decision undecodable(String detail, int retryCount) {
        String reason = "decode-failed: " + detail;
        if (broadcast) {
            return new Discard(reason, "decode");
        }
        return hasDlq ? new DeadLetter(reason, "decode", retryCount) : new Discard(reason, "decode");
    }

    /**
     * A message that cannot be read (payload or required headers), settled by the registration's decode-failure
     * policy: REJECT dead-letters it (see {@link #undecodable}), RETRY treats it as a retry, SKIP discards it.
     */
    public Decision decodeFailure(String detail, int retryCount) {
        return switch (decodeFailurePolicy) {
            case REJECT -> undecodable(detail, retryCount);
            case RETRY -> decide(Outcome.retry(), retryCount);
            case SKIP -> new Skip("decode-failed (skipped by policy): " + detail);
        };
    }

    /** A message of a key poisoned by an earlier failure on a {@code FAIL_ALL} sequenced topic. */
    public Decision poisoned(int retryCount) {
        String reason = "sequence-poisoned";
        return hasDlq ? new DeadLetter(reason, "poisoned", retryCount) : new Discard(reason, "poisoned");
    }

    /**
     * A copy that arrived before its {@code shove-not-before} time (its delay exceeded the longest tier, or the
     * broker let it out early): held again for the rest, with its retry count unchanged, without calling the handler.
     */
    public Decision notYetDue(Duration remaining, int retryCount) {
        return later(tierFor(remaining), remaining, retryCount);
    }

    /** Whether {@code decision} ends the key's sequence on a {@code FAIL_ALL} topic. */
    public static boolean isTerminalFailure(Decision decision) {
        return decision instanceof DeadLetter || decision instanceof Discard;
    }

    private Decision exhausted(int retryCount) {
        return hasDlq
                ? new DeadLetter("max-retries-exceeded", "max_retries_exceeded", retryCount)
                : new Discard("max-retries-exceeded", "max_retries_exceeded");
    }

    private Decision later(int tier, @Nullable Duration asked, int retryCount) {
        if (sequenced) {
            // The wait happens in this process, so any delay is exact.
            return new WaitInPlace(asked != null ? asked : tiers.get(tier).delay(), retryCount);
        }
        Duration delay;
        if (asked == null) {
            delay = tiers.get(tier).delay();
        } else if (asked.compareTo(maxExactDelay) <= 0) {
            delay = asked;
        } else {
            Duration tierDelay = tiers.get(tier).delay();
            delay = tierDelay.compareTo(asked) >= 0 ? tierDelay : asked;
        }
        return new Hold(tier, delay, retryCount);
    }

    /** The shortest tier whose delay is at least {@code delay}, or the longest tier when none is. */
    private int tierFor(Duration delay) {
        for (int i = 0; i < tiers.size(); i++) {
            if (tiers.get(i).delay().compareTo(delay) >= 0) {
                return i;
            }
        }
        return tiers.size() - 1;
    }
}
