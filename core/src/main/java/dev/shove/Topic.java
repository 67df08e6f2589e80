package dev.shove;

import dev.shove.spi.DurationText;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A named flow of one message type, declared once and used by publishers and consumers alike: its broker-side name,
 * its codec, its retry tiers, its dead-letter queue and, optionally, per-key ordering.
 *
 * <p>A topic is an immutable value; define it once as a constant and share it freely between threads.
 *
 * <pre>{@code
 * static final Topic<OrderPaid> ORDERS = Topic.builder("orders", OrderPaid.class)
 *         .holdQueue(Duration.ofSeconds(5))   // retry tiers, shortest first
 *         .holdQueue(Duration.ofSeconds(30))
 *         .dlq()                              // "orders-dlq"
 *         .build();
 * }</pre>
 *
 * <p>Broker-side names: the main queue is {@code name}; tiers are {@code {name}-hold-{delay}} with a compact delay
 * ({@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}); the DLQ is {@code {name}-dlq} unless named; the shards of a
 * sequenced topic are {@code {name}-seq-{i}}.
 *
 * @param <M> the message type
 * @since 0.1.0
 */
public final class Topic<M> {
    private static final Logger log = LoggerFactory.getLogger(Topic.class);

    /** The delay of the tier a topic gets when it declares none: never a zero-delay retry loop. */
    public static final Duration IMPLICIT_TIER_DELAY = Duration.ofSeconds(1);

    private final String name;
    private final Codec<M> codec;
    private final List<HoldTier> holdTiers;
    private final boolean implicitTier;
    private final @Nullable String dlq;
    private final @Nullable Sequencing<M> sequencing;
    private final boolean allowMessageLoss;
    private final boolean broadcast;

    private Topic(Builder<M> b, List<HoldTier> holdTiers, boolean implicitTier) {
        this.name = b.name;
        this.codec = b.codec;
        this.holdTiers = List.copyOf(holdTiers);
        this.implicitTier = implicitTier;
        this.dlq = b.dlq;
        this.sequencing = b.onFailure == null || b.keyFunction == null
                ? null
                : new Sequencing<>(
                        b.onFailure,
                        b.keyFunction,
                        b.routingShards == null ? Sequencing.DEFAULT_ROUTING_SHARDS : b.routingShards);
        this.allowMessageLoss = b.allowMessageLoss;
        this.broadcast = b.broadcast;
    }

    /**
     * Starts a topic of messages of the given class, encoded as JSON ({@link Codec#json(Class)}); a {@code byte[]}
     * topic uses {@link Codec#raw()} instead.
     *
     * @param name the topic's name on the broker
     * @param type the message class
     * @param <M> the message type
     * @return a builder with no hold tiers, no dead-letter queue and no sequencing
     */
    @SuppressWarnings("unchecked")
    public static <M> Builder<M> builder(String name, Class<M> type) {
        Objects.requireNonNull(type, "type");
        Codec<M> codec = type == byte[].class ? (Codec<M>) Codec.raw() : Codec.json(type);
        return new Builder<>(name, codec);
    }

    /**
     * Starts a topic whose messages are encoded by the given codec.
     *
     * @param name the topic's name on the broker
     * @param codec encodes and decodes the messages
     * @param <M> the message type
     * @return a builder with no hold tiers, no dead-letter queue and no sequencing
     */
    public static <M> Builder<M> builder(String name, Codec<M> codec) {
        return new Builder<>(name, Objects.requireNonNull(codec, "codec"));
    }

    /** {@return the topic's name, which is also the name of its main queue, topic or stream on the broker} */
    public String name() {
        return name;
    }

    /** {@return the codec that encodes and decodes this topic's messages} */
    public Codec<M> codec() {
        return codec;
    }

    /**
     * {@return the retry tiers, shortest delay first} Never empty: a topic built without tiers has one implicit tier
     * of {@link #IMPLICIT_TIER_DELAY} (see {@link #hasImplicitTier()}).
     */
    public List<HoldTier> holdTiers() {
        return holdTiers;
    }

    /** {@return whether the single tier was added because the builder declared none} */
    public boolean hasImplicitTier() {
        return implicitTier;
    }

    /**
     * {@return the dead-letter queue's name, if the topic has one} Without one, rejected messages are discarded and
     * counted.
     */
    public Optional<String> dlq() {
        return Optional.ofNullable(dlq);
    }

    /** {@return the ordering settings, present only on sequenced topics} */
    public Optional<Sequencing<M>> sequencing() {
        return Optional.ofNullable(sequencing);
    }

    /** {@return whether messages of one key are handled strictly in order} */
    public boolean isSequenced() {
        return sequencing != null;
    }

