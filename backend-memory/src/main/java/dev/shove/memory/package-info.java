/**
 * The in-memory backend: a real in-process broker with queues, hold tiers (timers), dead-letter queues, sequenced
 * shards and competing consumers, but no durability and no reach beyond the JVM. The reference backend of the
 * conformance kit, and the quickest way to run and test an application. Start with {@link
 * dev.shove.memory.InMemoryConfig}; for tests, {@link dev.shove.memory.InMemoryProbe}.
 */
@NullMarked
package dev.shove.memory;

import org.jspecify.annotations.NullMarked;
