/**
 * Runnable examples, one class per scenario, all on the in-memory broker: {@link dev.shove.examples.Quickstart},
 * {@link dev.shove.examples.SequencedOrders}, {@link dev.shove.examples.AutoscalingGroup} and {@link
 * dev.shove.examples.AuditedHandler}. Each has a {@code main} and a {@code run(PrintStream, ...)} that the tests call.
 * The docs quote these files; the build checks that the quotes still match.
 */
@NullMarked
package dev.shove.examples;

import org.jspecify.annotations.NullMarked;