    /** {@return whether the topic is a best-effort broadcast: every running subscriber receives every message} */
    public boolean isBroadcast() {
        return broadcast;
    }

    /** {@return whether the builder waived the sequenced-topic guards with {@link Builder#allowMessageLoss()}} */
    public boolean allowsMessageLoss() {
        return allowMessageLoss;
    }

    /**
     * {@return the name of shard {@code index} of a sequenced topic: {@code {name}-seq-{index}}}
     *
     * @param index the shard, from 0
     */
    public String shardName(int index) {
        return name + "-seq-" + index;
    }

    /**
     * The hold tiers of one shard of a sequenced topic, for backends that keep per-shard tiers:
     * {@code {name}-seq-{index}-hold-{delay}}.
     *
     * @param index the shard, from 0
     * @return the shard's tiers, shortest delay first
     */
    public List<HoldTier> shardHoldTiers(int index) {
        String shard = shardName(index);
        return holdTiers.stream()
                .map(t -> new HoldTier(t.delay(), Naming.holdQueue(shard, t.delay())))
                .toList();
    }

    @Override
    public String toString() {
        return "Topic[" + name + "]";
    }

    /**
     * Builds a {@link Topic}. Each setting may be given once; giving it twice fails at once with a message naming the
     * setting. Not thread-safe; build on one thread, then share the topic.
     *
     * @param <M> the message type
     */
    public static final class Builder<M> {
        private final String name;
        private Codec<M> codec;
        private final List<Duration> delays = new ArrayList<>();
        private @Nullable String dlq;
        private @Nullable SequenceFailure onFailure;
        private @Nullable Function<? super M, String> keyFunction;
        private @Nullable Integer routingShards;
        private boolean allowMessageLoss;
        private boolean broadcast;
        private boolean codecSet;

        private Builder(String name, Codec<M> codec) {
            this.name = Naming.requireValidName(name, "topic name");
            this.codec = codec;
        }

        /**
         * Adds a retry tier: a retried message waits {@code delay} (whole milliseconds, at most {@link
         * Outcome#MAX_DELAY}) before it is delivered again. Declare tiers from
         * shortest to longest; retry {@code n} (counting from 0) uses tier {@code min(n, tiers - 1)}.
         *
         * @param delay how long a retried message waits in this tier
         * @return this builder
         */
        public Builder<M> holdQueue(Duration delay) {
            Objects.requireNonNull(delay, "delay");
            if (delay.isNegative() || delay.isZero() || delay.compareTo(Outcome.MAX_DELAY) > 0) {
                throw new IllegalArgumentException(
                        "topic '%s': hold queue delay must be positive and at most %s, was %s"
                                .formatted(name, DurationText.of(Outcome.MAX_DELAY), DurationText.of(delay)));
            }
            if (delay.toNanos() % 1_000_000 != 0) {
                throw new IllegalArgumentException("topic '%s': hold queue delay must be whole milliseconds, was %s"
                        .formatted(name, DurationText.of(delay)));
            }
            if (!delays.isEmpty()) {
                Duration last = delays.getLast();
                if (delay.compareTo(last) == 0) {
                    throw new IllegalArgumentException(
                            "topic '%s': hold queue %s is declared twice".formatted(name, DurationText.of(delay)));
                }
                if (delay.compareTo(last) < 0) {
                    throw new IllegalArgumentException(
                            "topic '%s': hold queues must be declared shortest first, but %s follows %s"
                                    .formatted(name, DurationText.of(delay), DurationText.of(last)));
                }
            }
            delays.add(delay);
            return this;
        }

        /**
         * Gives the topic a dead-letter queue named {@code {name}-dlq}.
         *
         * @return this builder
         */
        public Builder<M> dlq() {
            return dlq(name + "-dlq");
        }

        /**
         * Gives the topic a dead-letter queue with the given name.
         *
         * @param dlqName the dead-letter queue's name on the broker
         * @return this builder
         */
        public Builder<M> dlq(String dlqName) {
            if (dlq != null) {
                throw new IllegalStateException("topic '%s': dlq was already set to '%s'".formatted(name, dlq));
            }
            String checked = Naming.requireValidName(dlqName, "dlq name");
            if (checked.equals(name)) {
                throw new IllegalArgumentException(
                        "topic '%s': the dlq cannot have the topic's own name".formatted(name));
            }
            this.dlq = checked;
            return this;
        }

