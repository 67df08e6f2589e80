/**
 * The Apache Kafka backend, over {@code kafka-clients}: topics, hold topics and dead-letter topics declared with the
 * Admin client; an idempotent producer; one {@code KafkaConsumer} per consumer with contiguous offset commits; a hold
 * relay that brings retries back when they are due; sequenced topics ordered per key with keys in parallel inside a
 * partition. Start with {@link dev.shove.kafka.KafkaConfig}; the mapping is documented in {@code
 * docs/backends/kafka.md}.
 */
@NullMarked
package dev.shove.kafka;

import org.jspecify.annotations.NullMarked;
