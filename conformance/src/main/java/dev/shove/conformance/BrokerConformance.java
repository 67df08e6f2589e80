package dev.shove.conformance;

import dev.shove.BrokerConfig;
import dev.shove.ConsumerGroupConfig;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The conformance kit: every contract of the library's semantics (documented in {@code docs/concepts}) as a JUnit 5
 * test, one behaviour per test, grouped in {@link Nested} classes. A backend proves itself by extending this class with
 * its broker config:
 *
 * <pre>{@code
 * class InMemoryConformanceTest extends BrokerConformance<InMemory> {
 *     @Override protected BrokerConfig<InMemory> brokerConfig() { return InMemoryConfig.ofDefaults(); }
 * }
 * }</pre>
 *
 * <p>Against a real broker, the integration test checks the broker first and adjusts the timing hooks:
 *
 * <pre>{@code
 * class KafkaConformanceIT extends BrokerConformance<Kafka> {
 *     @BeforeAll static void kafka() { BrokerAvailability.require("Kafka", "kafka", "127.0.0.1", 9092); }
 *     @Override protected BrokerConfig<Kafka> brokerConfig() { return KafkaConfig.of("127.0.0.1:9092"); }
 *     @Override protected Duration quietPeriod() { return Duration.ofSeconds(2); }
 * }
 * }</pre>
 *
 * <p>Every test connects its own broker (with a {@code SimpleMeterRegistry}), declares its own topics under unique
 * names ({@code retry-3f9a12c4-1}), and stops its groups and closes its broker when it ends, so tests never interfere
 * and can run against a shared real broker. Assertions poll with the backend's {@link #patience()}; "nothing more
 * happens" checks last the {@link #quietPeriod()}; timing contracts assert lower bounds only. Contracts a broker
 * cannot meet are skipped on the backend's {@link dev.shove.spi.Capabilities} or on the hooks below, never silently
 * passed.
 *
 * <p>Layout: each group of contracts (topology, publishing, outcomes, ...) is a package-private {@code *Contracts}
 * class, and this class declares one {@code @Nested} inner class per group that extends it. JUnit discovers
 * {@code @Nested} classes declared in an abstract superclass when the backend's subclass runs, so the backend's test
 * stays a few lines, and a report lists the contracts by group.
 *
 * <p>JUnit creates one instance per test and runs it on one thread; instances are not meant to be shared.
 *
 * @param <B> the backend marker
 * @since 0.1.0
 */
@ExtendWith(KitSelection.class)
public abstract class BrokerConformance<B> {

    /** The default of {@link #patience()}. */
    public static final Duration DEFAULT_PATIENCE = Duration.ofSeconds(10);

    /** The default of {@link #quietPeriod()}. */
    public static final Duration DEFAULT_QUIET_PERIOD = Duration.ofSeconds(1);

    /** The default of {@link #shortestTier()}. */
    public static final Duration DEFAULT_SHORTEST_TIER = Duration.ofMillis(250);

    private @Nullable Harness<B> harness;

    /** For the backend's subclass. */
    protected BrokerConformance() {}

    /** {@return the broker under test; each test connects a new broker with it} */
    protected abstract BrokerConfig<B> brokerConfig();

    /**
     * The group settings the contracts start from, for {@code min..max} consumers. The default has every default; a
     * backend with settings of its own for consumer groups adds them here.
     *
     * @param minConsumers the fewest consumers the contract's registration runs
     * @param maxConsumers the most consumers the contract's registration runs
     * @return a builder the contract adds its own settings to
     */
    protected ConsumerGroupConfig.Builder groupConfig(int minConsumers, int maxConsumers) {
        return ConsumerGroupConfig.builder().consumers(minConsumers, maxConsumers);
    }

    /**
     * {@return how long a contract polls for something to happen before it fails} Default 10 s; a slow broker may
     * need more. Never a performance bound: contracts only fail on it when the thing does not happen at all.
     */
    protected Duration patience() {
        return DEFAULT_PATIENCE;
    }

    /**
     * {@return how long a contract watches for something that must not happen (a second delivery, a redelivery after
     * an ack)} Default 1 s. Longer is more thorough and slower; it should exceed the broker's own redelivery latency.
     */
    protected Duration quietPeriod() {
        return DEFAULT_QUIET_PERIOD;
    }

