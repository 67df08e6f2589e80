package dev.shove.jdbc;

import dev.shove.Broker;
import dev.shove.ShoveException;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.spi.OutboundMessage;
import dev.shove.spi.Transport;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves committed outbox rows to the broker: claims a batch, publishes each row with the message id and headers it
 * was written with, and deletes a row only once the broker confirmed it, all in one database transaction, so a crash
 * anywhere before that commit publishes the rows again (at least once, the same message id each time).
 *
 * <p><b>Order.</b> Rows of a sequenced topic are published per key in commit order: a round claims a key only
 * through its oldest pending row, then takes the key's later rows, and publishes them one after the other, each once
 * the one before it was confirmed; the first that fails stops the key for the round. Keys go in parallel. Rows of
 * other topics go in batches, oldest first, with no order promised beyond that.
 *
 * <p><b>Several relays.</b> Any number of application instances may relay one table: on PostgreSQL and MariaDB rows
 * are claimed with {@code FOR UPDATE SKIP LOCKED} (H2 too), so two relays never claim one row (nor one key) at once.
 *
 * <p><b>Waiting.</b> An idle relay polls with a backoff from {@link Builder#pollInterval min to max}; on PostgreSQL it
 * also listens for the outbox's commit notifications and starts at once. When the broker or the database fails, the
 * relay backs off (doubling, up to {@link Builder#maxBackoff}), the rows wait, and nothing is lost. A row the broker
 * refuses for good (a {@link ShoveException} that is not {@link ShoveException#isRetriable() retriable}: too large,
 * the topic refused) is set aside as failed, with its reason, and no longer holds back its key; {@link
 * Outbox#failed(Connection, int)} lists such rows and {@link Outbox#retry(Connection, long)} puts one back.
 *
 * <p><b>Meters</b> (with a {@link Builder#meterRegistry registry}), tagged {@code table}: {@value #PENDING_METER}
 * (rows waiting), {@value #OLDEST_AGE_METER} (the oldest waiting row's age) and {@value #FAILED_METER} (rows set
 * aside), refreshed about once a second by the running relay.
 *
 * <p>The relay publishes through the broker's transport, as the broker's publisher does, because a publisher stamps a
 * fresh message id on every call and the relay must keep the row's. Thread-safe; {@link #close()} stops the relay
 * thread after its current round and is idempotent.
 *
 * <pre>{@code
 * try (OutboxRelay relay = OutboxRelay.builder(dataSource, broker).topics(ORDERS).build().start()) {
 *     ...
 * }
 * }</pre>
 *
 * @since 0.1.0
 */
public final class OutboxRelay implements AutoCloseable {
    /** Gauge: rows waiting in the outbox. */
    public static final String PENDING_METER = "shove.outbox.pending";
    /** Time gauge: how long the oldest waiting row has waited; 0 when none waits. */
    public static final String OLDEST_AGE_METER = "shove.outbox.oldest.age";
    /** Gauge: rows set aside as failed. */
    public static final String FAILED_METER = "shove.outbox.failed";

    /** How many rows a round claims at most, by default. */
    public static final int DEFAULT_BATCH_SIZE = 100;
    /** The shortest wait of an idle relay, by default. */
    public static final Duration DEFAULT_MIN_POLL = Duration.ofMillis(10);
    /** The longest wait of an idle relay, by default. */
    public static final Duration DEFAULT_MAX_POLL = Duration.ofSeconds(1);
    /** The longest backoff after failures, by default. */
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(30);
    /** How long a round waits for the broker to confirm its publishes, by default. */
    public static final Duration DEFAULT_PUBLISH_TIMEOUT = Duration.ofSeconds(30);

    private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);
    private static final Duration METER_REFRESH = Duration.ofSeconds(1);
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
    private static final int MAX_ERROR_LENGTH = 2000;

    /** Where the relay sends a prepared message: the broker's transport, or a test's. */
    interface Sender {
        CompletableFuture<Void> publish(Topic<?> topic, OutboundMessage message);
    }

    private final DataSource dataSource;
    private final Sender sender;
    private final ShoveTables tables;
    private final Map<String, Topic<?>> topics;
    private final int batchSize;
    private final Duration minPoll;
    private final Duration maxPoll;
    private final Duration maxBackoff;
    private final Duration publishTimeout;
    private final @Nullable MeterRegistry registry;
    private final boolean listen;
    private final Clock clock;
    private final String claimUnsequenced;
    private final String claimSequenced;
    private final String claimFollowers;

    private final Object lock = new Object();
    private final AtomicLong pending = new AtomicLong();
    private final AtomicLong oldestMillis = new AtomicLong(-1);
    private final AtomicLong failed = new AtomicLong();
    private final List<Meter> meters = new ArrayList<>();
    private volatile boolean running;
    private boolean closed;
    private @Nullable Thread thread;
    private @Nullable Dialect dialect;
    private long lastRefresh = Long.MIN_VALUE;
    private @Nullable Connection connection; // the relay thread's (or relayOnce's caller's) alone

    private OutboxRelay(Builder b, Sender sender) {
        this.dataSource = b.dataSource;
        this.sender = sender;
        this.tables = b.tables;
        this.topics = Collections.unmodifiableMap(new LinkedHashMap<>(b.topics));
        this.batchSize = b.batchSize;
        this.minPoll = b.minPoll;
        this.maxPoll = b.maxPoll;
        this.maxBackoff = b.maxBackoff;
        this.publishTimeout = b.publishTimeout;
        this.registry = b.registry;
        this.listen = b.listen;
        this.clock = b.clock;
        String columns = "id, topic, msg_key, message_id, headers, payload, content_type, attempts";
        String in = String.join(", ", Collections.nCopies(topics.size(), "?"));
        this.claimUnsequenced = "SELECT " + columns + " FROM " + tables.outbox() + " WHERE status = '" + Outbox.PENDING
                + "' AND msg_key IS NULL AND topic IN (" + in + ") ORDER BY id";
        this.claimSequenced = "SELECT " + columns + " FROM " + tables.outbox() + " o WHERE o.status = '"
                + Outbox.PENDING + "' AND o.msg_key IS NOT NULL AND o.topic IN (" + in
                + ") AND o.id = (SELECT MIN(h.id)"
                + " FROM " + tables.outbox() + " h WHERE h.status = '" + Outbox.PENDING
                + "' AND h.topic = o.topic AND h.msg_key = o.msg_key) ORDER BY o.id";
        this.claimFollowers = "SELECT " + columns + " FROM " + tables.outbox() + " WHERE status = '" + Outbox.PENDING
                + "' AND topic = ? AND msg_key = ? AND id > ? ORDER BY id";
    }

    /**
     * {@return a builder for a relay from the outbox behind {@code dataSource} to {@code broker}}
     *
     * @param dataSource the outbox's database; the relay takes one connection per round (and on PostgreSQL one more,
     *     held while it runs, to listen)
     * @param broker where to publish; the relay does not close it
     */
    public static Builder builder(DataSource dataSource, Broker<?> broker) {
        Objects.requireNonNull(broker, "broker");
        Transport transport = broker.unwrap(Transport.class)
                .orElseThrow(
                        () -> new IllegalArgumentException("broker (" + broker.backendName() + ") has no transport"));
        return new Builder(dataSource, transport::publish);
    }

    static Builder builder(DataSource dataSource, Sender sender) {
        return new Builder(dataSource, sender);
    }

    /**
     * Checks the tables, then starts the relay thread ({@code shove-outbox-relay-<table>}).
     *
     * @return this relay
     * @throws IllegalStateException when it was started or closed before
     * @throws DatabaseException when the outbox tables are missing or have the wrong shape
     */
    public OutboxRelay start() {
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("outbox relay of table '" + tables.outbox() + "' is closed");
            }
            if (thread != null) {
                throw new IllegalStateException("outbox relay of table '" + tables.outbox() + "' is already started");
            }
            try (Connection c = dataSource.getConnection()) {
                dialect = Dialect.of(c);
                tables.verifyOutbox(c);
            } catch (SQLException e) {
                throw new DatabaseException(
                        "cannot connect to outbox table '" + tables.outbox() + "': " + e.getMessage(), e);
            }
            registerMeters();
            running = true;
            Thread t = Thread.ofPlatform()
                    .name("shove-outbox-relay-" + tables.outbox())
                    .daemon(true)
                    .unstarted(this::run);
            thread = t;
            t.start();
        }
        return this;
    }

    /** {@return whether the relay thread runs} */
    public boolean isRunning() {
        return running;
    }

    private void run() {
        Waiter waiter = listen && dialect == Dialect.POSTGRESQL ? new PgListener(dataSource, tables.outbox()) : null;
        Duration idle = minPoll;
        Duration backoff = FIRST_BACKOFF;
        if (waiter != null) {
            waiter.healthy(); // listen before the first round: a commit after that round then wakes the relay
        }
        try {
            while (running) {
                Round round;
                try {
                    refreshMeters(false);
                    round = relayRound();
                } catch (RuntimeException e) {
                    log.warn(
                            "outbox relay of table '{}' failed a round, backing off {}: {}",
                            tables.outbox(),
                            backoff,
                            e.getMessage(),
                            e);
                    pause(waiter, backoff, false);
                    backoff = min(backoff.multipliedBy(2), maxBackoff);
                    continue;
                }
                if (round.retriable() > 0 && round.published() == 0) {
                    log.warn(
                            "outbox relay of table '{}': {} row(s) could not be published, backing off {}: {}",
                            tables.outbox(),
                            round.retriable(),
                            backoff,
                            round.lastError());
                    pause(waiter, backoff, false);
                    backoff = min(backoff.multipliedBy(2), maxBackoff);
                    continue;
                }
                backoff = FIRST_BACKOFF;
                if (round.claimed() > 0) {
                    idle = minPoll;
                    continue; // more may wait: no pause while there is work
                }
                pause(waiter, idle, true);
                idle = min(idle.multipliedBy(2), maxPoll);
            }
        } catch (Error e) {
            log.error("outbox relay of table '{}' stopped: {}", tables.outbox(), e.toString(), e);
            throw e;
        } finally {
            running = false; // isRunning() tells the truth however the loop ended
            if (waiter != null) {
                waiter.close();
            }
            discardConnection();
        }
    }

    /** Waits up to {@code duration}, or less when stopped or (if {@code wakeOnNotify}) when a notification arrives. */
    private void pause(@Nullable Waiter waiter, Duration duration, boolean wakeOnNotify) {
        long deadline = System.nanoTime() + duration.toNanos();
        while (running) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            long slice = Math.min(TimeUnit.NANOSECONDS.toMillis(left) + 1, 200);
            if (waiter != null && waiter.await(slice) && wakeOnNotify) {
                return;
            }
            if (waiter == null || !waiter.healthy()) {
                synchronized (lock) {
                    if (!running) {
                        return;
                    }
                    try {
                        lock.wait(slice);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /**
     * Runs one round on the calling thread: claims up to the batch size of rows, publishes them and settles them.
     * For tests and for applications that drive the relay themselves, instead of {@link #start()}.
     *
     * @return how many rows were published
     * @throws IllegalStateException when the relay was started or closed
     * @throws DatabaseException when the database fails
     */
    public int relayOnce() {
        synchronized (lock) {
            if (closed || thread != null) {
                throw new IllegalStateException("outbox relay of table '" + tables.outbox() + "' is "
                        + (closed ? "closed" : "started: its thread runs the rounds"));
            }
            return relayRound().published();
        }
    }

    record Round(
            int claimed,
            int published,
            int failed,
            int retriable,
            @Nullable String lastError) {}

    private record Row(long id, Topic<?> topic, @Nullable String key, String messageId, OutboundMessage message) {}

    private Round relayRound() {
        Connection c = null;
        try {
            c = connection();
            Round round = relayRound(c);
            c.commit();
            return round;
        } catch (SQLException | RuntimeException e) {
            if (c != null) {
                rollback(c);
            }
            discardConnection(); // it may be broken: the next round opens a new one
            if (e instanceof RuntimeException r) {
                throw r;
            }
            throw new DatabaseException("outbox relay of table '" + tables.outbox() + "' failed: " + e.getMessage(), e);
        }
    }

    /**
     * The relay's own connection, kept from round to round (a pool would hand out one per round just as well; without
     * a pool, a new connection per round would cost more than the round), in read committed: MariaDB's default
     * repeatable read would lock the gaps between claimed rows and make writers wait for the round.
     */
    private Connection connection() throws SQLException {
        Connection c = connection;
        if (c == null) {
            c = dataSource.getConnection();
            try {
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                c.setAutoCommit(false);
            } catch (SQLException e) {
                c.close();
                throw e;
            }
            connection = c;
        }
        return c;
    }

    private void discardConnection() {
        Connection c = connection;
        connection = null;
        if (c != null) {
            try {
                c.rollback();
                c.setAutoCommit(true);
            } catch (SQLException e) {
                // broken: closing it is all that is left
            }
            try {
                c.close();
            } catch (SQLException e) {
                // nothing more to release
            }
        }
    }

    private static void rollback(Connection c) {
        try {
            c.rollback();
        } catch (SQLException e) {
            // the connection is broken; closing it ends the transaction
        }
    }

    private Round relayRound(Connection c) throws SQLException {
        Dialect d = dialect != null ? dialect : Dialect.of(c);
        dialect = d;
        // A chain is one key's rows in id order (or one row of an unsequenced topic): published one after the other,
        // each only once the one before it was confirmed; chains go in parallel.
        List<List<Row>> chains = new ArrayList<>();
        List<Row> heads = new ArrayList<>();
        claim(c, claimSequenced + " LIMIT " + batchSize + d.skipLocked(), batchSize, heads);
        int total = heads.size();
        for (Row head : heads) {
            List<Row> chain = new ArrayList<>();
            chain.add(head);
            if (total < batchSize) {
                total += followers(c, head, batchSize - total, chain);
            }
            chains.add(chain);
        }
        if (total < batchSize) {
            List<Row> free = new ArrayList<>();
            claim(c, claimUnsequenced + " LIMIT " + (batchSize - total) + d.skipLocked(), batchSize - total, free);
            free.forEach(row -> chains.add(List.of(row)));
        }
        if (chains.isEmpty()) {
            return new Round(0, 0, 0, 0, null);
        }
        long deadline = System.nanoTime() + publishTimeout.toNanos();
        Map<Long, Throwable> failures = new java.util.concurrent.ConcurrentHashMap<>();
        Set<Long> confirmed = java.util.concurrent.ConcurrentHashMap.newKeySet();
        List<CompletableFuture<Void>> running = new ArrayList<>(chains.size());
        for (List<Row> chain : chains) {
            running.add(publishChain(chain, 0, deadline, confirmed, failures));
        }
        try {
            CompletableFuture.allOf(running.toArray(CompletableFuture[]::new))
                    .get(publishTimeout.toNanos() + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // each row's own result (or its absence) decides below
        }
        List<Long> published = new ArrayList<>();
        List<Row> refused = new ArrayList<>();
        List<String> refusedReasons = new ArrayList<>();
        List<Row> later = new ArrayList<>();
        String lastError = null;
        for (List<Row> chain : chains) {
            for (Row row : chain) {
                Throwable failure = failures.get(row.id());
                if (confirmed.contains(row.id())) {
                    published.add(row.id());
                } else if (failure == null) {
                    break; // not tried: an earlier row of its key failed; the rest of the chain waits
                } else if (isPermanent(failure)) {
                    refused.add(row);
                    refusedReasons.add(describe(failure));
                    log.warn(
                            "outbox row {} (topic '{}', message id {}) was refused by the broker and set aside as"
                                    + " failed: {}",
                            row.id(),
                            row.topic().name(),
                            row.messageId(),
                            describe(failure));
                } else {
                    later.add(row);
                    lastError = describe(failure);
                }
            }
        }
        if (!published.isEmpty()) {
            try (PreparedStatement delete = c.prepareStatement("DELETE FROM " + tables.outbox() + " WHERE id = ?")) {
                for (long id : published) {
                    delete.setLong(1, id);
                    delete.addBatch();
                }
                delete.executeBatch();
            }
        }
        if (!refused.isEmpty()) {
            try (PreparedStatement fail = c.prepareStatement("UPDATE " + tables.outbox() + " SET status = '"
                    + Outbox.FAILED + "', attempts = attempts + 1, last_error = ?, failed_at = ? WHERE id = ?")) {
                for (int i = 0; i < refused.size(); i++) {
                    fail.setString(1, truncate(refusedReasons.get(i), MAX_ERROR_LENGTH));
                    fail.setLong(2, clock.millis());
                    fail.setLong(3, refused.get(i).id());
                    fail.addBatch();
                }
                fail.executeBatch();
            }
        }
        if (!later.isEmpty()) {
            try (PreparedStatement attempt = c.prepareStatement(
                    "UPDATE " + tables.outbox() + " SET attempts = attempts + 1, last_error = ? WHERE id = ?")) {
                for (Row row : later) {
                    attempt.setString(1, truncate(lastError, MAX_ERROR_LENGTH));
                    attempt.setLong(2, row.id());
                    attempt.addBatch();
                }
                attempt.executeBatch();
            }
        }
        int claimed = chains.stream().mapToInt(List::size).sum();
        return new Round(claimed, published.size(), refused.size(), later.size(), lastError);
    }

    /** Publishes {@code chain} from {@code i} on, each row once the one before it was confirmed; stops at a failure. */
    private CompletableFuture<Void> publishChain(
            List<Row> chain, int i, long deadline, Set<Long> confirmed, Map<Long, Throwable> failures) {
        if (i == chain.size()) {
            return CompletableFuture.completedFuture(null);
        }
        Row row = chain.get(i);
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            failures.put(row.id(), new TimeoutException("the broker did not confirm within " + publishTimeout));
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> sent;
        try {
            sent = sender.publish(row.topic(), row.message());
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.thenApply(ok -> ok) // a copy: the timeout below must not complete the transport's own future
                .orTimeout(left, TimeUnit.NANOSECONDS)
                .handle((ok, failure) -> {
                    if (failure == null) {
                        confirmed.add(row.id());
                        return true;
                    }
                    Throwable cause = failure;
                    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                            && cause.getCause() != null) {
                        cause = cause.getCause();
                    }
                    failures.put(
                            row.id(),
                            cause instanceof TimeoutException
                                    ? new TimeoutException("the broker did not confirm within " + publishTimeout)
                                    : cause);
                    return false;
                })
                .thenCompose(ok -> ok
                        ? publishChain(chain, i + 1, deadline, confirmed, failures)
                        : CompletableFuture.completedFuture(null));
    }

    /**
     * Claims the pending rows of {@code head}'s key after it, in id order, up to {@code max}, into {@code chain}. No
     * other relay can hold one of them: a relay claims a key's row only as the key's oldest pending row, and this
     * relay holds that one.
     *
     * @return how many rows were added
     */
    private int followers(Connection c, Row head, int max, List<Row> chain) throws SQLException {
        int before = chain.size();
        try (PreparedStatement s = c.prepareStatement(claimFollowers + " LIMIT " + max + " FOR UPDATE")) {
            s.setString(1, head.topic().name());
            s.setString(2, Objects.requireNonNull(head.key()));
            s.setLong(3, head.id());
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next() && chain.size() - before < max) {
                    chain.add(row(rs));
                }
            }
        }
        return chain.size() - before;
    }

    private void claim(Connection c, String sql, int max, List<Row> into) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            int i = 1;
            for (String topic : topics.keySet()) {
                s.setString(i++, topic);
            }
            try (ResultSet rs = s.executeQuery()) {
                int n = 0;
                while (rs.next() && n < max) {
                    into.add(row(rs));
                    n++;
                }
            }
        }
    }

    private Row row(ResultSet rs) throws SQLException {
        long id = rs.getLong(1);
        Topic<?> topic = Objects.requireNonNull(topics.get(rs.getString(2)));
        String key = rs.getString(3);
        String messageId = rs.getString(4);
        Map<String, String> headers = Headers.read(rs.getString(5));
        byte[] payload = rs.getBytes(6);
        String contentType = rs.getString(7);
        String routingKey = null;
        int shard = -1;
        if (topic.sequencing().isPresent()) {
            routingKey = key != null ? key : headers.get(ShoveHeaders.SEQUENCE_KEY);
            if (routingKey != null) {
                shard = topic.sequencing().get().shardOf(routingKey);
            }
        }
        return new Row(
                id, topic, key, messageId, new OutboundMessage(payload, headers, routingKey, shard, contentType));
    }

    private static @Nullable String truncate(@Nullable String text, int max) {
        if (text == null || text.length() <= max) {
            return text;
        }
        return text.substring(0, max - 1) + "…";
    }

    private static boolean isPermanent(Throwable failure) {
        return (failure instanceof ShoveException s && !s.isRetriable()) || failure instanceof IllegalArgumentException;
    }

    private static String describe(Throwable failure) {
        String message = failure.getMessage();
        return failure.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    private void registerMeters() {
        if (registry == null) {
            return;
        }
        String table = tables.outbox();
        meters.add(Gauge.builder(PENDING_METER, pending, AtomicLong::get)
                .description("Rows waiting in the outbox for the relay")
                .tag("table", table)
                .register(registry));
        meters.add(TimeGauge.builder(OLDEST_AGE_METER, this, TimeUnit.MILLISECONDS, OutboxRelay::oldestAgeMillis)
                .description("How long the oldest row waiting in the outbox has waited")
                .tag("table", table)
                .register(registry));
        meters.add(Gauge.builder(FAILED_METER, failed, AtomicLong::get)
                .description("Outbox rows set aside because the broker refused them")
                .tag("table", table)
                .register(registry));
        refreshMeters(true);
    }

    private double oldestAgeMillis() {
        long oldest = oldestMillis.get();
        return oldest < 0 ? 0 : Math.max(0, clock.millis() - oldest);
    }

    private void refreshMeters(boolean force) {
        if (registry == null) {
            return;
        }
        long now = System.nanoTime();
        if (!force && lastRefresh != Long.MIN_VALUE && now - lastRefresh < METER_REFRESH.toNanos()) {
            return;
        }
        lastRefresh = now;
        try (PreparedStatement s = connection()
                .prepareStatement(
                        "SELECT status, COUNT(*), MIN(created_at) FROM " + tables.outbox() + " GROUP BY status")) {
            long p = 0;
            long f = 0;
            long oldest = -1;
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    if (Outbox.PENDING.equals(rs.getString(1))) {
                        p = rs.getLong(2);
                        oldest = rs.getLong(3);
                    } else if (Outbox.FAILED.equals(rs.getString(1))) {
                        f = rs.getLong(2);
                    }
                }
            }
            pending.set(p);
            failed.set(f);
            oldestMillis.set(p == 0 ? -1 : oldest);
            connection().commit();
        } catch (SQLException e) {
            discardConnection();
            log.debug("outbox relay of table '{}' cannot refresh its meters: {}", tables.outbox(), e.getMessage());
        }
    }

    /** Stops the relay thread after its current round (waiting up to the publish timeout) and removes its meters. */
    @Override
    public void close() {
        Thread t;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            running = false;
            t = thread;
            lock.notifyAll();
        }
        if (t != null) {
            try {
                t.join(publishTimeout.plusSeconds(5).toMillis());
                if (t.isAlive()) {
                    t.interrupt();
                    t.join(5_000);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (t == null || !t.isAlive()) {
            discardConnection(); // relayOnce's, when the relay was never started
        }
        if (registry != null) {
            meters.forEach(registry::remove);
        }
    }

    /** How the relay thread waits between rounds. */
    interface Waiter extends AutoCloseable {
        /** Waits up to {@code millis}; {@code true} when a notification arrived. */
        boolean await(long millis);

        /** {@return whether it can be waited on (a listener whose connection broke cannot)} */
        boolean healthy();

        @Override
        void close();
    }

    /**
     * PostgreSQL's {@code LISTEN} on the outbox's channel, over the driver's {@code PGConnection.getNotifications}
     * (reached by reflection: shove-jdbc has no compile-time dependency on any driver). A broken connection is
     * reopened at the next wait.
     */
    static final class PgListener implements Waiter {
        private final DataSource dataSource;
        private final String channel;
        private @Nullable Connection connection;
        private java.lang.reflect.@Nullable Method getNotifications;
        private @Nullable Object pgConnection;
        private long retryAt;

        PgListener(DataSource dataSource, String channel) {
            this.dataSource = dataSource;
            this.channel = channel;
        }

        private boolean open() {
            if (connection != null) {
                return true;
            }
            if (System.nanoTime() < retryAt) {
                return false;
            }
            try {
                Connection c = dataSource.getConnection();
                try {
                    c.setAutoCommit(true);
                    Class<?> type = Class.forName(
                            "org.postgresql.PGConnection", false, c.getClass().getClassLoader());
                    Object pg = c.unwrap(type);
                    java.lang.reflect.Method m = type.getMethod("getNotifications", int.class);
                    try (var s = c.createStatement()) {
                        s.execute("LISTEN \"" + channel + "\"");
                    }
                    connection = c;
                    pgConnection = pg;
                    getNotifications = m;
                    return true;
                } catch (ReflectiveOperationException | SQLException | RuntimeException e) {
                    c.close();
                    throw e;
                }
            } catch (ReflectiveOperationException | SQLException | RuntimeException e) {
                log.debug("outbox relay cannot listen on channel '{}', polling only: {}", channel, e.toString());
                retryAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                return false;
            }
        }

        @Override
        public boolean healthy() {
            return connection != null || open();
        }

        @Override
        public boolean await(long millis) {
            if (!open()) {
                return false;
            }
            try {
                Object notes = Objects.requireNonNull(getNotifications).invoke(pgConnection, (int) Math.max(1, millis));
                return notes != null && java.lang.reflect.Array.getLength(notes) > 0;
            } catch (ReflectiveOperationException | RuntimeException e) {
                log.debug("outbox relay's listener on channel '{}' broke, reopening: {}", channel, e.toString());
                close();
                return false;
            }
        }

        @Override
        public void close() {
            Connection c = connection;
            connection = null;
            pgConnection = null;
            getNotifications = null;
            if (c != null) {
                try {
                    c.close();
                } catch (SQLException e) {
                    // nothing more to release
                }
            }
        }
    }

    /**
     * A relay's settings. Not thread-safe; use once.
     *
     * @since 0.1.0
     */
    public static final class Builder {
        private final DataSource dataSource;
        private final Sender sender;
        private ShoveTables tables = ShoveTables.ofDefaults();
        private final Map<String, Topic<?>> topics = new LinkedHashMap<>();
        private int batchSize = DEFAULT_BATCH_SIZE;
        private Duration minPoll = DEFAULT_MIN_POLL;
        private Duration maxPoll = DEFAULT_MAX_POLL;
        private Duration maxBackoff = DEFAULT_MAX_BACKOFF;
        private Duration publishTimeout = DEFAULT_PUBLISH_TIMEOUT;
        private @Nullable MeterRegistry registry;
        private boolean listen = true;
        private Clock clock = Clock.systemUTC();

        private Builder(DataSource dataSource, Sender sender) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            this.sender = sender;
        }

        /**
         * The tables to relay from; {@link ShoveTables#ofDefaults()} by default.
         *
         * @param tables the table names
         * @return this builder
         */
        public Builder tables(ShoveTables tables) {
            this.tables = Objects.requireNonNull(tables, "tables");
            return this;
        }

        /**
         * The topics this relay publishes; at least one. Rows of other topics are left for a relay that knows them.
         *
         * @param topics the topics, as the application declared them (their codec's content type and ordering apply)
         * @return this builder
         * @throws IllegalArgumentException when two topics share a name
         */
        public Builder topics(Topic<?>... topics) {
            for (Topic<?> topic : topics) {
                Topic<?> before = this.topics.putIfAbsent(topic.name(), topic);
                if (before != null && before != topic) {
                    throw new IllegalArgumentException("two topics named '" + topic.name() + "' given to the relay");
                }
            }
            return this;
        }

        /**
         * How many rows one round claims at most; {@value #DEFAULT_BATCH_SIZE} by default.
         *
         * @param batchSize at least 1
         * @return this builder
         */
        public Builder batchSize(int batchSize) {
            if (batchSize < 1) {
                throw new IllegalArgumentException("batchSize must be at least 1, not " + batchSize);
            }
            this.batchSize = batchSize;
            return this;
        }

        /**
         * How long an idle relay waits before it looks again: {@code min} after a round that found work, doubling to
         * {@code max} while none comes; 10 ms to 1 s by default. On PostgreSQL a commit notification ends the wait.
         *
         * @param min the first wait, positive
         * @param max the longest wait, at least {@code min}
         * @return this builder
         */
        public Builder pollInterval(Duration min, Duration max) {
            if (min.isNegative() || min.isZero() || max.compareTo(min) < 0) {
                throw new IllegalArgumentException(
                        "pollInterval needs 0 < min <= max, not min " + min + " and max " + max);
            }
            this.minPoll = min;
            this.maxPoll = max;
            return this;
        }

        /**
         * The longest wait after failed rounds (the broker or the database down); the wait starts at 100 ms and
         * doubles; 30 s by default.
         *
         * @param maxBackoff positive
         * @return this builder
         */
        public Builder maxBackoff(Duration maxBackoff) {
            if (maxBackoff.isNegative() || maxBackoff.isZero()) {
                throw new IllegalArgumentException("maxBackoff must be positive, not " + maxBackoff);
            }
            this.maxBackoff = maxBackoff;
            return this;
        }

        /**
         * How long a round waits for the broker to confirm its publishes; unconfirmed rows stay and are tried again
         * (possibly published twice, with one message id); 30 s by default.
         *
         * @param publishTimeout positive
         * @return this builder
         */
        public Builder publishTimeout(Duration publishTimeout) {
            if (publishTimeout.isNegative() || publishTimeout.isZero()) {
                throw new IllegalArgumentException("publishTimeout must be positive, not " + publishTimeout);
            }
            this.publishTimeout = publishTimeout;
            return this;
        }

        /**
         * Where to register the outbox meters; none by default.
         *
         * @param registry the registry
         * @return this builder
         */
        public Builder meterRegistry(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * Whether to listen for PostgreSQL commit notifications (one connection held while the relay runs); on by
         * default, ignored on other databases.
         *
         * @param listen whether to listen
         * @return this builder
         */
        public Builder listen(boolean listen) {
            this.listen = listen;
            return this;
        }

        Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /**
         * {@return the relay, not started yet}
         *
         * @throws IllegalStateException when no topic was given
         */
        public OutboxRelay build() {
            if (topics.isEmpty()) {
                throw new IllegalStateException("an outbox relay needs at least one topic: call topics(...)");
            }
            return new OutboxRelay(this, sender);
        }
    }
}
