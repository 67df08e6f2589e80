/**
 * Throughput and latency harnesses that run shove and the raw broker client side by side against the same real
 * broker in the same run, so their ratio means something on a noisy machine. Not unit tests: run them with {@code
 * scripts/bench.sh}.
 */
@NullMarked
package dev.shove.benchmarks;

import org.jspecify.annotations.NullMarked;
