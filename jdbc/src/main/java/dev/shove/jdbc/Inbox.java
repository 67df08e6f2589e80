package dev.shove.jdbc;

import dev.shove.BatchMessageHandler;
import dev.shove.BatchOutcome;
import dev.shove.Envelope;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The idempotent inbox: wraps a handler so that it runs in a JDBC transaction that also records (consumer group,
 * message id) in the inbox table. A redelivered message whose id the group already recorded is acknowledged without
 * running the handler; the record and the handler's own writes commit together (when the outcome is {@link
 * Outcome#ack()}) or roll back together (any other outcome, an exception, a crash). So a message changes the database
 * exactly once, however often the broker delivers it.
 *
 * <p>The message id is the {@value ShoveHeaders#MESSAGE_ID} header every shove publisher (and the outbox) writes; a
 * message without one is rejected with a reason (the inbox cannot tell its copies apart). Two deliveries of one id at
 * once: the second waits on the first one's record and then acks as a duplicate, or runs if the first rolled back.
 *
 * <p>Ids are kept for a {@link Builder#retention retention} ({@value #DEFAULT_RETENTION_DAYS} days by default), which
 * must be longer than any redelivery window (the longest hold tier times the retries, the broker's redelivery of
 * unacknowledged messages); a background thread ({@code shove-inbox-cleanup-<table>}) deletes older ids every {@link
 * Builder#cleanupInterval cleanup interval}. Thread-safe; {@link #close()} stops the cleanup and is idempotent.
 *
 * <p>Replies ({@link Outcome#reply}) of an inbox handler are published by the engine after the commit: a crash in
 * between loses them, because the redelivery is a duplicate. Write follow-up messages with the {@link Outbox} on the
 * handler's connection instead; they then commit with the record.
 *
 * <pre>{@code
 * Inbox inbox = Inbox.builder(dataSource).build();
 * group.register(ORDERS, () -> inbox.handler("billing", (order, meta, app, connection) -> {
 *     app.ledger().credit(connection, order.orderId(), order.cents());
 *     return Outcome.ack();
 * }));
 * }</pre>
 *
 * @since 0.1.0
 */
public final class Inbox implements AutoCloseable {
    /** How many days an id is kept by default. */
    public static final int DEFAULT_RETENTION_DAYS = 7;
    /** How long an id is kept by default. */
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(DEFAULT_RETENTION_DAYS);
    /** How often expired ids are deleted by default. */
    public static final Duration DEFAULT_CLEANUP_INTERVAL = Duration.ofHours(1);

    private static final Logger log = LoggerFactory.getLogger(Inbox.class);

    private final DataSource dataSource;
    private final ShoveTables tables;
    private final Duration retention;
    private final Duration cleanupInterval;
    private final Clock clock;
    private final String insert;
    private final Object lock = new Object();
    private boolean closed;
    private @Nullable Thread cleaner;

    private Inbox(Builder b) {
        this.dataSource = b.dataSource;
        this.tables = b.tables;
        this.retention = b.retention;
        this.cleanupInterval = b.cleanupInterval;
        this.clock = b.clock;
        this.insert = "INSERT INTO " + tables.inbox() + " (consumer_group, message_id, recorded_at) VALUES (?, ?, ?)";
    }

    /**
     * {@return a builder for an inbox in the database behind {@code dataSource}}
     *
     * @param dataSource the database; each handled message takes one connection for its transaction
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** {@return the tables this inbox uses} */
    public ShoveTables tables() {
        return tables;
    }

    /**
     * Wraps {@code handler} so that it runs at most once per message id for {@code group}.
     *
     * @param group the consumer group's name (ids are recorded per group: two groups each handle the message once)
     * @param handler the handler, which writes on the connection it is given
     * @param <T> the message type
     * @param <C> the context type
     * @return a handler to register on the group
     */
    public <T, C> MessageHandler<T, C> handler(String group, TransactionalHandler<T, C> handler) {
        checkGroup(group);
        Objects.requireNonNull(handler, "handler");
        return (message, metadata, context) -> handle(group, handler, message, metadata, context);
    }

    /**
     * Wraps a batch handler: in one transaction the batch's ids are recorded, ids recorded before are acked without
     * reaching the handler, and the handler gets the rest. The transaction commits when the handler acks all of them;
     * otherwise it rolls back, and a message the handler acked is retried along with the others (its writes were
     * rolled back too).
     *
     * @param group the consumer group's name
     * @param handler the batch handler, which writes on the connection it is given
     * @param <T> the message type
     * @param <C> the context type
     * @return a batch handler to register on the group
     */
    public <T, C> BatchMessageHandler<T, C> batchHandler(String group, TransactionalBatchHandler<T, C> handler) {
        checkGroup(group);
        Objects.requireNonNull(handler, "handler");
        return (batch, context) -> handleBatch(group, handler, batch, context);
    }

    private static void checkGroup(String group) {
        Objects.requireNonNull(group, "group");
        if (group.isBlank() || group.length() > Outbox.MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("inbox group name must be 1 to 255 characters, not '" + group + "'");
        }
    }

    private static Outcome noId(MessageMetadata metadata) {
        return Outcome.reject("the message has no " + ShoveHeaders.MESSAGE_ID + " header, so the inbox cannot tell its"
                + " copies apart (topic '" + metadata.topic() + "')");
    }

    private <T, C> Outcome handle(
            String group, TransactionalHandler<T, C> handler, T message, MessageMetadata metadata, C context)
            throws Exception {
        Optional<String> id = metadata.messageId();
        if (id.isEmpty()) {
            return noId(metadata);
        }
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            boolean done = false;
            try {
                if (!record(c, group, id.get())) {
                    c.rollback();
                    done = true;
                    log.debug(
                            "inbox '{}': message {} of topic '{}' was handled before; acknowledged",
                            group,
                            id.get(),
                            metadata.topic());
                    return Outcome.ack();
                }
                Outcome outcome = Objects.requireNonNull(
                        handler.handle(message, metadata, context, c), "the inbox handler returned null");
                if (outcome.isAck()) {
                    c.commit();
                } else {
                    c.rollback();
                }
                done = true;
                return outcome;
            } finally {
                if (!done) {
                    rollback(c);
                }
                c.setAutoCommit(autoCommit);
            }
        }
    }

    private <T, C> BatchOutcome handleBatch(
            String group, TransactionalBatchHandler<T, C> handler, List<Envelope<T>> batch, C context)
            throws Exception {
        Outcome[] outcomes = new Outcome[batch.size()];
        List<Integer> candidates = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            if (batch.get(i).metadata().messageId().isEmpty()) {
                outcomes[i] = noId(batch.get(i).metadata());
            } else {
                candidates.add(i);
            }
        }
        if (candidates.isEmpty()) {
            return BatchOutcome.each(List.of(outcomes));
        }
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            boolean done = false;
            try {
                Set<String> seen = recorded(
                        c,
                        group,
                        candidates.stream()
                                .map(i -> batch.get(i).metadata().messageId().orElseThrow())
                                .toList());
                List<Integer> fresh = new ArrayList<>();
                Set<String> inBatch = new HashSet<>();
                for (int i : candidates) {
                    String id = batch.get(i).metadata().messageId().orElseThrow();
                    if (seen.contains(id) || !inBatch.add(id)) {
                        outcomes[i] = Outcome.ack(); // handled before, or twice in this batch
                    } else {
                        fresh.add(i);
                    }
                }
                if (fresh.isEmpty()) {
                    c.rollback();
                    done = true;
                    return BatchOutcome.each(List.of(outcomes));
                }
                try (PreparedStatement s = c.prepareStatement(insert)) {
                    long now = clock.millis();
                    for (int i : fresh) {
                        s.setString(1, group);
                        s.setString(2, batch.get(i).metadata().messageId().orElseThrow());
                        s.setLong(3, now);
                        s.addBatch();
                    }
                    s.executeBatch();
                }
                List<Envelope<T>> handed = fresh.stream().map(batch::get).toList();
                BatchOutcome result = Objects.requireNonNull(
                        handler.handle(handed, context, c), "the inbox batch handler returned null");
                List<Outcome> perFresh = result.uniform().isPresent()
                        ? Collections.nCopies(fresh.size(), result.uniform().get())
                        : result.perMessage();
                if (perFresh.size() != fresh.size()) {
                    throw new IllegalStateException("the inbox batch handler returned " + perFresh.size()
                            + " outcomes for " + fresh.size() + " messages");
                }
                boolean allAck = perFresh.stream().allMatch(Outcome::isAck);
                if (allAck) {
                    c.commit();
                } else {
                    c.rollback();
                }
                done = true;
                for (int j = 0; j < fresh.size(); j++) {
                    Outcome o = perFresh.get(j);
                    outcomes[fresh.get(j)] = allAck || !o.isAck() ? o : Outcome.retry();
                }
                return BatchOutcome.each(List.of(outcomes));
            } finally {
                if (!done) {
                    rollback(c);
                }
                c.setAutoCommit(autoCommit);
            }
        }
    }

    /** Records the id; {@code false} when the group recorded it before (a duplicate). */
    private boolean record(Connection c, String group, String messageId) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(insert)) {
            s.setString(1, group);
            s.setString(2, messageId);
            s.setLong(3, clock.millis());
            s.executeUpdate();
            return true;
        } catch (SQLException e) {
            if (isDuplicate(e)) {
                return false;
            }
            throw new DatabaseException(
                    "inbox '%s' cannot record message %s in table '%s': %s (is the table there? see ShoveTables.createTables)"
                            .formatted(group, messageId, tables.inbox(), e.getMessage()),
                    e);
        }
    }

    private Set<String> recorded(Connection c, String group, List<String> ids) throws SQLException {
        Set<String> seen = new HashSet<>();
        String in = String.join(", ", Collections.nCopies(ids.size(), "?"));
        try (PreparedStatement s = c.prepareStatement("SELECT message_id FROM " + tables.inbox()
                + " WHERE consumer_group = ? AND message_id IN (" + in + ")")) {
            s.setString(1, group);
            for (int i = 0; i < ids.size(); i++) {
                s.setString(i + 2, ids.get(i));
            }
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    seen.add(rs.getString(1));
                }
            }
        }
        return seen;
    }

    /** A unique-key violation: SQL state class 23 (integrity constraint) on every database shove-jdbc speaks. */
    private static boolean isDuplicate(SQLException e) {
        for (SQLException cur = e; cur != null; cur = cur.getNextException()) {
            String state = cur.getSQLState();
            if (state != null && state.startsWith("23")) {
                return true;
            }
        }
        return false;
    }

    private static void rollback(Connection c) {
        try {
            c.rollback();
        } catch (SQLException e) {
            // the connection is broken; closing it ends the transaction
        }
    }

    /**
     * {@return whether {@code group} recorded {@code messageId} (and it has not expired yet)}
     *
     * @param group the consumer group's name
     * @param messageId a message id
     * @throws DatabaseException when the table cannot be read
     */
    public boolean contains(String group, String messageId) {
        try (Connection c = dataSource.getConnection()) {
            return recorded(c, group, List.of(messageId)).contains(messageId);
        } catch (SQLException e) {
            throw new DatabaseException(
                    "cannot read inbox table '%s': %s".formatted(tables.inbox(), e.getMessage()), e);
        }
    }

    /**
     * Deletes the ids recorded longer ago than the retention; the cleanup thread calls it every cleanup interval.
     *
     * @return how many ids were deleted
     * @throws DatabaseException when the table cannot be written
     */
    public int purgeExpired() {
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement("DELETE FROM " + tables.inbox() + " WHERE recorded_at < ?")) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            s.setLong(1, clock.millis() - retention.toMillis());
            return s.executeUpdate();
        } catch (SQLException e) {
            throw new DatabaseException(
                    "cannot delete expired ids from inbox table '%s': %s".formatted(tables.inbox(), e.getMessage()), e);
        }
    }

    private void startCleaner() {
        Thread t = Thread.ofPlatform()
                .name("shove-inbox-cleanup-" + tables.inbox())
                .daemon(true)
                .unstarted(this::clean);
        cleaner = t;
        t.start();
    }

    private void clean() {
        while (true) {
            try {
                int n = purgeExpired();
                if (n > 0) {
                    log.debug("inbox table '{}': deleted {} expired ids", tables.inbox(), n);
                }
            } catch (RuntimeException e) {
                log.warn("inbox table '{}': cannot delete expired ids: {}", tables.inbox(), e.getMessage());
            }
            synchronized (lock) {
                if (closed) {
                    return;
                }
                try {
                    lock.wait(cleanupInterval.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
                if (closed) {
                    return;
                }
            }
        }
    }

    /** Stops the cleanup thread. Handlers made by this inbox keep working. */
    @Override
    public void close() {
        Thread t;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            lock.notifyAll();
            t = cleaner;
        }
        if (t != null) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * An inbox's settings. Not thread-safe; use once.
     *
     * @since 0.1.0
     */
    public static final class Builder {
        private final DataSource dataSource;
        private ShoveTables tables = ShoveTables.ofDefaults();
        private Duration retention = DEFAULT_RETENTION;
        private Duration cleanupInterval = DEFAULT_CLEANUP_INTERVAL;
        private Clock clock = Clock.systemUTC();

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /**
         * The tables to use; {@link ShoveTables#ofDefaults()} by default.
         *
         * @param tables the table names
         * @return this builder
         */
        public Builder tables(ShoveTables tables) {
            this.tables = Objects.requireNonNull(tables, "tables");
            return this;
        }

        /**
         * How long an id is kept; {@value #DEFAULT_RETENTION_DAYS} days by default. A copy delivered after its id
         * expired runs the handler again, so keep it longer than any redelivery window.
         *
         * @param retention positive
         * @return this builder
         */
        public Builder retention(Duration retention) {
            if (retention.isNegative() || retention.isZero()) {
                throw new IllegalArgumentException("inbox retention must be positive, not " + retention);
            }
            this.retention = retention;
            return this;
        }

        /**
         * How often the cleanup thread deletes expired ids; 1 h by default. {@link Duration#ZERO} starts no thread
         * (call {@link Inbox#purgeExpired()} yourself).
         *
         * @param interval zero, or positive
         * @return this builder
         */
        public Builder cleanupInterval(Duration interval) {
            if (interval.isNegative()) {
                throw new IllegalArgumentException("inbox cleanupInterval must not be negative, not " + interval);
            }
            this.cleanupInterval = interval;
            return this;
        }

        Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /**
         * Checks the inbox table and starts the cleanup thread.
         *
         * @return the inbox; close it to stop the cleanup
         * @throws DatabaseException when the inbox table is missing or has the wrong shape
         */
        public Inbox build() {
            try (Connection c = dataSource.getConnection()) {
                tables.verifyInbox(c);
            } catch (SQLException e) {
                throw new DatabaseException(
                        "cannot connect to inbox table '" + tables.inbox() + "': " + e.getMessage(), e);
            }
            Inbox inbox = new Inbox(this);
            if (!cleanupInterval.isZero()) {
                inbox.startCleaner();
            }
            return inbox;
        }
    }
}
