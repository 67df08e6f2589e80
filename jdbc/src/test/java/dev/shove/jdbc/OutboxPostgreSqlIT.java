package dev.shove.jdbc;

import static dev.shove.jdbc.Fixtures.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.jdbc.Fixtures.OrderPaid;
import java.time.Duration;
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
}