        /**
         * Makes the topic sequenced: messages with the same key (from {@code keyFunction}) are handled strictly one
         * after another, in publish order, across retries and restarts; different keys run in parallel. Requires a
         * dead-letter queue and at least one hold tier unless {@link #allowMessageLoss()} is set.
         *
         * @param onFailure what happens to a key's later messages when one of its messages is dead-lettered
         * @param keyFunction the ordering key of a message
         * @return this builder
         */
        public Builder<M> sequenced(SequenceFailure onFailure, Function<? super M, String> keyFunction) {
            if (this.onFailure != null) {
                throw new IllegalStateException(
                        "topic '%s': sequenced(...) was already set to %s".formatted(name, this.onFailure));
            }
            this.onFailure = Objects.requireNonNull(onFailure, "onFailure");
            this.keyFunction = Objects.requireNonNull(keyFunction, "keyFunction");
            return this;
        }

        /**
         * The number of shards of a sequenced topic (default {@value Sequencing#DEFAULT_ROUTING_SHARDS}).
         *
         * @param shards how many shards the keys are spread over
         * @return this builder
         */
        public Builder<M> routingShards(int shards) {
            if (routingShards != null) {
                throw new IllegalStateException(
                        "topic '%s': routingShards was already set to %d".formatted(name, routingShards));
            }
            if (shards <= 0) {
                throw new IllegalArgumentException(
                        "topic '%s': routingShards must be greater than 0, was %d".formatted(name, shards));
            }
            this.routingShards = shards;
            return this;
        }

        /**
         * Waives the safety guards: a sequenced topic may then be built without a dead-letter queue or hold tier,
         * and the warnings about discarded messages are not logged. Messages that would be dead-lettered are
         * discarded (and counted in {@code shove.messages.discarded}).
         *
         * @return this builder
         */
        public Builder<M> allowMessageLoss() {
            this.allowMessageLoss = true;
            return this;
        }

        /**
         * Makes the topic a broadcast: every running subscriber receives every message published after it
         * subscribed. Best effort: no retries and no dead-letter queue, so it cannot be combined with either, nor
         * with sequencing.
         *
         * @return this builder
         */
        public Builder<M> broadcast() {
            this.broadcast = true;
            return this;
        }

        /**
         * Replaces the codec chosen from the message class.
         *
         * @param codec encodes and decodes the messages
         * @return this builder
         */
        public Builder<M> codec(Codec<M> codec) {
            if (codecSet) {
                throw new IllegalStateException("topic '%s': codec was already set".formatted(name));
            }
            this.codec = Objects.requireNonNull(codec, "codec");
            this.codecSet = true;
            return this;
        }

        /**
         * Validates the settings and builds the topic; logs a WARN for risky but legal combinations.
         *
         * @return the topic
         * @throws IllegalStateException when the settings do not fit together (the message names the setting)
         */
        public Topic<M> build() {
            if (routingShards != null && onFailure == null) {
                throw new IllegalStateException(
                        "topic '%s': routingShards(%d) only applies to sequenced topics; call sequenced(...) too"
                                .formatted(name, routingShards));
            }
            if (broadcast) {
                if (dlq != null || !delays.isEmpty() || onFailure != null) {
                    throw new IllegalStateException(
                            "topic '%s': a broadcast topic is best effort and cannot have a dlq, hold queues or sequencing"
                                    .formatted(name));
                }
                return new Topic<>(this, List.of(), false);
            }
            if (onFailure != null && !allowMessageLoss) {
                if (dlq == null) {
                    throw new IllegalStateException(("topic '%s': sequenced topics require a dlq, or a failed message"
                                    + " would be lost; call .dlq() (or .allowMessageLoss()) before .build()")
                            .formatted(name));
                }
                if (delays.isEmpty()) {
                    throw new IllegalStateException(("topic '%s': sequenced topics require at least one hold queue;"
                                    + " call .holdQueue(delay) (or .allowMessageLoss()) before .build()")
                            .formatted(name));
                }
            }
            boolean implicit = delays.isEmpty();
            List<Duration> tiers = implicit ? List.of(IMPLICIT_TIER_DELAY) : delays;
            if (!allowMessageLoss) {
                if (implicit) {
                    log.warn(
                            "topic '{}' declares no hold queue; retries wait in an implicit {} tier ({}). Declare"
                                    + " .holdQueue(delay) to choose the delays",
                            name,
                            Naming.compact(IMPLICIT_TIER_DELAY),
                            Naming.holdQueue(name, IMPLICIT_TIER_DELAY));
                }
                if (dlq == null) {
                    log.warn(
                            "topic '{}' has no dlq: rejected messages and messages exhausting maxRetries will be"
                                    + " discarded (counted in shove.messages.discarded). Declare .dlq() to keep them",
                            name);
                }
            }
            List<HoldTier> holdTiers = tiers.stream()
                    .map(d -> new HoldTier(d, Naming.holdQueue(name, d)))
                    .toList();
            return new Topic<>(this, holdTiers, implicit);
        }
    }
}
