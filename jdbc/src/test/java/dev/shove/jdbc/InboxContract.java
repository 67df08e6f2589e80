package dev.shove.jdbc;

import static dev.shove.jdbc.Fixtures.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.shove.BatchMessageHandler;
import dev.shove.BatchOutcome;
import dev.shove.Broker;
import dev.shove.Envelope;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.jdbc.Fixtures.OrderPaid;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import dev.shove.spi.Transport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The inbox's contract, run on each database by a subclass. */
abstract class InboxContract {
    abstract TestDatabase database();

    DataSource dataSource;
    ShoveTables tables;
    String ledger;
    Inbox inbox;
    final AtomicInteger calls = new AtomicInteger();

    @BeforeEach
    void setUp() throws SQLException {
        dataSource = database().dataSource();
        tables = TestDatabase.uniqueTables();
        tables.createTables(dataSource);
        ledger = tables.inbox() + "_ledger";
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + ledger + " (order_id VARCHAR(64) NOT NULL, cents BIGINT NOT NULL)");
        }
        inbox = Inbox.builder(dataSource).tables(tables).build();
    }

    @AfterEach
    void tearDown() {
        inbox.close();
    }

    /** The application's handler: one ledger row per order, on the inbox's connection. */
    Outcome credit(OrderPaid order, Connection connection) throws SQLException {
        calls.incrementAndGet();
        try (PreparedStatement s = connection.prepareStatement("INSERT INTO " + ledger + " VALUES (?, ?)")) {
            s.setString(1, order.orderId());
            s.setLong(2, order.cents());
            s.executeUpdate();
        }
        return Outcome.ack();
    }

    MessageHandler<OrderPaid, NoContext> crediting() {
        return inbox.handler("billing", (order, meta, ctx, c) -> credit(order, c));
    }

    static MessageMetadata delivery(String messageId) {
        return MessageMetadata.of("orders", UUID.randomUUID().toString(), Map.of(ShoveHeaders.MESSAGE_ID, messageId));
    }

    long ledgerRows() throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT COUNT(*) FROM " + ledger)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    long ledgerSum() throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT COALESCE(SUM(cents), 0) FROM " + ledger)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    @DisplayName("a redelivered message id is acked without running the handler; its effect is applied once")
    void duplicateIsAckedWithoutRunning() throws Exception {
        MessageHandler<OrderPaid, NoContext> handler = crediting();
        MessageMetadata meta = delivery("id-1");
        assertThat(handler.handle(new OrderPaid("o-1", 100), meta, NoContext.INSTANCE))
                .isEqualTo(Outcome.ack());
        assertThat(handler.handle(new OrderPaid("o-1", 100), delivery("id-1"), NoContext.INSTANCE))
                .isEqualTo(Outcome.ack());
        assertThat(calls).hasValue(1);
        assertThat(ledgerRows()).isOne();
        assertThat(inbox.contains("billing", "id-1")).isTrue();
        assertThat(inbox.contains("shipping", "id-1")).isFalse();
    }

    @Test
    @DisplayName("ids are recorded per group: another group runs its handler for the same message")
    void groupsAreSeparate() throws Exception {
        crediting().handle(new OrderPaid("o-1", 100), delivery("id-1"), NoContext.INSTANCE);
        inbox.<OrderPaid, NoContext>handler("shipping", (order, meta, ctx, c) -> credit(order, c))
                .handle(new OrderPaid("o-1", 100), delivery("id-1"), NoContext.INSTANCE);
        assertThat(calls).hasValue(2);
    }

    @Test
    @DisplayName("a handler that throws rolls back its writes and the record, so the redelivery runs it again")
    void throwRollsBackTogether() throws Exception {
        MessageHandler<OrderPaid, NoContext> failing = inbox.handler("billing", (order, meta, ctx, c) -> {
            credit(order, c);
            throw new IllegalStateException("downstream failed");
        });
        assertThatThrownBy(() -> failing.handle(new OrderPaid("o-1", 100), delivery("id-1"), NoContext.INSTANCE))
                .hasMessage("downstream failed");
        assertThat(ledgerRows()).isZero();
        assertThat(inbox.contains("billing", "id-1")).isFalse();
        crediting().handle(new OrderPaid("o-1", 100), delivery("id-1"), NoContext.INSTANCE);
        assertThat(ledgerRows()).isOne();
    }

    @Test
    @DisplayName("an outcome other than ack rolls back the handler's writes and the record")
    void nonAckRollsBack() throws Exception {
        MessageHandler<OrderPaid, NoContext> retrying = inbox.handler("billing", (order, meta, ctx, c) -> {
            credit(order, c);
            return Outcome.retry();
        });
        assertThat(retrying.handle(new OrderPaid("o-1", 100), delivery("id-1"), NoContext.INSTANCE))
                .isEqualTo(Outcome.retry());
        assertThat(ledgerRows()).isZero();
        assertThat(inbox.contains("billing", "id-1")).isFalse();
    }

    @Test
    @DisplayName("a message without a message id is rejected with a reason, and the handler does not run")
    void noMessageIdIsRejected() throws Exception {
        Outcome outcome = crediting()
                .handle(new OrderPaid("o-1", 100), MessageMetadata.of("orders", "d-1", Map.of()), NoContext.INSTANCE);
        assertThat(outcome.isReject()).isTrue();
        assertThat(outcome.reason().orElseThrow()).contains(ShoveHeaders.MESSAGE_ID);
        assertThat(calls).hasValue(0);
    }

    @Test
    @DisplayName("two deliveries of one id at once: the second waits for the first and is acked as a duplicate")
    void concurrentDuplicatesRunOnce() throws Exception {
        CountDownLatch inHandler = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        MessageHandler<OrderPaid, NoContext> slow = inbox.handler("billing", (order, meta, ctx, c) -> {
            inHandler.countDown();
            release.await(10, TimeUnit.SECONDS);
            return credit(order, c);
        });
        var first = CompletableFuture.supplyAsync(() -> call(slow, "id-1"));
        assertThat(inHandler.await(10, TimeUnit.SECONDS)).isTrue();
        var second = CompletableFuture.supplyAsync(() -> call(slow, "id-1"));
        release.countDown();
        assertThat(first.get(20, TimeUnit.SECONDS)).isEqualTo(Outcome.ack());
        assertThat(second.get(20, TimeUnit.SECONDS)).isEqualTo(Outcome.ack());
        assertThat(calls).hasValue(1);
        assertThat(ledgerRows()).isOne();
    }

    private static Outcome call(MessageHandler<OrderPaid, NoContext> handler, String id) {
        try {
            return handler.handle(new OrderPaid("o-1", 100), delivery(id), NoContext.INSTANCE);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    @DisplayName("ids older than the retention are deleted; younger ones stay")
    void retentionPurgesOldIds() throws Exception {
        Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
        try (Inbox then = Inbox.builder(dataSource)
                .tables(tables)
                .cleanupInterval(Duration.ZERO)
                .clock(Clock.fixed(t0, ZoneOffset.UTC))
                .build()) {
            then.<OrderPaid, NoContext>handler("billing", (order, meta, ctx, c) -> credit(order, c))
                    .handle(new OrderPaid("o-1", 1), delivery("old"), NoContext.INSTANCE);
        }
        try (Inbox sixDaysLater = Inbox.builder(dataSource)
                .tables(tables)
                .cleanupInterval(Duration.ZERO)
                .clock(Clock.fixed(t0.plus(Duration.ofDays(6)), ZoneOffset.UTC))
                .build()) {
            assertThat(sixDaysLater.purgeExpired()).isZero();
        }
        try (Inbox eightDaysLater = Inbox.builder(dataSource)
                .tables(tables)
                .cleanupInterval(Duration.ZERO)
                .clock(Clock.fixed(t0.plus(Duration.ofDays(8)), ZoneOffset.UTC))
                .build()) {
            assertThat(eightDaysLater.purgeExpired()).isOne();
        }
        assertThat(inbox.contains("billing", "old")).isFalse();
    }

    @Test
    @DisplayName("a batch: ids seen before are acked without reaching the handler, the new ones commit together")
    void batchSkipsSeenIds() throws Exception {
        crediting().handle(new OrderPaid("o-0", 1), delivery("seen"), NoContext.INSTANCE);
        calls.set(0);
        List<Integer> sizes = new java.util.concurrent.CopyOnWriteArrayList<>();
        BatchMessageHandler<OrderPaid, NoContext> batchHandler = inbox.batchHandler("billing", (batch, ctx, c) -> {
            sizes.add(batch.size());
            for (Envelope<OrderPaid> e : batch) {
                credit(e.message(), c);
            }
            return BatchOutcome.ackAll();
        });
        List<Envelope<OrderPaid>> batch = List.of(
                new Envelope<>(new OrderPaid("o-1", 10), delivery("a")),
                new Envelope<>(new OrderPaid("o-0", 1), delivery("seen")),
                new Envelope<>(new OrderPaid("o-2", 20), delivery("b")),
                new Envelope<>(new OrderPaid("o-1", 10), delivery("a")));
        BatchOutcome outcome = batchHandler.handle(batch, NoContext.INSTANCE);
        assertThat(outcome.perMessage()).allMatch(Outcome::isAck).hasSize(4);
        assertThat(sizes).containsExactly(2);
        assertThat(ledgerSum()).isEqualTo(1 + 10 + 20);

        batchHandler.handle(batch, NoContext.INSTANCE);
        assertThat(sizes).containsExactly(2);
        assertThat(ledgerSum()).isEqualTo(1 + 10 + 20);
    }

    @Test
    @DisplayName("a batch with one message not acked rolls back: the acked ones are retried too, nothing recorded")
    void batchRollsBackAsAWhole() throws Exception {
        BatchMessageHandler<OrderPaid, NoContext> batchHandler = inbox.batchHandler("billing", (batch, ctx, c) -> {
            for (Envelope<OrderPaid> e : batch) {
                credit(e.message(), c);
            }
            return BatchOutcome.each(List.of(Outcome.ack(), Outcome.reject("bad")));
        });
        BatchOutcome outcome = batchHandler.handle(
                List.of(
                        new Envelope<>(new OrderPaid("o-1", 10), delivery("a")),
                        new Envelope<>(new OrderPaid("o-2", 20), delivery("b"))),
                NoContext.INSTANCE);
        assertThat(outcome.perMessage()).containsExactly(Outcome.retry(), Outcome.reject("bad"));
        assertThat(ledgerRows()).isZero();
        assertThat(inbox.contains("billing", "a")).isFalse();
    }

    @Test
    @DisplayName(
            "outbox, relay publishing every message twice, broker and inbox: each order's effect applied exactly once")
    void outboxToInboxExactlyOnceEffects() throws Exception {
        Outbox outbox = Outbox.of(tables);
        int orders = 200;
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            broker.topology().declare(ORDERS);
            Transport transport = broker.unwrap(Transport.class).orElseThrow();
            OutboxRelay.Sender twice = (topic, message) ->
                    transport.publish(topic, message).thenCompose(ok -> transport.publish(topic, message));
            var group = broker.consumerGroup();
            group.register(ORDERS, this::crediting);
            group.start();
            long expected = 0;
            try (OutboxRelay relay = OutboxRelay.builder(dataSource, twice)
                            .tables(tables)
                            .topics(ORDERS)
                            .pollInterval(Duration.ofMillis(5), Duration.ofMillis(50))
                            .build()
                            .start();
                    Connection c = dataSource.getConnection()) {
                c.setAutoCommit(false);
                for (int i = 0; i < orders; i++) {
                    outbox.publish(c, ORDERS, new OrderPaid("o-" + i, i));
                    if (i % 10 == 3) {
                        c.rollback(); // a rolled-back order: no event, no effect
                    } else {
                        c.commit();
                        expected += i;
                    }
                }
                long sum = expected;
                await().atMost(60, TimeUnit.SECONDS).until(() -> ledgerSum() == sum && calls.get() >= orders * 9 / 10);
                assertThat(relay.isRunning()).isTrue();
            }
            group.close();
            assertThat(ledgerRows()).isEqualTo(orders - orders / 10);
            assertThat(ledgerSum()).isEqualTo(expected);
            assertThat(calls).hasValue(orders - orders / 10);
        }
    }
}
