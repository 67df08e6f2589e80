package dev.shove.jdbc;

import static dev.shove.jdbc.Fixtures.STEPS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.MessageMetadata;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.ShoveHeaders;
import dev.shove.conformance.ChildJvm;
import dev.shove.jdbc.Fixtures.OrderPaid;
import dev.shove.jdbc.Fixtures.Step;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Kills the writer, the relay or an inbox handler with SIGKILL (in a child JVM) and checks what survives. */
abstract class CrashContract {
    abstract TestDatabase database();

    abstract String url();

    abstract String user();

    UrlDataSource dataSource;
    String prefix;
    ShoveTables tables;

    @BeforeEach
    void setUp() {
        database().dataSource(); // skips or fails when the server is missing; creates the test database
        dataSource = new UrlDataSource(url(), user(), "");
        prefix = "c" + java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        tables = ShoveTables.withPrefix(prefix);
        tables.createTables(dataSource);
    }

    /** Runs the child until it printed {@code until} (or, with {@code count}, that many lines starting with it). */
    private List<String> runAndKill(String mode, String until, int count) throws Exception {
        Process child = ChildJvm.start(CrashChild.class, url(), user(), prefix, mode);
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread reader = Thread.ofVirtual().start(() -> {
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (java.io.IOException e) {
                // the child is gone
            }
        });
        try {
            await().atMost(60, TimeUnit.SECONDS)
                    .until(() -> lines.stream().filter(l -> l.startsWith(until)).count() >= count);
        } finally {
            ChildJvm.kill(child);
            reader.join(10_000);
        }
        return new ArrayList<>(lines);
    }

    private static List<String> ids(List<String> lines, String prefix) {
        return lines.stream()
                .filter(l -> l.startsWith(prefix + " "))
                .map(l -> l.substring(prefix.length() + 1))
                .toList();
    }

    private List<String> relayEverything() throws Exception {
        Senders.Recording sender = new Senders.Recording();
        try (OutboxRelay relay = OutboxRelay.builder(dataSource, sender)
                .tables(tables)
                .topics(STEPS)
                .pollInterval(Duration.ofMillis(5), Duration.ofMillis(50))
                .build()
                .start()) {
            await().atMost(60, TimeUnit.SECONDS).until(() -> pending() == 0);
            assertThat(relay.isRunning()).isTrue();
        }
        Map<String, List<Integer>> byKey = new HashMap<>();
        for (Senders.Sent s : sender.sent) {
            Step step = STEPS.codec().decode(s.message().payload());
            byKey.computeIfAbsent(step.key(), k -> new ArrayList<>()).add(step.seq());
        }
        byKey.values().forEach(seqs -> assertThat(seqs).isSorted());
        return sender.ids();
    }

    private long pending() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return Outbox.of(tables).pending(c);
        }
    }

    @Test
    @DisplayName(
            "killed after the commit and before any relay published: every committed row is published, in key order")
    void killedAfterCommit() throws Exception {
        List<String> lines = runAndKill("commit", "ready", 1);
        List<String> committed = ids(lines, "committed");
        assertThat(committed).hasSize(20);
        assertThat(relayEverything()).containsExactlyInAnyOrderElementsOf(committed);
    }

    @Test
    @DisplayName(
            "a relay killed after the broker accepted and before the row was deleted: republished, same message id")
    void killedAfterPublishBeforeDelete() throws Exception {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            for (int i = 0; i < 6; i++) {
                Outbox.of(tables).publish(c, STEPS, new Step("k-" + (i % 3), i));
            }
            c.commit();
        }
        List<String> lines = runAndKill("publish", "published", 3); // one head per key
        List<String> published = ids(lines, "published");
        assertThat(published).hasSizeGreaterThanOrEqualTo(3);
        assertThat(pending()).isEqualTo(6);
        List<String> republished = relayEverything();
        assertThat(republished).hasSize(6).containsAll(published);
    }

    @Test
    @DisplayName("killed in the middle of an inbox transaction: neither the handler's write nor the id is kept")
    void killedMidInboxTransaction() throws Exception {
        String ledger = tables.inbox() + "_ledger";
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + ledger + " (order_id VARCHAR(64) NOT NULL, cents BIGINT NOT NULL)");
        }
        runAndKill("inbox", "in-handler", 1);
        try (Inbox inbox = Inbox.builder(dataSource).tables(tables).build()) {
            // the server may take a moment to notice the dead connection and roll its transaction back
            await().atMost(30, TimeUnit.SECONDS).until(() -> !inbox.contains("billing", "id-1") && rows(ledger) == 0);
            Outcome outcome = inbox.<OrderPaid, NoContext>handler("billing", (order, meta, ctx, c) -> {
                        try (PreparedStatement s = c.prepareStatement("INSERT INTO " + ledger + " VALUES (?, ?)")) {
                            s.setString(1, order.orderId());
                            s.setLong(2, order.cents());
                            s.executeUpdate();
                        }
                        return Outcome.ack();
                    })
                    .handle(
                            new OrderPaid("o-1", 100),
                            MessageMetadata.of("orders", "d-2", Map.of(ShoveHeaders.MESSAGE_ID, "id-1")),
                            NoContext.INSTANCE);
            assertThat(outcome).isEqualTo(Outcome.ack());
            assertThat(rows(ledger)).isOne();
            assertThat(inbox.contains("billing", "id-1")).isTrue();
        }
    }

    private long rows(String table) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
