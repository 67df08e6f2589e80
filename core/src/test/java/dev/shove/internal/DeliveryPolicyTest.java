package dev.shove.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.Topic;
import dev.shove.internal.DeliveryPolicy.Ack;
import dev.shove.internal.DeliveryPolicy.DeadLetter;
import dev.shove.internal.DeliveryPolicy.Decision;
import dev.shove.internal.DeliveryPolicy.Discard;
import dev.shove.internal.DeliveryPolicy.Hold;
import dev.shove.internal.DeliveryPolicy.WaitInPlace;
import dev.shove.spi.Capabilities;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The decision table of {@link DeliveryPolicy}, cell by cell. The exhaustive part crosses every outcome with every
 * retry-count boundary, DLQ or not, sequenced or not, and both kinds of backend; the expected delay and tier for each
 * requested delay are written out by hand in {@link #timing}, and {@link #expected} restates the class comment's
 * table. The nested classes then pin the individual rules with readable, named examples.
 */
@DisplayName("DeliveryPolicy")
class DeliveryPolicyTest {
    private static final Duration TIER_0 = Duration.ofSeconds(5);
    private static final Duration TIER_1 = Duration.ofSeconds(30);
    private static final Duration TIER_2 = Duration.ofSeconds(120);

    /** The exact-delay backend of the matrix honours delays up to this; it lies between tier 1 and tier 2. */
    private static final Duration MAX_EXACT = Duration.ofSeconds(60);

    private static final int MAX_RETRIES = 3;

    private static final Capabilities EXACT_UP_TO_60S =
            Capabilities.builder().exactDelays(MAX_EXACT).build();
    private static final Capabilities TIERS_ONLY = Capabilities.builder().build();

    record Msg(String key) {}

    static Topic<Msg> topic(boolean dlq, boolean sequenced) {
        Topic.Builder<Msg> b = Topic.builder("orders", Msg.class)
                .holdQueue(TIER_0)
                .holdQueue(TIER_1)
                .holdQueue(TIER_2);
        if (dlq) {
            b.dlq();
        }
        if (sequenced) {
            b.sequenced(SequenceFailure.SKIP, Msg::key);
            if (!dlq) {
                b.allowMessageLoss();
            }
        }
        return b.build();
    }

    static DeliveryPolicy policy(boolean dlq, boolean sequenced, Capabilities capabilities) {
        return new DeliveryPolicy(topic(dlq, sequenced), MAX_RETRIES, capabilities);
    }

    static DeliveryPolicy unsequencedWithDlq(int maxRetries, Capabilities capabilities) {
        return new DeliveryPolicy(topic(true, false), maxRetries, capabilities);
    }

    // ------------------------------------------------------------------------------------------ the whole matrix

    enum Backend {
        EXACT_DELAYS_UP_TO_60S(EXACT_UP_TO_60S),
        TIERS_ONLY_BACKEND(TIERS_ONLY);

        final Capabilities capabilities;

        Backend(Capabilities capabilities) {
            this.capabilities = capabilities;
        }

        boolean exact() {
            return this == EXACT_DELAYS_UP_TO_60S;
        }
    }

    /** The retry count of the message relative to {@code maxRetries = 3}. */
    enum Budget {
        RC_BELOW_MAX(1),
        RC_AT_MAX(3),
        RC_ABOVE_MAX(4);

        final int retryCount;

        Budget(int retryCount) {
            this.retryCount = retryCount;
        }
    }

    /** A requested delay, named by where it falls against tiers [5s, 30s, 120s] and the 60 s exact maximum. */
    enum Asked {
        NO_DELAY(null),
        SHORTER_THAN_TIER_0(Duration.ofSeconds(2)),
        BETWEEN_TIERS(Duration.ofSeconds(10)),
        EQUAL_TO_A_TIER(Duration.ofSeconds(30)),
        EQUAL_TO_MAX_EXACT_DELAY(Duration.ofSeconds(60)),
        LONGER_THAN_MAX_EXACT_DELAY(Duration.ofSeconds(90)),
        LONGER_THAN_ALL_TIERS(Duration.ofSeconds(200));

        final @Nullable Duration delay;

        Asked(@Nullable Duration delay) {
            this.delay = delay;
        }
    }

    record Timing(int tier, Duration delay) {}

    /**
     * Where a copy that asked for a delay waits, written out by hand: exact where the backend can (up to 60 s),
     * otherwise rounded up to the shortest tier at least as long, and beyond the longest tier the full delay in the
     * longest tier (re-held on arrival until due).
     */
    static Timing timing(Asked asked, Backend backend) {
        boolean exact = backend.exact();
        return switch (asked) {
            case SHORTER_THAN_TIER_0 -> exact ? new Timing(0, Duration.ofSeconds(2)) : new Timing(0, TIER_0);
            case BETWEEN_TIERS -> exact ? new Timing(1, Duration.ofSeconds(10)) : new Timing(1, TIER_1);
            case EQUAL_TO_A_TIER -> new Timing(1, TIER_1);
            case EQUAL_TO_MAX_EXACT_DELAY -> exact ? new Timing(2, Duration.ofSeconds(60)) : new Timing(2, TIER_2);
            case LONGER_THAN_MAX_EXACT_DELAY -> new Timing(2, TIER_2);
            case LONGER_THAN_ALL_TIERS -> new Timing(2, Duration.ofSeconds(200));
            case NO_DELAY -> throw new IllegalArgumentException("no delay asked: the tier follows from the outcome");
        };
    }

    record Cell(
            String outcomeName,
            Outcome outcome,
            Budget budget,
            boolean dlq,
            boolean sequenced,
            Backend backend,
            Decision expected) {
        @Override
        public String toString() {
            return "%s, %s, %s, %s, %s -> %s"
                    .formatted(
                            outcomeName,
                            budget,
                            dlq ? "DLQ" : "no DLQ",
                            sequenced ? "sequenced" : "unsequenced",
                            backend,
                            expected);
        }
    }

    /** The class comment's table, restated. */
    static Decision expected(Outcome outcome, Asked asked, Budget budget, boolean dlq, boolean sequenced, Backend b) {
        int rc = budget.retryCount;
        return switch (outcome.kind()) {
            case ACK -> new Ack();
            case REJECT -> {
                String reason = outcome.reason().map(r -> "rejected: " + r).orElse("rejected");
                yield dlq ? new DeadLetter(reason, "rejected", rc) : new Discard(reason, "rejected");
            }
            case RETRY -> {
                if (rc >= MAX_RETRIES) {
                    yield dlq
                            ? new DeadLetter("max-retries-exceeded", "max_retries_exceeded", rc)
                            : new Discard("max-retries-exceeded", "max_retries_exceeded");
                }
                // plain retry at rc 1 uses tier min(1, 2) = 1
                Timing t = asked == Asked.NO_DELAY ? new Timing(1, TIER_1) : timing(asked, b);
                // a sequenced topic waits in process: the asked delay exactly, whatever the backend
                yield sequenced
                        ? new WaitInPlace(asked.delay != null ? asked.delay : t.delay(), rc + 1)
                        : new Hold(t.tier(), t.delay(), rc + 1);
            }
            case DEFER -> {
                Timing t = asked == Asked.NO_DELAY ? new Timing(0, TIER_0) : timing(asked, b);
                yield sequenced
                        ? new WaitInPlace(asked.delay != null ? asked.delay : t.delay(), rc)
                        : new Hold(t.tier(), t.delay(), rc);
            }
        };
    }

    static Stream<Cell> everyCell() {
        record Named(String name, Outcome outcome, Asked asked) {}
        List<Named> outcomes = new ArrayList<>();
        outcomes.add(new Named("ack", Outcome.ack(), Asked.NO_DELAY));
        outcomes.add(new Named("reject", Outcome.reject(), Asked.NO_DELAY));
        outcomes.add(new Named("reject(\"bad iban\")", Outcome.reject("bad iban"), Asked.NO_DELAY));
        for (Asked asked : Asked.values()) {
            if (asked.delay == null) {
                outcomes.add(new Named("retry", Outcome.retry(), asked));
                outcomes.add(new Named("defer", Outcome.defer(), asked));
            } else {
                String d = asked.delay.toMillis() + "ms" + " " + asked;
                outcomes.add(new Named("retry(" + d + ")", Outcome.retry(asked.delay), asked));
                outcomes.add(new Named("defer(" + d + ")", Outcome.defer(asked.delay), asked));
            }
        }
        List<Cell> cells = new ArrayList<>();
        for (Named o : outcomes) {
            for (Budget budget : Budget.values()) {
                for (boolean dlq : new boolean[] {true, false}) {
                    for (boolean sequenced : new boolean[] {false, true}) {
                        for (Backend backend : Backend.values()) {
                            cells.add(new Cell(
                                    o.name(),
                                    o.outcome(),
                                    budget,
                                    dlq,
                                    sequenced,
                                    backend,
                                    expected(o.outcome(), o.asked(), budget, dlq, sequenced, backend)));
                        }
                    }
                }
            }
        }
        return cells.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyCell")
    @DisplayName("every cell: outcome x retry count x DLQ x ordering x backend x requested delay")
    void everyCellOfTheTable(Cell cell) {
        DeliveryPolicy policy = policy(cell.dlq(), cell.sequenced(), cell.backend().capabilities);

        assertThat(policy.decide(cell.outcome(), cell.budget().retryCount)).isEqualTo(cell.expected());
    }

    @Test
    @DisplayName("the matrix covers 17 outcomes x 24 situations")
    void matrixSize() {
        assertThat(everyCell()).hasSize(17 * 3 * 2 * 2 * 2);
    }

    // ------------------------------------------------------------------------------------------ retry arithmetic

    @Nested
    @DisplayName("retry")
    class Retry {
        @ParameterizedTest(name = "retry at rc={0} waits in tier {1} ({2}s)")
        @CsvSource({"0, 0, 5", "1, 1, 30", "2, 2, 120", "5, 2, 120", "9, 2, 120"})
        @DisplayName("selects tier min(rc, n-1) of [5s, 30s, 120s]")
        void tierSelection(int rc, int tier, long seconds) {
            DeliveryPolicy policy = unsequencedWithDlq(10, TIERS_ONLY);

            assertThat(policy.decide(Outcome.retry(), rc))
                    .isEqualTo(new Hold(tier, Duration.ofSeconds(seconds), rc + 1));
        }

        @ParameterizedTest(name = "{0}")
        @EnumSource(Backend.class)
        @DisplayName("a plain retry waits the tier's delay on every backend, exact delays or not")
        void plainRetryUsesTierDelay(Backend backend) {
            DeliveryPolicy policy = unsequencedWithDlq(10, backend.capabilities);

            assertThat(policy.decide(Outcome.retry(), 2)).isEqualTo(new Hold(2, TIER_2, 3));
        }

        @Test
        @DisplayName("a retry at retryCount == maxRetries goes straight to the DLQ with retryCount = maxRetries")
        void retryAtMaxDeadLetters() {
            DeliveryPolicy policy = unsequencedWithDlq(3, TIERS_ONLY);

            assertThat(policy.decide(Outcome.retry(), 2)).isInstanceOf(Hold.class);
            assertThat(policy.decide(Outcome.retry(), 3))
                    .isEqualTo(new DeadLetter("max-retries-exceeded", "max_retries_exceeded", 3));
            assertThat(policy.decide(Outcome.retry(Duration.ofSeconds(1)), 3))
                    .isEqualTo(new DeadLetter("max-retries-exceeded", "max_retries_exceeded", 3));
        }

        @ParameterizedTest(name = "maxRetries={0} -> {0}+1 handler runs")
        @ValueSource(ints = {0, 1, 2, 10})
        @DisplayName("maxRetries = N lets the handler run at most N+1 times, then dead-letters with retryCount N")
        void handlerRunsAtMostNPlusOneTimes(int maxRetries) {
            DeliveryPolicy policy = unsequencedWithDlq(maxRetries, TIERS_ONLY);
            int rc = 0;
            int runs = 0;
            Decision decision;
            do {
                runs++;
                decision = policy.decide(Outcome.retry(), rc);
                if (decision instanceof Hold hold) {
                    rc = hold.retryCount();
                }
            } while (decision instanceof Hold && runs < 100);

            assertThat(runs).isEqualTo(maxRetries + 1);
            assertThat(decision).isEqualTo(new DeadLetter("max-retries-exceeded", "max_retries_exceeded", maxRetries));
        }

        @Test
        @DisplayName("maxRetries = 0: the first retry dead-letters with retryCount 0, no hold hop")
        void maxRetriesZero() {
            DeliveryPolicy policy = unsequencedWithDlq(0, TIERS_ONLY);

            assertThat(policy.maxRetries()).isZero();
            assertThat(policy.decide(Outcome.retry(), 0))
                    .isEqualTo(new DeadLetter("max-retries-exceeded", "max_retries_exceeded", 0));
            assertThat(policy.decide(Outcome.retry(Duration.ofSeconds(3)), 0))
                    .isEqualTo(new DeadLetter("max-retries-exceeded", "max_retries_exceeded", 0));
        }

        @Test
        @DisplayName("maxRetries = 0 still lets a defer wait in tier 0 with its count untouched")
        void maxRetriesZeroDefer() {
            DeliveryPolicy policy = unsequencedWithDlq(0, TIERS_ONLY);

            assertThat(policy.decide(Outcome.defer(), 0)).isEqualTo(new Hold(0, TIER_0, 0));
        }

        @Test
        @DisplayName("exhausting the budget without a DLQ discards, counted as max_retries_exceeded")
        void exhaustedWithoutDlqDiscards() {
            DeliveryPolicy policy = new DeliveryPolicy(topic(false, false), 2, TIERS_ONLY);

            assertThat(policy.decide(Outcome.retry(), 2))
                    .isEqualTo(new Discard("max-retries-exceeded", "max_retries_exceeded"));
        }

        @Test
        @DisplayName("a retry on a sequenced topic waits in place with the count advanced")
        void sequencedRetryWaitsInPlace() {
            DeliveryPolicy policy = new DeliveryPolicy(topic(true, true), 10, TIERS_ONLY);

            assertThat(policy.decide(Outcome.retry(), 0)).isEqualTo(new WaitInPlace(TIER_0, 1));
            assertThat(policy.decide(Outcome.retry(), 7)).isEqualTo(new WaitInPlace(TIER_2, 8));
        }

        @Test
        @DisplayName("a retry on a sequenced topic past the budget is a terminal failure of the key")
        void sequencedRetryExhaustedIsTerminal() {
            DeliveryPolicy policy = new DeliveryPolicy(topic(true, true), 1, TIERS_ONLY);

            Decision decision = policy.decide(Outcome.retry(), 1);

            assertThat(decision).isEqualTo(new DeadLetter("max-retries-exceeded", "max_retries_exceeded", 1));
            assertThat(DeliveryPolicy.isTerminalFailure(decision)).isTrue();
        }

        @Test
        @DisplayName("a topic without declared tiers retries in its implicit 1 s tier, never immediately")
        void implicitTier() {
            Topic<Msg> topic = Topic.builder("implicit", Msg.class).dlq().build();
            DeliveryPolicy policy = new DeliveryPolicy(topic, 10, TIERS_ONLY);

            assertThat(policy.decide(Outcome.retry(), 0)).isEqualTo(new Hold(0, Duration.ofSeconds(1), 1));
            assertThat(policy.decide(Outcome.retry(), 4)).isEqualTo(new Hold(0, Duration.ofSeconds(1), 5));
            assertThat(policy.decide(Outcome.defer(), 4)).isEqualTo(new Hold(0, Duration.ofSeconds(1), 4));
        }
    }

    // ------------------------------------------------------------------------------------------ requested delays

    @Nested
    @DisplayName("a requested delay")
    class RequestedDelay {
        @ParameterizedTest(name = "retry({0}ms) on a tiers-only backend waits in tier {1} for {2}ms")
        @CsvSource({
            "1, 0, 5000",
            "4999, 0, 5000",
            "5000, 0, 5000",
            "5001, 1, 30000",
            "30000, 1, 30000",
            "30001, 2, 120000",
            "120000, 2, 120000",
            "120001, 2, 120001",
            "3600000, 2, 3600000"
        })
        @DisplayName("is rounded up to the shortest tier at least as long on a tiers-only backend, never earlier")
        void roundedUpOnTiersOnly(long askedMs, int tier, long delayMs) {
            DeliveryPolicy policy = unsequencedWithDlq(10, TIERS_ONLY);

            assertThat(policy.decide(Outcome.retry(Duration.ofMillis(askedMs)), 0))
                    .isEqualTo(new Hold(tier, Duration.ofMillis(delayMs), 1));
        }

        @ParameterizedTest(name = "retry({0}ms) with exact delays up to 60s waits in tier {1} for {2}ms")
        @CsvSource({
            "1, 0, 1",
            "4999, 0, 4999",
            "5001, 1, 5001",
            "59999, 2, 59999",
            "60000, 2, 60000",
            "60001, 2, 120000",
            "120000, 2, 120000",
            "120001, 2, 120001"
        })
        @DisplayName("is honoured exactly up to the backend's maxExactDelay, then rounded up to a tier")
        void exactUpToMax(long askedMs, int tier, long delayMs) {
            DeliveryPolicy policy = unsequencedWithDlq(10, EXACT_UP_TO_60S);

            assertThat(policy.decide(Outcome.retry(Duration.ofMillis(askedMs)), 0))
                    .isEqualTo(new Hold(tier, Duration.ofMillis(delayMs), 1));
        }

        @Test
        @DisplayName("longer than every tier is kept whole on a backend whose exact maximum exceeds every tier")
        void longerThanAllTiersWithinExactMaximum() {
            DeliveryPolicy policy = unsequencedWithDlq(
                    10,
                    Capabilities.builder().exactDelays(Duration.ofMinutes(15)).build());

            assertThat(policy.decide(Outcome.retry(Duration.ofSeconds(200)), 0))
                    .isEqualTo(new Hold(2, Duration.ofSeconds(200), 1));
            assertThat(policy.decide(Outcome.defer(Duration.ofMinutes(20)), 0))
                    .isEqualTo(new Hold(2, Duration.ofMinutes(20), 0));
        }

        @Test
        @DisplayName("on retry ignores the retry count for the tier: the delay asked for decides")
        void retryWithDelayIgnoresRetryCountForTier() {
            DeliveryPolicy policy = unsequencedWithDlq(10, TIERS_ONLY);

            assertThat(policy.decide(Outcome.retry(Duration.ofSeconds(1)), 5)).isEqualTo(new Hold(0, TIER_0, 6));
        }

        @Test
        @DisplayName("on a sequenced topic waits in place for exactly the delay asked, on any backend")
        void sequencedWaitsInPlace() {
            DeliveryPolicy tiers = new DeliveryPolicy(topic(true, true), 10, TIERS_ONLY);
            DeliveryPolicy exact = new DeliveryPolicy(topic(true, true), 10, EXACT_UP_TO_60S);

            assertThat(tiers.decide(Outcome.retry(Duration.ofSeconds(10)), 0))
                    .isEqualTo(new WaitInPlace(Duration.ofSeconds(10), 1));
            assertThat(exact.decide(Outcome.retry(Duration.ofSeconds(10)), 0))
                    .isEqualTo(new WaitInPlace(Duration.ofSeconds(10), 1));
            assertThat(exact.decide(Outcome.defer(Duration.ofSeconds(10)), 0))
                    .isEqualTo(new WaitInPlace(Duration.ofSeconds(10), 0));
        }
    }

    // ------------------------------------------------------------------------------------------ defer

    @Nested
    @DisplayName("defer")
    class Defer {
        @ParameterizedTest(name = "defer at rc={0} waits in tier 0 (5s) and keeps rc={0}")
        @ValueSource(ints = {0, 1, 2, 5, 10, 11, 1000})
        @DisplayName("uses tier 0 regardless of the retry count and never spends budget")
        void tierZeroRegardlessOfRetryCount(int rc) {
            DeliveryPolicy policy = unsequencedWithDlq(10, TIERS_ONLY);

            assertThat(policy.decide(Outcome.defer(), rc)).isEqualTo(new Hold(0, TIER_0, rc));
        }

        @ParameterizedTest(name = "{0}")
        @EnumSource(Backend.class)
        @DisplayName("uses tier 0's delay on every backend")
        void tierZeroOnEveryBackend(Backend backend) {
            DeliveryPolicy policy = unsequencedWithDlq(10, backend.capabilities);

            assertThat(policy.decide(Outcome.defer(), 3)).isEqualTo(new Hold(0, TIER_0, 3));
        }

        @Test
        @DisplayName("on a sequenced topic waits in place with the count unchanged (order is kept in place)")
        void sequencedDeferKeepsCount() {
            DeliveryPolicy policy = new DeliveryPolicy(topic(true, true), 10, TIERS_ONLY);

            Decision decision = policy.decide(Outcome.defer(), 4);

            assertThat(decision).isEqualTo(new WaitInPlace(TIER_0, 4));
            assertThat(DeliveryPolicy.isTerminalFailure(decision)).isFalse();
        }

        @Test
        @DisplayName("never dead-letters, however often it happens")
        void neverDeadLetters() {
            DeliveryPolicy policy = unsequencedWithDlq(0, TIERS_ONLY);

            assertThat(policy.decide(Outcome.defer(), Integer.MAX_VALUE - 1)).isInstanceOf(Hold.class);
        }
    }

    // ------------------------------------------------------------------------------------------ ack and reject

    @Nested
    @DisplayName("ack and reject")
    class AckAndReject {
        @Test
        @DisplayName("ack acknowledges, whatever the retry count")
        void ack() {
            DeliveryPolicy policy = unsequencedWithDlq(0, TIERS_ONLY);

            assertThat(policy.decide(Outcome.ack(), 0)).isSameAs(DeliveryPolicy.ACK);
            assertThat(policy.decide(Outcome.ack(), 99)).isSameAs(DeliveryPolicy.ACK);
        }

        @Test
        @DisplayName("reject dead-letters with reason 'rejected' and the current retry count")
        void rejectWithDlq() {
            DeliveryPolicy policy = unsequencedWithDlq(10, TIERS_ONLY);

            assertThat(policy.decide(Outcome.reject(), 2)).isEqualTo(new DeadLetter("rejected", "rejected", 2));
        }

        @Test
        @DisplayName("reject(reason) carries the reason to the DLQ as 'rejected: <reason>', metric tag 'rejected'")
        void rejectWithReason() {
            DeliveryPolicy policy = unsequencedWithDlq(10, TIERS_ONLY);

            assertThat(policy.decide(Outcome.reject("unknown customer"), 0))
                    .isEqualTo(new DeadLetter("rejected: unknown customer", "rejected", 0));
        }

        @Test
        @DisplayName("reject without a DLQ discards, counted as 'rejected', the reason kept for the log")
        void rejectWithoutDlq() {
            DeliveryPolicy policy = new DeliveryPolicy(topic(false, false), 10, TIERS_ONLY);

            assertThat(policy.decide(Outcome.reject(), 0)).isEqualTo(new Discard("rejected", "rejected"));
            assertThat(policy.decide(Outcome.reject("bad"), 0)).isEqualTo(new Discard("rejected: bad", "rejected"));
        }

        @Test
        @DisplayName("reject past the budget is still a rejection, not max-retries-exceeded")
        void rejectPastBudget() {
            DeliveryPolicy policy = unsequencedWithDlq(1, TIERS_ONLY);

            assertThat(policy.decide(Outcome.reject(), 5)).isEqualTo(new DeadLetter("rejected", "rejected", 5));
        }

        @Test
        @DisplayName("a null outcome is refused")
        void nullOutcome() {
            DeliveryPolicy policy = unsequencedWithDlq(1, TIERS_ONLY);

            assertThatThrownBy(() -> policy.decide(null, 0)).isInstanceOf(NullPointerException.class);
        }
    }

    // ------------------------------------------------------------------------------------------ before the handler

    @Nested
    @DisplayName("before the handler")
    class BeforeHandler {
        @Test
        @DisplayName("overBudget dead-letters as max-retries-exceeded keeping the count it arrived with")
        void overBudget() {
            DeliveryPolicy policy = unsequencedWithDlq(3, TIERS_ONLY);

            assertThat(policy.overBudget(7))
                    .isEqualTo(new DeadLetter("max-retries-exceeded", "max_retries_exceeded", 7));
        }

        @Test
        @DisplayName("overBudget without a DLQ discards as max_retries_exceeded")
        void overBudgetWithoutDlq() {
            DeliveryPolicy policy = new DeliveryPolicy(topic(false, false), 3, TIERS_ONLY);

            assertThat(policy.overBudget(7)).isEqualTo(new Discard("max-retries-exceeded", "max_retries_exceeded"));
        }

        @Test
        @DisplayName("oversize dead-letters naming the size and the limit, metric tag 'oversize'")
        void oversize() {
            DeliveryPolicy policy = unsequencedWithDlq(3, TIERS_ONLY);

            assertThat(policy.oversize(8192, 1024, 2))
                    .isEqualTo(new DeadLetter("oversize: 8192 bytes exceeds maxMessageSize 1024", "oversize", 2));
        }

        @Test
        @DisplayName("oversize without a DLQ discards, metric tag 'oversize'")
        void oversizeWithoutDlq() {
            DeliveryPolicy policy = new DeliveryPolicy(topic(false, false), 3, TIERS_ONLY);

            assertThat(policy.oversize(8192, 1024, 0))
                    .isEqualTo(new Discard("oversize: 8192 bytes exceeds maxMessageSize 1024", "oversize"));
        }

        @Test
        @DisplayName("undecodable dead-letters as 'decode-failed: <detail>', metric tag 'decode'")
        void undecodable() {
            DeliveryPolicy policy = unsequencedWithDlq(3, TIERS_ONLY);

            assertThat(policy.undecodable("json(Msg): Unexpected character", 1))
                    .isEqualTo(new DeadLetter("decode-failed: json(Msg): Unexpected character", "decode", 1));
        }

        @Test
        @DisplayName("undecodable without a DLQ discards, metric tag 'decode'")
        void undecodableWithoutDlq() {
            DeliveryPolicy policy = new DeliveryPolicy(topic(false, false), 3, TIERS_ONLY);

            assertThat(policy.undecodable("x", 0)).isEqualTo(new Discard("decode-failed: x", "decode"));
        }

        @Test
        @DisplayName("poisoned dead-letters as 'sequence-poisoned', metric tag 'poisoned'")
        void poisoned() {
            DeliveryPolicy policy = new DeliveryPolicy(topic(true, true), 3, TIERS_ONLY);

            assertThat(policy.poisoned(0)).isEqualTo(new DeadLetter("sequence-poisoned", "poisoned", 0));
        }

        @Test
        @DisplayName("poisoned without a DLQ discards, metric tag 'poisoned'")
        void poisonedWithoutDlq() {
            DeliveryPolicy policy = new DeliveryPolicy(topic(false, true), 3, TIERS_ONLY);

            assertThat(policy.poisoned(2)).isEqualTo(new Discard("sequence-poisoned", "poisoned"));
        }

        @Test
        @DisplayName("every pre-handler failure is terminal for a FAIL_ALL key, with and without a DLQ")
        void preHandlerFailuresAreTerminal() {
            for (boolean dlq : new boolean[] {true, false}) {
                DeliveryPolicy policy = new DeliveryPolicy(topic(dlq, true), 3, TIERS_ONLY);
                assertThat(List.of(
                                policy.overBudget(4),
                                policy.oversize(2, 1, 0),
                                policy.undecodable("x", 0),
                                policy.poisoned(0)))
                        .allMatch(DeliveryPolicy::isTerminalFailure);
            }
        }
    }

    // ------------------------------------------------------------------------------------------ not yet due

    @Nested
    @DisplayName("notYetDue")
    class NotYetDue {
        @ParameterizedTest(name = "{0}ms left on a tiers-only backend -> tier {1} for {2}ms")
        @CsvSource({"3000, 0, 5000", "5000, 0, 5000", "29000, 1, 30000", "100000, 2, 120000", "500000, 2, 500000"})
        @DisplayName("holds the copy again for the rest of its delay, rounded up to a tier, retry count unchanged")
        void tiersOnly(long remainingMs, int tier, long delayMs) {
            DeliveryPolicy policy = unsequencedWithDlq(10, TIERS_ONLY);

            assertThat(policy.notYetDue(Duration.ofMillis(remainingMs), 4))
                    .isEqualTo(new Hold(tier, Duration.ofMillis(delayMs), 4));
        }

        @ParameterizedTest(name = "{0}ms left with exact delays up to 60s -> tier {1} for {2}ms")
        @CsvSource({"3000, 0, 3000", "60000, 2, 60000", "100000, 2, 120000", "500000, 2, 500000"})
        @DisplayName("holds exactly the rest where the backend can")
        void exact(long remainingMs, int tier, long delayMs) {
            DeliveryPolicy policy = unsequencedWithDlq(10, EXACT_UP_TO_60S);

            assertThat(policy.notYetDue(Duration.ofMillis(remainingMs), 4))
                    .isEqualTo(new Hold(tier, Duration.ofMillis(delayMs), 4));
        }

        @Test
        @DisplayName("does not spend budget even at or past maxRetries")
        void doesNotSpendBudget() {
            DeliveryPolicy policy = unsequencedWithDlq(2, TIERS_ONLY);

            assertThat(policy.notYetDue(Duration.ofSeconds(1), 2)).isEqualTo(new Hold(0, TIER_0, 2));
        }

        @Test
        @DisplayName("waits in place on a sequenced topic, exactly the time left")
        void sequenced() {
            DeliveryPolicy policy = new DeliveryPolicy(topic(true, true), 10, TIERS_ONLY);

            assertThat(policy.notYetDue(Duration.ofSeconds(1), 3)).isEqualTo(new WaitInPlace(Duration.ofSeconds(1), 3));
        }
    }

    // ------------------------------------------------------------------------------------------ terminal failures

    @Nested
    @DisplayName("isTerminalFailure")
    class TerminalFailure {
        @Test
        @DisplayName("is true for dead letters and discards only")
        void onlyDeadLetterAndDiscard() {
            assertThat(DeliveryPolicy.isTerminalFailure(new DeadLetter("r", "m", 0)))
                    .isTrue();
            assertThat(DeliveryPolicy.isTerminalFailure(new Discard("r", "m"))).isTrue();
            assertThat(DeliveryPolicy.isTerminalFailure(DeliveryPolicy.ACK)).isFalse();
            assertThat(DeliveryPolicy.isTerminalFailure(new Hold(0, TIER_0, 1))).isFalse();
            assertThat(DeliveryPolicy.isTerminalFailure(new WaitInPlace(TIER_0, 1)))
                    .isFalse();
        }
    }
}
