package dev.shove;

import dev.shove.spi.Bounds;
import java.time.Duration;
import java.util.Objects;

/**
 * A circuit breaker for a registration: when handlers keep failing (they throw, return {@code retry}, or time out),
 * the registration pauses for {@code openFor} instead of burning every message's retry budget against a dependency
 * that is down; then one message probes: if it succeeds, the registration flows again; if it fails, it pauses again.
 * A paused registration hands out nothing; what it holds waits (unsettled), nothing is redelivered early. Immutable.
 *
 * <pre>{@code
 * ConsumerGroupConfig.builder()
 *         .circuitBreaker(CircuitBreakerConfig.builder().consecutiveFailures(5).openFor(Duration.ofSeconds(30)).build())
 *         .build();
 * }</pre>
 *
 * <p>It opens after {@code consecutiveFailures} failures in a row, or, when a failure rate is set, when at least that
 * share of the last {@code window} handler runs failed. {@code ack}, {@code reject} and {@code defer} count as
 * successes: the handler ran and decided. Defaults: 5 consecutive failures, no failure rate, open for 30 s.
 *
 * @param consecutiveFailures failures in a row that open the breaker (at least 1)
 * @param failureRate the share of failures in the last {@code window} runs that opens it, in (0, 1]; 0 for none
 * @param window how many of the latest runs the failure rate looks at (at least 1 when a rate is set)
 * @param openFor how long the registration stays paused before a probe
 * @since 0.1.0
 */
public record CircuitBreakerConfig(int consecutiveFailures, double failureRate, int window, Duration openFor) {
    public static final int DEFAULT_CONSECUTIVE_FAILURES = 5;
    public static final Duration DEFAULT_OPEN_FOR = Duration.ofSeconds(30);

    /**
     * Checks the components; see the class description.
     *
     * @param consecutiveFailures failures in a row that open the breaker (at least 1)
     * @param failureRate the share of failures in the last {@code window} runs that opens it, in (0, 1]; 0 for none
     * @param window how many of the latest runs the failure rate looks at (at least 1 when a rate is set)
     * @param openFor how long the registration stays paused before a probe
     */
    public CircuitBreakerConfig {
        if (consecutiveFailures < 1) {
            throw new IllegalArgumentException(
                    "circuit breaker consecutiveFailures must be at least 1, was " + consecutiveFailures);
        }
        if (!(failureRate >= 0 && failureRate <= 1)) {
            throw new IllegalArgumentException(
                    "circuit breaker failureRate must be between 0 (none) and 1, was " + failureRate);
        }
        if (failureRate > 0 && (window < 1 || window > 10_000)) {
            throw new IllegalArgumentException("circuit breaker window must be between 1 and 10000, was " + window);
        }
        Bounds.positive("circuit breaker openFor", openFor);
    }

    /** {@return the defaults above} */
    public static CircuitBreakerConfig ofDefaults() {
        return builder().build();
    }

    /** {@return a builder starting from the defaults} */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link CircuitBreakerConfig}. Not thread-safe. */
    public static final class Builder {
        private int consecutiveFailures = DEFAULT_CONSECUTIVE_FAILURES;
        private double failureRate;
        private int window;
        private Duration openFor = DEFAULT_OPEN_FOR;

        private Builder() {}

        /**
         * Opens after this many failures in a row.
         *
         * @param failures at least 1; default {@value #DEFAULT_CONSECUTIVE_FAILURES}
         * @return this builder
         */
        public Builder consecutiveFailures(int failures) {
            this.consecutiveFailures = failures;
            return this;
        }

        /**
         * Also opens when at least {@code rate} of the last {@code window} runs failed.
         *
         * @param rate the share of failures, in (0, 1]
         * @param window how many of the latest runs count, at least 1
         * @return this builder
         */
        public Builder failureRate(double rate, int window) {
            this.failureRate = rate;
            this.window = window;
            return this;
        }

        /**
         * How long the registration stays paused before one message probes.
         *
         * @param openFor positive, at most one day; default 30 s
         * @return this builder
         */
        public Builder openFor(Duration openFor) {
            this.openFor = Objects.requireNonNull(openFor, "openFor");
            return this;
        }

        /** {@return the config as set; checks every value} */
        public CircuitBreakerConfig build() {
            return new CircuitBreakerConfig(consecutiveFailures, failureRate, window, openFor);
        }
    }
}
