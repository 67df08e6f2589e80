package dev.shove.jdbc;

import static dev.shove.jdbc.Fixtures.ORDERS;
import static dev.shove.jdbc.Fixtures.STEPS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.jdbc.Fixtures.OrderPaid;
import dev.shove.jdbc.Fixtures.Step;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The outbox and relay's contract, run on each database by a subclass. */
@SuppressWarnings("try") // relays and connections opened in try-with-resources only to be closed
abstract class OutboxContract {
    abstract TestDatabase database();

    DataSource dataSource;
    ShoveTables tables;
    Outbox outbox;

    @BeforeEach
    void setUp() {
        dataSource = database().dataSource();
        tables = TestDatabase.uniqueTables();
        tables.createTables(dataSource);
        outbox = Outbox.of(tables);
    }

    interface Work {
        void run(Connection c) throws Exception;
    }

    /** Runs {@code work} in one transaction and commits it. */
    void commit(Work work) throws Exception {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            work.run(c);
            c.commit();
        }
    }

    long pending() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return outbox.pending(c);
        }
    }

    OutboxRelay.Builder relay(OutboxRelay.Sender sender) {
        return OutboxRelay.builder(dataSource, sender)
                .tables(tables)
                .topics(ORDERS, STEPS)
                .pollInterval(Duration.ofMillis(5), Duration.ofMillis(50))
                .maxBackoff(Duration.ofMillis(200));
    }

    @Test
    @DisplayName("a committed message reaches the consumer with the message id publish returned, its headers and body")
    void committedMessageIsPublished() throws Exception {
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            broker.topology().declare(ORDERS);
            List<OrderPaid> got = new CopyOnWriteArrayList<>();
            List<MessageMetadata> metas = new CopyOnWriteArrayList<>();
            var group = broker.consumerGroup();
            group.register(ORDERS, () -> (order, meta, ctx) -> {
                got.add(order);
                metas.add(meta);
                return Outcome.ack();
            });
            group.start();
            String[] id = new String[1];
            commit(c -> id[0] = outbox.publish(c, ORDERS, new OrderPaid("o-1", 1299), Map.of("tenant", "t1")));
            try (OutboxRelay relay = OutboxRelay.builder(dataSource, broker)
                    .tables(tables)
                    .topics(ORDERS)
                    .build()
                    .start()) {
                await().atMost(10, TimeUnit.SECONDS).until(() -> got.size() == 1);
                assertThat(relay.isRunning()).isTrue();
            }
            assertThat(got).containsExactly(new OrderPaid("o-1", 1299));
            assertThat(metas.getFirst().messageId()).contains(id[0]);
            assertThat(metas.getFirst().header("tenant")).contains("t1");
            assertThat(pending()).isZero();
            group.close();
        }
    }

    @Test
    @DisplayName("a rolled-back transaction publishes nothing")
    void rollbackPublishesNothing() throws Exception {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            outbox.publish(c, ORDERS, new OrderPaid("o-1", 1));
            c.rollback();
        }
        Senders.Recording sender = new Senders.Recording();
        try (OutboxRelay relay = relay(sender).build()) {
            assertThat(relay.relayOnce()).isZero();
        }
        assertThat(sender.sent).isEmpty();
        assertThat(pending()).isZero();
    }

    @Test
    @DisplayName("a row stays until the broker confirmed it: while the broker is down nothing is removed")
    void rowStaysUntilConfirmed() throws Exception {
        commit(c -> outbox.publish(c, ORDERS, new OrderPaid("o-1", 1)));
        Senders.Recording sender = new Senders.Recording();
        sender.down = true;
        try (OutboxRelay relay = relay(sender).build()) {
            assertThat(relay.relayOnce()).isZero();
            assertThat(pending()).isOne();
            sender.down = false;
            assertThat(relay.relayOnce()).isOne();
        }
        assertThat(pending()).isZero();
        assertThat(sender.sent).hasSize(1);
    }

    @Test
    @DisplayName("the row is published with the codec's bytes, content type, key and shard the publisher would use")
    void outboundMessageMatchesThePublisher() throws Exception {
        String[] id = new String[1];
        commit(c -> id[0] = outbox.publish(c, STEPS, new Step("k-1", 7)));
        Senders.Recording sender = new Senders.Recording();
        try (OutboxRelay relay = relay(sender).build()) {
            relay.relayOnce();
        }
        var sent = sender.sent.getFirst().message();
        assertThat(sent.payload()).isEqualTo(STEPS.codec().encode(new Step("k-1", 7)));
        assertThat(sent.contentType()).isEqualTo(STEPS.codec().contentType());
        assertThat(sent.key()).isEqualTo("k-1");
        assertThat(sent.shard()).isEqualTo(STEPS.sequencing().orElseThrow().shardOf("k-1"));
        assertThat(sent.headers())
                .containsEntry(ShoveHeaders.MESSAGE_ID, id[0])
                .containsEntry(ShoveHeaders.SEQUENCE_KEY, "k-1");
    }

    @Test
    @DisplayName("a header with the reserved prefix is refused and nothing is written")
    void reservedHeaderRefused() throws Exception {
        try (Connection c = dataSource.getConnection()) {
            assertThatThrownBy(() -> outbox.publish(c, ORDERS, new OrderPaid("o", 1), Map.of("shove-x", "1")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("reserved prefix");
        }
        assertThat(pending()).isZero();
    }

    @Test
    @DisplayName("rows of one key are published in commit order, across a relay restart")
    void perKeyOrderAcrossRestart() throws Exception {
        int perKey = 30;
        commit(c -> {
            for (int i = 0; i < perKey; i++) {
                for (String key : List.of("a", "b", "c")) {
                    outbox.publish(c, STEPS, new Step(key, i));
                }
            }
        });
        Senders.Recording sender = new Senders.Recording();
        try (OutboxRelay first = relay(sender).batchSize(4).build()) {
            for (int round = 0; round < 5; round++) {
                first.relayOnce();
            }
        }
        assertThat(sender.sent).isNotEmpty().hasSizeLessThan(3 * perKey);
        try (OutboxRelay second = relay(sender).batchSize(4).build().start()) {
            await().atMost(20, TimeUnit.SECONDS).until(() -> sender.sent.size() == 3 * perKey);
        }
        Map<String, List<Integer>> byKey = new HashMap<>();
        for (Senders.Sent s : sender.sent) {
            Step step = STEPS.codec().decode(s.message().payload());
            byKey.computeIfAbsent(step.key(), k -> new ArrayList<>()).add(step.seq());
        }
        List<Integer> expected =
                java.util.stream.IntStream.range(0, perKey).boxed().toList();
        assertThat(byKey).containsOnlyKeys("a", "b", "c");
        byKey.values().forEach(seqs -> assertThat(seqs).isEqualTo(expected));
    }

    @Test
    @DisplayName("one round publishes a key's rows one after the other, and stops the key at the first that fails")
    void oneRoundPublishesAKeyInOrderAndStopsAtAFailure() throws Exception {
        String[] third = new String[1];
        commit(c -> {
            for (int i = 0; i < 6; i++) {
                String id = outbox.publish(c, STEPS, new Step("k", i));
                if (i == 2) {
                    third[0] = id;
                }
            }
        });
        Senders.Recording sender = new Senders.Recording();
        java.util.concurrent.atomic.AtomicBoolean failOnce = new java.util.concurrent.atomic.AtomicBoolean(true);
        OutboxRelay.Sender flaky = (topic, message) ->
                third[0].equals(message.headers().get(ShoveHeaders.MESSAGE_ID)) && failOnce.getAndSet(false)
                        ? java.util.concurrent.CompletableFuture.failedFuture(
                                new dev.shove.PublishException("timeout (test)", null, true))
                        : sender.publish(topic, message);
        try (OutboxRelay relay = relay(flaky).build()) {
            assertThat(relay.relayOnce()).isEqualTo(2);
            assertThat(pending()).isEqualTo(4);
            assertThat(relay.relayOnce()).isEqualTo(4);
        }
        assertThat(sender.sent)
                .extracting(s -> STEPS.codec().decode(s.message().payload()).seq())
                .containsExactly(0, 1, 2, 3, 4, 5);
    }

    @Test
    @DisplayName(
            "a transaction writing a key waits for an open one that wrote it first, so the relay sees commit order")
    void concurrentWritersOfOneKeyInCommitOrder() throws Exception {
        Senders.Recording sender = new Senders.Recording();
        try (OutboxRelay relay = relay(sender).build();
                Connection first = dataSource.getConnection();
                Connection second = dataSource.getConnection()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            outbox.publish(first, STEPS, new Step("k", 1));
            var later = java.util.concurrent.CompletableFuture.runAsync(() -> {
                try {
                    outbox.publish(second, STEPS, new Step("k", 2));
                    second.commit();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            // Without the key's lock the second would commit now, and the relay would publish 2 before 1.
            await().during(Duration.ofMillis(500)).atMost(2, TimeUnit.SECONDS).until(() -> !later.isDone());
            assertThat(relay.relayOnce()).isZero();
            first.commit();
            later.get(10, TimeUnit.SECONDS);
            relay.relayOnce();
            relay.relayOnce();
        }
        assertThat(sender.sent)
                .extracting(s -> STEPS.codec().decode(s.message().payload()).seq())
                .containsExactly(1, 2);
    }

    @Test
    @DisplayName("two relays on one table publish every row exactly once")
    void twoRelaysPublishEachRowOnce() throws Exception {
        int rows = 400;
        Map<String, Integer> counts = new ConcurrentHashMap<>();
        OutboxRelay.Sender counting = (topic, message) -> {
            counts.merge(message.headers().get(ShoveHeaders.MESSAGE_ID), 1, Integer::sum);
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        };
        Set<String> ids = ConcurrentHashMap.newKeySet();
        try (OutboxRelay a = relay(counting).batchSize(10).build().start();
                OutboxRelay b = relay(counting).batchSize(10).build().start()) {
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(false);
                for (int n = 0; n < rows; n++) {
                    ids.add(outbox.publish(c, ORDERS, new OrderPaid("o-" + n, n)));
                    ids.add(outbox.publish(c, STEPS, new Step("k-" + (n % 7), n)));
                    c.commit();
                }
            }
            await().atMost(60, TimeUnit.SECONDS).until(() -> pending() == 0 && counts.size() == 2 * rows);
        }
        assertThat(counts.keySet()).isEqualTo(ids);
        assertThat(counts.values().stream().filter(n -> n > 1).toList()).isEmpty();
    }

    @Test
    @DisplayName("while the broker is down rows wait and the relay backs off; when it is back every row is published")
    void brokerOutageLosesNothing() throws Exception {
        Senders.Recording sender = new Senders.Recording();
        sender.down = true;
        Set<String> ids = new TreeSet<>();
        try (OutboxRelay relay = relay(sender).build().start()) {
            for (int i = 0; i < 50; i++) {
                int n = i;
                commit(c -> ids.add(outbox.publish(c, STEPS, new Step("k-" + (n % 5), n))));
            }
            await().atMost(10, TimeUnit.SECONDS).until(() -> attempts() > 0);
            assertThat(pending()).isEqualTo(50);
            sender.down = false;
            await().atMost(30, TimeUnit.SECONDS).until(() -> pending() == 0);
        }
        assertThat(new TreeSet<>(sender.ids())).isEqualTo(ids);
    }

    long attempts() throws SQLException {
        try (Connection c = dataSource.getConnection();
                var s = c.createStatement();
                var rs = s.executeQuery("SELECT MAX(attempts) FROM " + tables.outbox())) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    @DisplayName(
            "a row the broker refuses for good is set aside with its reason, stops blocking its key, and can be retried")
    void refusedRowIsSetAside() throws Exception {
        String[] refusedId = new String[1];
        commit(c -> {
            refusedId[0] = outbox.publish(c, STEPS, new Step("k", 1));
            outbox.publish(c, STEPS, new Step("k", 2));
        });
        Senders.Recording sender = new Senders.Recording();
        sender.refuse = m -> refusedId[0].equals(m.headers().get(ShoveHeaders.MESSAGE_ID));
        try (OutboxRelay relay = relay(sender).build()) {
            relay.relayOnce();
            relay.relayOnce();
            assertThat(sender.sent)
                    .extracting(s -> STEPS.codec().decode(s.message().payload()).seq())
                    .containsExactly(2);
            List<FailedMessage> failed;
            try (Connection c = dataSource.getConnection()) {
                failed = outbox.failed(c, 10);
                assertThat(outbox.failedCount(c)).isOne();
            }
            assertThat(failed).hasSize(1);
            FailedMessage f = failed.getFirst();
            assertThat(f.messageId()).isEqualTo(refusedId[0]);
            assertThat(f.topic()).isEqualTo("steps");
            assertThat(f.key()).isEqualTo("k");
            assertThat(f.reason()).contains("too large");
            assertThat(f.attempts()).isOne();

            sender.refuse = m -> false;
            try (Connection c = dataSource.getConnection()) {
                assertThat(outbox.retry(c, f.id())).isTrue();
                assertThat(outbox.retry(c, f.id())).isFalse();
            }
            relay.relayOnce();
        }
        assertThat(sender.ids()).endsWith(refusedId[0]);
        assertThat(pending()).isZero();
    }

    @Test
    @DisplayName("the relay's meters show the waiting rows and the oldest one's age")
    void metersShowPendingAndAge() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Senders.Recording sender = new Senders.Recording();
        sender.down = true;
        commit(c -> {
            outbox.publish(c, ORDERS, new OrderPaid("o-1", 1));
            outbox.publish(c, ORDERS, new OrderPaid("o-2", 2));
        });
        try (OutboxRelay relay = relay(sender).meterRegistry(registry).build().start()) {
            await().atMost(10, TimeUnit.SECONDS)
                    .until(() -> registry.get(OutboxRelay.PENDING_METER)
                                    .tag("table", tables.outbox())
                                    .gauge()
                                    .value()
                            == 2);
            await().atMost(10, TimeUnit.SECONDS)
                    .until(() -> registry.get(OutboxRelay.OLDEST_AGE_METER)
                                    .timeGauge()
                                    .value(TimeUnit.MILLISECONDS)
                            > 0);
            sender.down = false;
            await().atMost(10, TimeUnit.SECONDS)
                    .until(() -> registry.get(OutboxRelay.PENDING_METER).gauge().value() == 0);
        }
        assertThat(registry.find(OutboxRelay.PENDING_METER).gauge()).isNull();
    }

    @Test
    @DisplayName("rows of a topic the relay was not given are left for another relay")
    void otherTopicsAreLeft() throws Exception {
        commit(c -> outbox.publish(c, ORDERS, new OrderPaid("o-1", 1)));
        Senders.Recording sender = new Senders.Recording();
        try (OutboxRelay relay = OutboxRelay.builder(dataSource, sender)
                .tables(tables)
                .topics(STEPS)
                .build()) {
            assertThat(relay.relayOnce()).isZero();
        }
        assertThat(pending()).isOne();
    }

    static Map<String, Long> countBy(List<String> ids) {
        return ids.stream().collect(Collectors.groupingBy(i -> i, Collectors.counting()));
    }
}
