package dev.shove.jdbc;

import static dev.shove.jdbc.Fixtures.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.jdbc.Fixtures.OrderPaid;
import java.sql.Connection;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class OutboxPostgreSqlIT extends OutboxContract {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }

    @Test
    @DisplayName("on PostgreSQL a commit wakes an idle relay at once (LISTEN/NOTIFY), long before its next poll")
    void notifyWakesTheRelay() throws Exception {
        Senders.Recording sender = new Senders.Recording();
        try (OutboxRelay relay = relay(sender)
                .pollInterval(Duration.ofSeconds(60), Duration.ofSeconds(60))
                .build()
                .start()) {
            for (int i = 0; i < 3; i++) {
                int n = i;
                commit(c -> outbox.publish(c, ORDERS, new OrderPaid("o-" + n, n)));
                await().atMost(5, TimeUnit.SECONDS).until(() -> sender.sent.size() == n + 1);
            }
            assertThat(relay.isRunning()).isTrue();
        }
    }

    @Test
    @DisplayName(
            "the broker down for 30 s while rows accumulate: the relay backs off (no hot loop) and then publishes all")
    void thirtySecondOutage() throws Exception {
        Senders.Recording sender = new Senders.Recording();
        sender.down = true;
        Set<String> ids = java.util.concurrent.ConcurrentHashMap.newKeySet();
        long start = System.nanoTime();
        var writer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        var written = new java.util.concurrent.CompletableFuture<Void>();
        try (OutboxRelay relay =
                        relay(sender).maxBackoff(Duration.ofSeconds(2)).build().start();
                Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            int[] n = {0};
            // about 20 orders a second for 30 s, while the broker is down
            writer.scheduleAtFixedRate(
                    () -> {
                        if (System.nanoTime() - start >= Duration.ofSeconds(30).toNanos()) {
                            written.complete(null);
                            throw new java.util.concurrent.CancellationException("done"); // ends the schedule
                        }
                        try {
                            ids.add(outbox.publish(c, Fixtures.STEPS, new Fixtures.Step("k-" + (n[0] % 10), n[0])));
                            c.commit();
                            n[0]++;
                        } catch (java.sql.SQLException e) {
                            written.completeExceptionally(e);
                        }
                    },
                    0,
                    50,
                    TimeUnit.MILLISECONDS);
            written.get(60, TimeUnit.SECONDS);
            assertThat(pending()).isEqualTo(ids.size());
            // 100 ms doubling to 2 s: about 18 attempts in 30 s, where a hot loop would make thousands
            assertThat(attempts()).isBetween(5L, 40L);
            sender.down = false;
            await().atMost(30, TimeUnit.SECONDS).until(() -> pending() == 0);
            assertThat(relay.isRunning()).isTrue();
        }
        writer.shutdownNow();
        assertThat(new TreeSet<>(sender.ids())).isEqualTo(new TreeSet<>(ids));
        assertThat(sender.ids()).hasSameSizeAs(ids);
    }
}
