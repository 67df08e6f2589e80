package dev.shove.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ConnectionWatchTest {
    private final TransportContext context =
            new TransportContext(new SimpleMeterRegistry(), "test", new WireHeaders(new SimpleMeterRegistry()));

    @Test
    @DisplayName("a failed ping reports the connection lost, with the failure; the next good one reports it back")
    void lostAndRestored() {
        AtomicBoolean down = new AtomicBoolean();
        ConnectionWatch watch = ConnectionWatch.start("watch", context, Duration.ofMillis(10), () -> {
            if (down.get()) {
                throw new IllegalStateException("no answer from broker-1");
            }
        });
        try {
            down.set(true);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !context.connection().connected());
            assertThat(context.connection().detail()).isEqualTo("no answer from broker-1");

            down.set(false);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> context.connection().connected());
        } finally {
            watch.close();
        }
    }

    @Test
    @DisplayName("after close the watch pings no more")
    void closeStops() {
        AtomicInteger pings = new AtomicInteger();
        ConnectionWatch watch = ConnectionWatch.start("watch", context, Duration.ofMillis(5), pings::incrementAndGet);
        await().atMost(Duration.ofSeconds(10)).until(() -> pings.get() >= 2);
        watch.close();
        int after = pings.get();
        watch.close();

        await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(1)).until(() -> pings.get() == after);
    }
}