    /**
     * {@return the shortest hold-tier delay the contracts declare} Longer tiers are multiples of it. Default 250 ms:
     * long enough that "waited at least the delay" means something on a real broker, short enough to keep the suite
     * fast.
     */
    protected Duration shortestTier() {
        return DEFAULT_SHORTEST_TIER;
    }

    /**
     * {@return whether declaring a topic again with another shape (sequenced where it was not, another dead-letter
     * queue) fails with a {@link dev.shove.TopologyException}} Default true; a backend whose broker cannot tell returns
     * false and the contract is skipped.
     */
    protected boolean detectsConflictingDeclarations() {
        return true;
    }

    /**
     * {@return whether publishing to a topic that was never declared fails with a {@link dev.shove.TopologyException}}
     * Default true; a backend whose broker creates topics on first use returns false and the contract is skipped.
     */
    protected boolean refusesUndeclaredTopics() {
        return true;
    }

    /**
     * {@return how many messages each queue of {@link #brokerConfig()} keeps as a log before it trims older ones, when
     * the broker trims by count (the in-memory broker with retention, a Redis Stream with MAXLEN)} The contract on
     * positions that no longer exist publishes twice as many to have the oldest trimmed. Default empty: that contract
     * is skipped.
     */
    protected OptionalInt logRetention() {
        return OptionalInt.empty();
    }

    @BeforeEach
    final void connectBroker() {
        harness = new Harness<>(this);
    }

    @AfterEach
    final void closeBroker() {
        Harness<B> h = harness;
        harness = null;
        if (h != null) {
            h.close();
        }
    }

    final Harness<B> harness() {
        return Objects.requireNonNull(harness, "the conformance harness exists only while a test runs");
    }

    @Nested
    @DisplayName("shove- headers and codecs of other producers")
    class WireHeaders extends WireHeaderContracts<B> {
        WireHeaders() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("pause, resume and the circuit breaker")
    class Pausing extends PauseContracts<B> {
        Pausing() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("dead-letter tools")
    class DeadLetterTools extends DeadLetterQueueContracts<B> {
        DeadLetterTools() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("health")
    class Health extends HealthContracts<B> {
        Health() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("topology")
    class Topology extends TopologyContracts<B> {
        Topology() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("publishing")
    class Publishing extends PublishingContracts<B> {
        Publishing() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("outcomes and retry arithmetic")
    class Outcomes extends OutcomeContracts<B> {
        Outcomes() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("failures before the handler")
    class PreHandler extends PreHandlerContracts<B> {
        PreHandler() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("handler timeouts")
    class Timeouts extends TimeoutContracts<B> {
        Timeouts() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("dead letters and handleDead")
    class DeadLetters extends DeadLetterContracts<B> {
        DeadLetters() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("message metadata")
    class Metadata extends MetadataContracts<B> {
        Metadata() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("sequenced topics")
    class Sequencing extends SequencingContracts<B> {
        Sequencing() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("concurrency and prefetch")
    class Concurrency extends ConcurrencyContracts<B> {
        Concurrency() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("consumer groups and scaling")
    class Groups extends GroupContracts<B> {
        Groups() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("supervisors, drain and exit codes")
    class Shutdown extends ShutdownContracts<B> {
        Shutdown() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("context")
    class Context extends ContextContracts<B> {
        Context() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("audit")
    class Audit extends AuditContracts<B> {
        Audit() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("metrics")
    class Metrics extends MetricsContracts<B> {
        Metrics() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("batch handlers")
    class Batches extends BatchContracts<B> {
        Batches() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("handler interceptors")
    class Interceptors extends InterceptorContracts<B> {
        Interceptors() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("decode-failure policy and header contracts")
    class Decoding extends DecodingContracts<B> {
        Decoding() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("replies")
    class Replies extends ReplyContracts<B> {
        Replies() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("seeking and start positions")
    class Seeking extends SeekContracts<B> {
        Seeking() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("broadcast topics")
    class Broadcasts extends BroadcastContracts<B> {
        Broadcasts() {
            super(BrokerConformance.this);
        }
    }

    @Nested
    @DisplayName("raw payloads")
    class RawPayloads extends RawPayloadContracts<B> {
        RawPayloads() {
            super(BrokerConformance.this);
        }
    }
}
