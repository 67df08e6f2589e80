package dev.shove.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.Topic;
import dev.shove.jdbc.Fixtures.Step;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Outbox on PostgreSQL, relay, a real broker, inbox: the orders of committed transactions reach the ledger exactly
 * once each, in per-key order, and rolled-back ones never. Subclasses name the broker.
 */
abstract class EndToEndContract {
    abstract Broker<?> connect();

    @Test
    @DisplayName("committed orders reach the ledger once each in per-key order, rolled-back ones never")
    void outboxThroughBrokerToInbox() throws Exception {
        DataSource dataSource = TestDatabase.POSTGRESQL.dataSource();
        ShoveTables tables = TestDatabase.uniqueTables();
        tables.createTables(dataSource);
        String ledger = tables.inbox() + "_ledger";
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + ledger + " (msg_key VARCHAR(64) NOT NULL, seq INTEGER NOT NULL)");
        }
        Topic<Step> topic = Topic.builder(
                        "it-jdbc-" + UUID.randomUUID().toString().substring(0, 8), Step.class)
                .holdQueue(Duration.ofMillis(500))
                .sequenced(SequenceFailure.SKIP, Step::key)
                .dlq()
                .build();
        Map<String, List<Integer>> handled = new ConcurrentHashMap<>();
        int orders = 300;
        int keys = 10;
        long expectedRows = 0;
        try (Broker<?> broker = connect();
                Inbox inbox = Inbox.builder(dataSource).tables(tables).build()) {
            broker.topology().declare(topic);
            var group = broker.consumerGroup();
            group.register(
                    topic,
                    () -> inbox.<Step, Object>handler("ledger", (step, meta, ctx, c) -> {
                        try (PreparedStatement s = c.prepareStatement("INSERT INTO " + ledger + " VALUES (?, ?)")) {
                            s.setString(1, step.key());
                            s.setInt(2, step.seq());
                            s.executeUpdate();
                        }
                        handled.computeIfAbsent(
                                        step.key(), k -> java.util.Collections.synchronizedList(new ArrayList<>()))
                                .add(step.seq());
                        return Outcome.ack();
                    }));
            group.start();
            Outbox outbox = Outbox.of(tables);
            try (OutboxRelay relay = OutboxRelay.builder(dataSource, broker)
                            .tables(tables)
                            .topics(topic)
                            .build()
                            .start();
                    Connection c = dataSource.getConnection()) {
                c.setAutoCommit(false);
                for (int i = 0; i < orders; i++) {
                    outbox.publish(c, topic, new Step("k-" + (i % keys), i));
                    if (i % 7 == 3) {
                        c.rollback();
                    } else {
                        c.commit();
                        expectedRows++;
                    }
                }
                long rows = expectedRows;
                await().atMost(120, TimeUnit.SECONDS).until(() -> count(dataSource, ledger) == rows);
                assertThat(relay.isRunning()).isTrue();
            }
            group.stop(Duration.ofSeconds(10));
        }
        assertThat(count(dataSource, ledger)).isEqualTo(expectedRows);
        Map<String, List<Integer>> expected = new HashMap<>();
        for (int i = 0; i < orders; i++) {
            if (i % 7 != 3) {
                expected.computeIfAbsent("k-" + (i % keys), k -> new ArrayList<>())
                        .add(i);
            }
        }
        assertThat(handled).isEqualTo(expected);
    }

    private static long count(DataSource dataSource, String table) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
