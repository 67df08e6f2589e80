package dev.shove.conformance;

import dev.shove.ConsumerGroupConfig;
import dev.shove.Topic;
import dev.shove.spi.Capabilities;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * The base of every group of contracts: access to the running test's {@link Harness} and shorthands the contracts
 * share. Each group is extended by one {@code @Nested} class of {@link BrokerConformance}.
 *
 * @param <B> the backend marker
 */
abstract class Contracts<B> {
    /**
     * How early a held copy may come back and still count as due: the engine's own tolerance for broker timers and
     * clock jitter. Delays are asserted as {@code >= delay - EARLY_TOLERANCE}.
     */
    static final Duration EARLY_TOLERANCE = Duration.ofMillis(50);

    private final BrokerConformance<B> kit;

    Contracts(BrokerConformance<B> kit) {
        this.kit = kit;
    }

    final Harness<B> h() {
        return kit.harness();
    }

    final Capabilities capabilities() {
        return h().broker().capabilities();
    }

    /** The shortest tier delay. */
    final Duration tier() {
        return h().tier();
    }

    /** One consumer, default options. */
    final ConsumerGroupConfig config() {
        return h().config();
    }

    /** One consumer, adjusted options. */
    final ConsumerGroupConfig config(UnaryOperator<ConsumerGroupConfig.Builder> options) {
        return h().config(options);
    }

    final Topic<Msg> plainTopic(String prefix) {
        return h().plainTopic(prefix);
    }

    /** Milliseconds between two {@link System#nanoTime()} readings. */
    static long millisBetween(long startNanos, long endNanos) {
        return (endNanos - startNanos) / 1_000_000;
    }

    /** The lower bound a contract asserts for a wait of {@code delay}: the delay less the early tolerance. */
    static long atLeastMillis(Duration delay) {
        return delay.minus(EARLY_TOLERANCE).toMillis();
    }
}
