package dev.shove.test;

import dev.shove.Outcome;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Fluent assertions on a {@link Journey}, from {@link ShoveAssertions#assertThat(Journey)}: each method checks one
 * thing and returns this assertion, so that a journey reads as one sentence. A failure throws an {@link
 * AssertionError} that says what was expected and shows the whole journey.
 *
 * <pre>{@code
 * assertThat(journey).wasHandled(3).wasRetried(2).threw(LedgerDownException.class).wasDeadLettered("max-retries-exceeded");
 * }</pre>
 *
 * @since 0.1.0
 */
public final class JourneyAssert {
    private final Journey<?> journey;

    JourneyAssert(Journey<?> journey) {
        this.journey = Objects.requireNonNull(journey, "journey");
    }

    /**
     * Asserts that the engine acknowledged the message after the handler returned {@code ack}.
     *
     * @return this assertion, to chain the next check
     * @throws AssertionError when it is not so, showing the whole journey
     */
    public JourneyAssert wasAcknowledged() {
        return hasFate(Journey.Fate.ACKNOWLEDGED, "to be acknowledged");
    }

    /**
     * Asserts that the engine moved the message to the topic's dead-letter queue.
     *
     * @return this assertion, to chain the next check
     * @throws AssertionError when it is not so, showing the whole journey
     */
    public JourneyAssert wasDeadLettered() {
        return hasFate(Journey.Fate.DEAD_LETTERED, "to be dead-lettered");
    }

    /**
     * Asserts that the engine moved the message to the dead-letter queue with exactly this reason (e.g. {@code
     * rejected: amount must be positive} or {@code max-retries-exceeded}).
     *
     * @param reason the exact reason
     * @return this assertion, to chain the next check
     * @throws AssertionError when it is not so, showing the whole journey
     */
    public JourneyAssert wasDeadLettered(String reason) {
        Objects.requireNonNull(reason, "reason");
        wasDeadLettered();
        if (!journey.deadLetterReason().map(reason::equals).orElse(false)) {
            throw failure("to be dead-lettered with reason \"" + reason + "\", but the reason is "
                    + journey.deadLetterReason().map(r -> "\"" + r + "\"").orElse("unknown"));
        }
        return this;
    }

    /**
     * Asserts that the engine moved the message to the dead-letter queue with a reason that contains {@code part}.
     *
     * @param part a part of the reason
     * @return this assertion, to chain the next check
     * @throws AssertionError when it is not so, showing the whole journey
     */
    public JourneyAssert wasDeadLetteredWithReasonContaining(String part) {
        Objects.requireNonNull(part, "part");
        wasDeadLettered();
        if (!journey.deadLetterReason().map(r -> r.contains(part)).orElse(false)) {
            throw failure("to be dead-lettered with a reason containing \"" + part + "\", but the reason is "
                    + journey.deadLetterReason().map(r -> "\"" + r + "\"").orElse("unknown"));
        }
        return this;
    }

    /**
     * Asserts that the engine acknowledged the message without handling it successfully and without a copy: it is gone.
     *
     * @return this assertion, to chain the next check
     * @throws AssertionError when it is not so, showing the whole journey
     */
    public JourneyAssert wasDiscarded() {
        return hasFate(Journey.Fate.DISCARDED, "to be discarded");
    }

    /**
     * Asserts that the journey has not ended: the message waits, runs, or waits out a retry delay.
     *
     * @return this assertion, to chain the next check
     * @throws AssertionError when it is not so, showing the whole journey
     */
    public JourneyAssert isPending() {
        return hasFate(Journey.Fate.PENDING, "to be still on its way");
    }

    /**
     * Asserts that the handler was called exactly {@code times} times for the message.
     *
     * @param times the expected count
     * @return this assertion, to chain the next check
     * @throws AssertionError when it is not so, showing the whole journey
     */
    public JourneyAssert wasHandled(int times) {
        if (journey.calls().size() != times) {
            throw failure("to be handled " + plural(times, "time") + ", but it was handled "
                    + plural(journey.calls().size(), "time"));
        }
        return this;
    }

    /**
     * Asserts that the message spent exactly {@code times} retries before its last handler call (its highest retry
     * count): a message that failed twice and succeeded on its third call was retried twice.
     *
     * @param times the expected count
     * @return this assertion, to chain the next check
     * @throws AssertionError when it is not so, showing the whole journey
     */
    public JourneyAssert wasRetried(int times) {
        if (journey.retries() != times) {
            throw failure("to be retried " + plural(times, "time") + ", but it was retried "
                    + plural(journey.retries(), "time"));
        }
        return this;
    }

    /**
     * Asserts that some handler call threw an exception of {@code type} (or a subclass).
     *
     * @param type the exception class
     * @return this assertion, to chain the next check
     * @throws AssertionError when it is not so, showing the whole journey
     */
    public JourneyAssert threw(Class<? extends Throwable> type) {
        Objects.requireNonNull(type, "type");
        boolean threw = journey.calls().stream()
                .map(HandlerCall::exception)
                .flatMap(Optional::stream)
                .anyMatch(type::isInstance);
        if (!threw) {
            throw failure("to have a handler call that threw " + type.getName() + ", but none did");
        }
        return this;
    }

    /**
     * Asserts that the handler calls returned exactly these outcomes, in order ({@link Outcome} compares kind, delay,
     * reason and replies); a call that threw matches none.
     *
     * @param outcomes the expected outcomes, one per handler call, in order
     * @return this assertion, to chain the next check
     * @throws AssertionError when it is not so, showing the whole journey
     */
    public JourneyAssert hasOutcomes(Outcome... outcomes) {
        List<Outcome> expected = Arrays.asList(outcomes);
        List<Optional<Outcome>> actual =
                journey.calls().stream().map(HandlerCall::outcome).toList();
        boolean same = actual.size() == expected.size();
        for (int i = 0; same && i < expected.size(); i++) {
            same = actual.get(i).map(expected.get(i)::equals).orElse(false);
        }
        if (!same) {
            throw failure("to have handler calls returning " + expected + ", but they "
                    + journey.calls().stream().map(HandlerCall::result).toList());
        }
        return this;
    }

    /**
     * Asserts that the group's dead-letter consumer received the dead letter and acknowledged it after {@code
     * handleDead}.
     *
     * @return this assertion, to chain the next check
     * @throws AssertionError when it is not so, showing the whole journey
     */
    public JourneyAssert deadLetterWasHandled() {
        wasDeadLettered();
        if (!journey.deadLetterHandled()) {
            throw failure("to have its dead letter handled by the group's dead-letter consumer (handleDead), but it"
                    + " was not (registered with noDeadLetterConsumer()? await idle first)");
        }
        return this;
    }

    /** {@return the journey itself, for checks of your own} */
    public Journey<?> journey() {
        return journey;
    }

    private JourneyAssert hasFate(Journey.Fate fate, String expectation) {
        if (journey.fate() != fate) {
            throw failure(expectation + ", but its fate is " + journey.fate()
                    + (journey.fate() == Journey.Fate.PENDING ? " (did the test wait for the topic to go idle?)" : ""));
        }
        return this;
    }

    private AssertionError failure(String expectation) {
        return new AssertionError("Expected message " + journey.messageId() + " of topic '"
                + journey.topic().name() + "' " + expectation + ".\nIts journey: " + journey.describe());
    }

    private static String plural(int n, String word) {
        return n + " " + word + (n == 1 ? "" : "s");
    }
}
