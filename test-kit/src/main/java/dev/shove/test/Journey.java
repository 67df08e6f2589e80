package dev.shove.test;

import dev.shove.DeadLetter;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.spi.Settlement;
import dev.shove.spi.SubscriptionRequest.Source;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What happened to one message in one consumer group made through {@link ShoveKit#consumerGroup()}, from the
 * recorded facts: each delivery, each handler call with its retry count and outcome or exception, and each settlement
 * the engine asked the broker for (a retry copy to a hold tier, a dead letter, an acknowledgement). A snapshot, taken
 * when {@link ShoveKit#journey} was called: wait for the topic to go idle first ({@link ShoveKit#awaitIdle}) so that
 * it is the whole journey. Immutable; thread-safe.
 *
 * <p>Assert on it with {@link ShoveAssertions#assertThat(Journey)}; its {@link #describe() description} is in every
 * failure message.
 *
 * @param <T> the topic's message type
 * @since 0.1.0
 */
public final class Journey<T> {

    /** Where a message's journey ended, as the engine settled it. */
    public enum Fate {
        /** The engine acknowledged it after the handler returned {@link Outcome#ack()} (with or without replies). */
        ACKNOWLEDGED,
        /** The engine moved it to the topic's dead-letter queue. */
        DEAD_LETTERED,
        /**
         * The engine acknowledged it without it being handled successfully and without a copy: a rejection or a spent
         * retry budget on a topic without a dead-letter queue, a broadcast topic's failure, or a message that never
         * reached the handler (unreadable with the {@code SKIP} policy, oversize without a dead-letter queue). The
         * engine logs each at WARN and counts it in {@code shove.messages.discarded}.
         */
        DISCARDED,
        /**
         * Not finished yet: never delivered, being handled, waiting out a retry delay, given back to the broker, or
         * settled but not yet confirmed by it.
         */
        PENDING
    }

    private final Topic<T> topic;
    private final String group;
    private final String messageId;
    private final @Nullable T message;
    private final List<HandlerCall> calls;
    private final List<String> steps;
    private final Fate fate;
    private final @Nullable String deadLetterReason;
    private final @Nullable DeadLetter<T> deadLetter;
    private final boolean deadLetterHandled;

    private Journey(Builder<T> b) {
        this.topic = b.topic;
        this.group = b.group;
        this.messageId = b.messageId;
        this.message = b.message;
        this.calls = List.copyOf(b.calls);
        this.steps = List.copyOf(b.steps);
        this.fate = b.fate;
        this.deadLetterReason = b.deadLetterReason;
        this.deadLetter = b.deadLetter;
        this.deadLetterHandled = b.deadLetterHandled;
    }

    /** {@return the topic} */
    public Topic<T> topic() {
        return topic;
    }

    /** {@return the consumer group whose journey this is (its {@code groupName}, by default the topic's name)} */
    public String group() {
        return group;
    }

    /** {@return the message's id ({@value ShoveHeaders#MESSAGE_ID}), the same on every hop} */
    public String messageId() {
        return messageId;
    }

    /** {@return the message, decoded with the topic's codec; empty when its bytes do not decode} */
    public Optional<T> message() {
        return Optional.ofNullable(message);
    }

    /** {@return the recorded handler calls, in order} */
    public List<HandlerCall> calls() {
        return calls;
    }

    /**
     * {@return how many retries the message spent before its last handler call: the highest retry count of its calls}
     */
    public int retries() {
        return calls.stream().mapToInt(HandlerCall::retryCount).max().orElse(0);
    }

    /** {@return where the journey ended, or {@link Fate#PENDING} when it has not} */
    public Fate fate() {
        return fate;
    }

    /**
     * {@return why the message was dead-lettered ({@code rejected: ...}, {@code max-retries-exceeded}, ...)} As the
     * dead letter in the queue says when it is still there, else as the engine's dead-letter copy said. Empty unless
     * dead-lettered.
     */
    public Optional<String> deadLetterReason() {
        return Optional.ofNullable(deadLetterReason);
    }

    /**
     * {@return the dead letter as the dead-letter tools read it ({@code broker.deadLetters(topic, group).browse(...)}),
     * with its reason, death count and exception} Empty unless dead-lettered, and when a group registered with {@code
     * handleAndRemoveDeadLetters()} has removed it already, or the backend cannot read dead letters apart from
     * consuming them.
     */
    public Optional<DeadLetter<T>> deadLetter() {
        return Optional.ofNullable(deadLetter);
    }

    /**
     * {@return whether the group's dead-letter consumer ran {@code handleDead} on the dead letter} By default the dead
     * letter stays in the queue afterwards ({@link #deadLetter()} shows it); with {@code handleAndRemoveDeadLetters()}
     * it was removed.
     */
    public boolean deadLetterHandled() {
        return deadLetterHandled;
    }

    /** {@return the journey, one line per step, each with the milliseconds since the kit's broker connected} */
    public List<String> steps() {
        return steps;
    }

    /** {@return the whole journey as text: the message, every step and the fate} */
    public String describe() {
        StringBuilder s = new StringBuilder("message ")
                .append(messageId)
                .append(" of topic '")
                .append(topic.name())
                .append("' in group '")
                .append(group)
                .append("' (")
                .append(message != null ? String.valueOf(message) : "its bytes do not decode")
                .append("):\n");
        if (steps.isEmpty()) {
            s.append("  (never delivered to the group)\n");
        }
        for (String step : steps) {
            s.append("  ").append(step).append('\n');
        }
        s.append("  fate: ").append(fate);
        if (deadLetterReason != null) {
            s.append(" (\"").append(deadLetterReason).append("\")");
        }
        return s.toString();
    }

    @Override
    public String toString() {
        return describe();
    }

    /** Where the dead letter was found, and what the search said, for the journey's last step. */
    record DeadLetterSearch<T>(@Nullable DeadLetter<T> letter, String note) {}

    /** A function of the kit that looks for a message's dead letter with the dead-letter tools. */
    @FunctionalInterface
    interface DeadLetterFinder<T> {
        DeadLetterSearch<T> find(String messageId);
    }

    /**
     * The journey of {@code messageId} in {@code group} from the ledger's events of its topic (already filtered to
     * the message and group, in order).
     */
    static <T> Journey<T> of(
            Topic<T> topic,
            String group,
            String messageId,
            @Nullable T message,
            List<Ledger.Event> events,
            DeadLetterFinder<T> finder) {
        Builder<T> b = new Builder<>(topic, group, messageId, message);
        HandlerCall last = null;
        for (Ledger.Event event : events) {
            switch (event) {
                case Ledger.Delivered d
                when d.route().source() == Source.MAIN -> {
                    last = null;
                    b.fate = Fate.PENDING;
                    b.step(
                            d.atMs(),
                            "delivered from '" + d.route().topic() + "' with retryCount " + d.retryCount()
                                    + " (delivery " + d.deliveryId() + (d.redelivered() ? ", redelivered" : "") + ")");
                }
                case Ledger.Delivered d ->
                    b.step(
                            d.atMs(),
                            "the dead letter is delivered to the group's dead-letter consumer (handleDead)"
                                    + (d.redelivered() ? ", redelivered" : ""));
                case Ledger.Called c -> {
                    last = c.call();
                    b.calls.add(c.call());
                    b.step(
                            c.atMs(),
                            (c.call().batch() ? "batch handler" : "handler") + " (retryCount "
                                    + c.call().retryCount() + ") " + c.call().result());
                }
                case Ledger.Waited w -> {
                    b.fate = Fate.PENDING;
                    b.step(
                            w.atMs(),
                            "waits in place to run again with retryCount " + w.retryCount()
                                    + " (a sequenced topic: later messages of its key wait too)");
                }
                case Ledger.Settling s when s.route.source() == Source.MAIN -> b.settled(s, last);
                case Ledger.Settling s -> {
                    boolean acked = s.done() && s.failure() == null && s.settlement.action() == Settlement.Action.ACK;
                    b.deadLetterHandled |= acked;
                    b.step(
                            s.atMs(),
                            acked
                                    ? "handleDead has run on the dead letter"
                                    : "the dead letter is given back to the dead-letter queue" + confirmation(s));
                }
            }
        }
        if (b.fate == Fate.DEAD_LETTERED) {
            DeadLetterSearch<T> search = finder.find(messageId);
            b.deadLetter = search.letter();
            if (search.letter() != null) {
                b.deadLetterReason = search.letter().metadata().reason();
            }
            b.steps.add(search.note());
        }
        return new Journey<>(b);
    }

    private static String confirmation(Ledger.Settling s) {
        if (!s.done()) {
            return " (the broker has not confirmed it yet)";
        }
        Throwable failure = s.failure();
        return failure == null ? "" : "; the broker refused it (" + failure + "): the message stays for redelivery";
    }

    private static final class Builder<T> {
        final Topic<T> topic;
        final String group;
        final String messageId;
        final @Nullable T message;
        final List<HandlerCall> calls = new ArrayList<>();
        final List<String> steps = new ArrayList<>();
        Fate fate = Fate.PENDING;

        @Nullable
        String deadLetterReason;

        @Nullable
        DeadLetter<T> deadLetter;

        boolean deadLetterHandled;

        Builder(Topic<T> topic, String group, String messageId, @Nullable T message) {
            this.topic = Objects.requireNonNull(topic, "topic");
            this.group = Objects.requireNonNull(group, "group");
            this.messageId = Objects.requireNonNull(messageId, "messageId");
            this.message = message;
        }

        void step(long atMs, String text) {
            steps.add("[%6d ms] %s".formatted(atMs, text));
        }

        /** A settlement of a delivery from the main queue: the engine's decision, as the broker carried it out. */
        void settled(Ledger.Settling s, @Nullable HandlerCall last) {
            Settlement settlement = s.settlement;
            if (!s.done() || s.failure() != null) {
                fate = Fate.PENDING;
                step(s.atMs(), what(s, last) + confirmation(s));
                return;
            }
            String text = what(s, last);
            if (settlement.action() == Settlement.Action.RETURN) {
                fate = Fate.PENDING;
            } else if (deadLetterCopy(settlement) != null) {
                fate = Fate.DEAD_LETTERED;
                deadLetterReason = deadLetterCopy(settlement).headers().get(ShoveHeaders.DEATH_REASON);
                deadLetter = null;
                deadLetterHandled = false;
            } else if (s.holdRetryCount >= 0) {
                fate = Fate.PENDING;
            } else {
                fate = acknowledged(settlement, last) ? Fate.ACKNOWLEDGED : Fate.DISCARDED;
            }
            step(s.atMs(), text);
        }

        /**
         * An acknowledgement without a dead-letter or hold copy is the end of the road: handled, when the handler
         * returned ack on this delivery (or replied, which only an ack does); discarded otherwise.
         */
        private static boolean acknowledged(Settlement settlement, @Nullable HandlerCall last) {
            boolean replied = settlement.copies().stream().anyMatch(c -> c instanceof Settlement.Copy.ToTopic);
            return replied
                    || (last != null
                            && last.finished()
                            && last.outcome().map(Outcome::isAck).orElse(false));
        }

        private static String what(Ledger.Settling s, @Nullable HandlerCall last) {
            Settlement settlement = s.settlement;
            if (settlement.action() == Settlement.Action.RETURN) {
                return "given back to the broker for redelivery";
            }
            Settlement.Copy.ToDeadLetter letter = deadLetterCopy(settlement);
            if (letter != null) {
                return "dead-lettered to '" + letter.queue() + "': "
                        + letter.headers().getOrDefault(ShoveHeaders.DEATH_REASON, "(no reason)");
            }
            for (Settlement.Copy copy : settlement.copies()) {
                if (copy instanceof Settlement.Copy.ToHold hold) {
                    return (s.holdRetryCount > s.retryCount ? "retried" : "held again") + ": a copy with retryCount "
                            + s.holdRetryCount + " waits " + hold.delay().toMillis() + " ms (hold tier " + hold.tier()
                            + ")";
                }
            }
            long replies = settlement.copies().stream()
                    .filter(c -> c instanceof Settlement.Copy.ToTopic)
                    .count();
            if (acknowledged(settlement, last)) {
                return replies > 0 ? "acknowledged, with " + replies + " reply(ies) published" : "acknowledged";
            }
            return "acknowledged without a copy: discarded ("
                    + (last == null
                            ? "it never reached the handler"
                            : "the handler " + last.result() + (last.finished() ? "" : ", taken over at its deadline"))
                    + ")";
        }

        private static Settlement.Copy.@Nullable ToDeadLetter deadLetterCopy(Settlement settlement) {
            for (Settlement.Copy copy : settlement.copies()) {
                if (copy instanceof Settlement.Copy.ToDeadLetter letter) {
                    return letter;
                }
            }
            return null;
        }
    }
}
