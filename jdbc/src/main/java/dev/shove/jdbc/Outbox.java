package dev.shove.jdbc;

import dev.shove.CodecException;
import dev.shove.Sequencing;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * The transactional outbox: {@link #publish(Connection, Topic, Object) publish} writes a message into the outbox table
 * on the caller's connection, inside the caller's transaction, so the message exists exactly when the transaction
 * commits; an {@link OutboxRelay} then publishes it to the broker, at least once and in per-key order. Works with any
 * transaction manager that hands out a {@link Connection} (plain JDBC, Spring's {@code DataSourceUtils}, jOOQ).
 *
 * <p>The row holds what the broker's publisher would send: the payload encoded with the topic's codec, the caller's
 * headers, a fresh {@value ShoveHeaders#MESSAGE_ID} (returned, and published unchanged however many times the relay
 * must try) and, for a sequenced topic, the ordering key in {@value ShoveHeaders#SEQUENCE_KEY}. Two transactions that
 * write one key are serialised on the key's row in the keys table, so the relay publishes them in commit order. On
 * PostgreSQL the write also notifies waiting relays ({@code pg_notify}, delivered at commit), which then start at once.
 *
 * <p>Immutable and thread-safe; the methods use only the connection they are given and never commit it.
 *
 * <pre>{@code
 * Outbox outbox = Outbox.of(ShoveTables.ofDefaults());
 * try (Connection c = dataSource.getConnection()) {
 *     c.setAutoCommit(false);
 *     insertOrder(c, order);
 *     outbox.publish(c, ORDERS, new OrderPaid(order.id(), order.cents()));
 *     c.commit();
 * }
 * }</pre>
 *
 * @since 0.1.0
 */
public final class Outbox {
    static final String PENDING = "PENDING";
    static final String FAILED = "FAILED";
    /** The longest topic name and ordering key the tables hold (their columns are {@code VARCHAR(255)}). */
    public static final int MAX_NAME_LENGTH = 255;

    private final ShoveTables tables;
    private final Clock clock;

    private Outbox(ShoveTables tables, Clock clock) {
        this.tables = tables;
        this.clock = clock;
    }

    /**
     * {@return an outbox writing to {@code tables}}
     *
     * @param tables the table names
     */
    public static Outbox of(ShoveTables tables) {
        return new Outbox(Objects.requireNonNull(tables, "tables"), Clock.systemUTC());
    }

    /** {@return an outbox writing to the default tables ({@link ShoveTables#ofDefaults()})} */
    public static Outbox ofDefaults() {
        return of(ShoveTables.ofDefaults());
    }

    /** {@return the tables this outbox writes to} */
    public ShoveTables tables() {
        return tables;
    }

    /**
     * Writes {@code message} for {@code topic} into the outbox, in the connection's current transaction.
     *
     * @param connection the caller's connection, usually with auto-commit off; not committed here
     * @param topic the topic to publish to once the transaction commits
     * @param message the message
     * @param <M> the message type
     * @return the message's id, as the consumer will see it in {@value ShoveHeaders#MESSAGE_ID}
     * @throws CodecException when the message cannot be encoded
     * @throws DatabaseException when the row cannot be written (the transaction is then best rolled back)
     */
    public <M> String publish(Connection connection, Topic<M> topic, M message) {
        return publish(connection, topic, message, Map.of());
    }

    /**
     * Writes {@code message} with headers of your own for {@code topic} into the outbox, in the connection's current
     * transaction.
     *
     * @param connection the caller's connection, usually with auto-commit off; not committed here
     * @param topic the topic to publish to once the transaction commits
     * @param message the message
     * @param headers headers of your own; none may start with {@value ShoveHeaders#PREFIX}
     * @param <M> the message type
     * @return the message's id, as the consumer will see it in {@value ShoveHeaders#MESSAGE_ID}
     * @throws IllegalArgumentException when a header name starts with {@value ShoveHeaders#PREFIX}, or the topic name
     *     or ordering key is longer than {@value #MAX_NAME_LENGTH}
     * @throws CodecException when the message cannot be encoded
     * @throws DatabaseException when the row cannot be written (the transaction is then best rolled back)
     */
    public <M> String publish(Connection connection, Topic<M> topic, M message, Map<String, String> headers) {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(headers, "headers");
        for (Map.Entry<String, String> h : headers.entrySet()) {
            if (ShoveHeaders.isReserved(h.getKey())) {
                throw new IllegalArgumentException(
                        "header '%s' uses the reserved prefix '%s' (outbox for topic '%s'); rename it"
                                .formatted(h.getKey(), ShoveHeaders.PREFIX, topic.name()));
            }
            Objects.requireNonNull(h.getValue(), () -> "header '" + h.getKey() + "' has a null value");
        }
        if (topic.name().length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("topic name '%s' is longer than the outbox's %d characters"
                    .formatted(topic.name(), MAX_NAME_LENGTH));
        }
        byte[] payload;
        try {
            payload = topic.codec().encode(message);
        } catch (Exception e) {
            throw new CodecException(
                    "cannot encode a message for topic '%s' with codec %s: %s"
                            .formatted(topic.name(), topic.codec().name(), e.getMessage()),
                    e);
        }
        String messageId = UUID.randomUUID().toString();
        Map<String, String> all = new HashMap<>(headers);
        all.put(ShoveHeaders.MESSAGE_ID, messageId);
        String key = null;
        Sequencing<M> sequencing = topic.sequencing().orElse(null);
        if (sequencing != null) {
            key = sequencing.keyOf(message);
            if (key.length() > MAX_NAME_LENGTH) {
                throw new IllegalArgumentException(
                        "ordering key '%s…' of topic '%s' is longer than the outbox's %d characters"
                                .formatted(key.substring(0, 40), topic.name(), MAX_NAME_LENGTH));
            }
            all.put(ShoveHeaders.SEQUENCE_KEY, key);
        }
        try {
            Dialect dialect = Dialect.of(connection);
            if (key != null) {
                lockKey(connection, dialect, topic.name(), key);
            }
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + tables.outbox()
                    + " (topic, msg_key, message_id, headers, payload, content_type, created_at, status, attempts)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, '" + PENDING + "', 0)")) {
                insert.setString(1, topic.name());
                insert.setString(2, key);
                insert.setString(3, messageId);
                insert.setString(4, Headers.write(all));
                insert.setBytes(5, payload);
                insert.setString(6, topic.codec().contentType());
                insert.setLong(7, clock.millis());
                insert.executeUpdate();
            }
            if (dialect == Dialect.POSTGRESQL) {
                try (PreparedStatement notify = connection.prepareStatement("SELECT pg_notify(?, '')")) {
                    notify.setString(1, tables.outbox());
                    notify.execute();
                }
            }
        } catch (SQLException e) {
            throw new DatabaseException(
                    "cannot write a message for topic '%s' into outbox table '%s': %s (is the table there? see ShoveTables.createTables)"
                            .formatted(topic.name(), tables.outbox(), e.getMessage()),
                    e);
        }
        return messageId;
    }

    /**
     * Takes the key's row in the keys table, creating it if needed, so that a second transaction writing the key waits
     * for this one to end: its outbox row then gets a higher id, and the relay sees the key's rows in commit order.
     */
    private void lockKey(Connection connection, Dialect dialect, String topic, String key) throws SQLException {
        if (dialect != Dialect.H2) {
            try (PreparedStatement lock = connection.prepareStatement(dialect.lockKey(tables.outboxKeys()))) {
                lock.setString(1, topic);
                lock.setString(2, key);
                lock.executeUpdate();
            }
            return;
        }
        // H2 has no upsert that both waits for a concurrent first insert and increments: update, else insert, and
        // when another transaction inserted the row meanwhile, update again (waiting for it).
        for (int attempt = 0; ; attempt++) {
            try (PreparedStatement update = connection.prepareStatement(dialect.lockKey(tables.outboxKeys()))) {
                update.setString(1, topic);
                update.setString(2, key);
                if (update.executeUpdate() > 0) {
                    return;
                }
            }
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO " + tables.outboxKeys() + " (topic, msg_key, writes) VALUES (?, ?, 1)")) {
                insert.setString(1, topic);
                insert.setString(2, key);
                insert.executeUpdate();
                return;
            } catch (SQLException e) {
                if (attempt > 0 || e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
                    throw e;
                }
            }
        }
    }

    /**
     * {@return how many rows wait for the relay (not counting failed ones)}
     *
     * @param connection a connection to the outbox's database
     * @throws DatabaseException when the table cannot be read
     */
    public long pending(Connection connection) {
        return count(connection, PENDING);
    }

    /**
     * {@return how many rows the relay set aside as failed}
     *
     * @param connection a connection to the outbox's database
     * @throws DatabaseException when the table cannot be read
     */
    public long failedCount(Connection connection) {
        return count(connection, FAILED);
    }

    private long count(Connection connection, String status) {
        try (PreparedStatement s =
                connection.prepareStatement("SELECT COUNT(*) FROM " + tables.outbox() + " WHERE status = ?")) {
            s.setString(1, status);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new DatabaseException(
                    "cannot count the rows of outbox table '%s': %s".formatted(tables.outbox(), e.getMessage()), e);
        }
    }

    /**
     * The rows the relay set aside because the broker refused them for good, oldest first.
     *
     * @param connection a connection to the outbox's database
     * @param limit at most this many
     * @return the failed rows, with their reasons
     * @throws DatabaseException when the table cannot be read
     */
    public List<FailedMessage> failed(Connection connection, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, not " + limit);
        }
        String sql = "SELECT id, topic, msg_key, message_id, headers, attempts, last_error, created_at, failed_at FROM "
                + tables.outbox() + " WHERE status = '" + FAILED + "' ORDER BY id";
        try (PreparedStatement s = connection.prepareStatement(sql)) {
            s.setMaxRows(limit);
            List<FailedMessage> failed = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next() && failed.size() < limit) {
                    String reason = rs.getString(7);
                    long failedAt = rs.getLong(9);
                    failed.add(new FailedMessage(
                            rs.getLong(1),
                            rs.getString(2),
                            rs.getString(3),
                            rs.getString(4),
                            Headers.read(rs.getString(5)),
                            rs.getInt(6),
                            reason == null ? "" : reason,
                            Instant.ofEpochMilli(rs.getLong(8)),
                            Instant.ofEpochMilli(failedAt)));
                }
            }
            return failed;
        } catch (SQLException e) {
            throw new DatabaseException(
                    "cannot read the failed rows of outbox table '%s': %s".formatted(tables.outbox(), e.getMessage()),
                    e);
        }
    }

    /**
     * Puts a failed row back for the relay: it keeps its message id and its place among its key's messages (rows of
     * its key written after it and not yet published wait for it again).
     *
     * @param connection a connection to the outbox's database (auto-commit, or commit it yourself)
     * @param id the row's {@link FailedMessage#id()}
     * @return whether a failed row with that id was there
     * @throws DatabaseException when the table cannot be written
     */
    public boolean retry(Connection connection, long id) {
        return retry(connection, id, false) > 0;
    }

    /**
     * Puts every failed row back for the relay; see {@link #retry(Connection, long)}.
     *
     * @param connection a connection to the outbox's database (auto-commit, or commit it yourself)
     * @return how many rows were put back
     * @throws DatabaseException when the table cannot be written
     */
    public int retryAll(Connection connection) {
        return retry(connection, 0, true);
    }

    private int retry(Connection connection, long id, boolean all) {
        String sql = "UPDATE " + tables.outbox() + " SET status = '" + PENDING + "', failed_at = NULL WHERE status = '"
                + FAILED + "'" + (all ? "" : " AND id = ?");
        try (PreparedStatement s = connection.prepareStatement(sql)) {
            if (!all) {
                s.setLong(1, id);
            }
            return s.executeUpdate();
        } catch (SQLException e) {
            throw new DatabaseException(
                    "cannot put failed rows of outbox table '%s' back: %s".formatted(tables.outbox(), e.getMessage()),
                    e);
        }
    }
}
