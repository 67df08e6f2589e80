package dev.shove.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.examples.redis.RedisQuickstart;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The Redis quickstart example runs to completion against the real Redis. */
class RedisQuickstartIT {

    @Test
    void quickstartCompletesItsJourney() {
        try (RedisTestSupport redis = RedisTestSupport.connect()) {
            String name = RedisTestSupport.unique("quickstart");
            redis.forget(name);
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8);
            boolean ok = RedisQuickstart.run(out, RedisTestSupport.uri(), name, Duration.ofSeconds(30));
            String printed = buffer.toString(StandardCharsets.UTF_8);
            assertThat(ok).as(printed).isTrue();
            assertThat(printed)
                    .contains("o-1: ledger down (retryCount 0) -> retry")
                    .contains("o-1: booked (retryCount 1")
                    .contains("o-2: dead letter, reason \"rejected: amount must be positive\"");
        }
    }
}
