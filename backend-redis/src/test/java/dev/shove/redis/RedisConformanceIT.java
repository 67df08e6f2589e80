package dev.shove.redis;

import dev.shove.BrokerConfig;
import dev.shove.conformance.BrokerConformance;
import java.time.Duration;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The whole conformance kit against a real standalone Redis. Capability-gated contracts skip themselves: Redis Streams
 * have no partitions (no {@code coordinates}; offsets are entry ids) and no transactions that could span a reply topic
 * and the acknowledgement (scripts run on one topic's slot). Streams are trimmed to about {@value #RETENTION} entries
 * so that the contract on trimmed positions runs. Every key of every topic a contract declares is deleted at the end.
 */
class RedisConformanceIT extends BrokerConformance<Redis> {
    static final int RETENTION = 500;

    private static RedisTestSupport redis;

    @BeforeAll
    static void redis() {
        redis = RedisTestSupport.connect();
    }

    @AfterAll
    static void deleteKeys() {
        if (redis != null) {
            redis.close();
        }
    }

    @Override
    protected BrokerConfig<Redis> brokerConfig() {
        return redis.recording(RedisConfig.builder(RedisTestSupport.uri())
                .trim(RedisTrim.maxLen(RETENTION))
                .build());
    }

    @Override
    protected Duration patience() {
        return Duration.ofSeconds(15);
    }

    @Override
    protected OptionalInt logRetention() {
        return OptionalInt.of(RETENTION);
    }
}
