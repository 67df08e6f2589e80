/**
 * Runnable examples, one class per scenario, all on the in-memory broker: {@link dev.shove.examples.Quickstart},
 * {@link dev.shove.examples.SequencedOrders}, {@link dev.shove.examples.AutoscalingGroup}, {@link
 * dev.shove.examples.AuditedHandler}, and one per subscriber feature: {@link dev.shove.examples.BatchInserts}, {@link
 * dev.shove.examples.Interceptors}, {@link dev.shove.examples.DecodeFailures}, {@link dev.shove.examples.Replies},
 * {@link dev.shove.examples.Replay}, {@link dev.shove.examples.Broadcast} and {@link dev.shove.examples.RawGateway}; and
 * {@link dev.shove.examples.AsyncApiDocument}, which prints the AsyncAPI document of their topics.
 * Each has a {@code main} and a {@code run(PrintStream, ...)} that the tests call. The docs quote these files; the
 * build checks that the quotes still match.
 */
@NullMarked
package dev.shove.examples;

import org.jspecify.annotations.NullMarked;
