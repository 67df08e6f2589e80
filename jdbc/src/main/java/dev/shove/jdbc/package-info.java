/**
 * Exactly-once effects inside the application's own database: {@link dev.shove.jdbc.Outbox} writes a message in the
 * caller's JDBC transaction and {@link dev.shove.jdbc.OutboxRelay} publishes it at least once, in per-key order;
 * {@link dev.shove.jdbc.Inbox} runs a handler in a transaction that also records the message id, so a redelivery
 * changes nothing. {@link dev.shove.jdbc.ShoveTables} creates and checks the tables. {@code
 * docs/concepts/outbox-and-inbox.md} describes the failure windows.
 */
@NullMarked
package dev.shove.jdbc;

import org.jspecify.annotations.NullMarked;
