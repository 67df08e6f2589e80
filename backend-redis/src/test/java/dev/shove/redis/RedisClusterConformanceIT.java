package dev.shove.redis;

import dev.shove.BrokerConfig;
import dev.shove.conformance.BrokerConformance;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The core groups of the conformance kit against a 3-master Redis Cluster ({@code scripts/brokers.sh up
 * redis-cluster}; env {@code SHOVE_REDIS_CLUSTER}): topology, publishing, outcomes and retries, dead letters, the
 * dead-letter tools, metadata, sequencing, groups, shutdown, seeking and broadcasts. They exercise every Lua script
 * (each runs on the keys of one topic, which share the topic's hash tag and so one slot) and the readers connected to
 * the master of a topic's slot.
 * The other groups test the engine more than the transport and run against the standalone Redis only, to keep the
 * suite short.
 */
@ExtendWith(RedisClusterConformanceIT.CoreGroups.class)
class RedisClusterConformanceIT extends BrokerConformance<Redis> {
    private static RedisTestSupport redis;

    @BeforeAll
    static void cluster() {
        redis = RedisTestSupport.connectCluster();
    }

    @AfterAll
    static void deleteKeys() {
        if (redis != null) {
            redis.close();
        }
    }

    @Override
    protected BrokerConfig<Redis> brokerConfig() {
        return redis.recording(
                RedisConfig.clusterBuilder(RedisTestSupport.clusterUris().toArray(String[]::new))
                        .build());
    }

    @Override
    protected Duration patience() {
        return Duration.ofSeconds(15);
    }

    /** Runs the kit's core groups (nested classes) only. */
    static final class CoreGroups implements ExecutionCondition {
        private static final Set<String> CORE = Set.of(
                "Topology",
                "Publishing",
                "Outcomes",
                "DeadLetters",
                "DeadLetterTools",
                "Metadata",
                "Sequencing",
                "Groups",
                "Shutdown",
                "Seeking",
                "Broadcasts");

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            Class<?> group = context.getTestClass().orElse(null);
            if (group == null || group == RedisClusterConformanceIT.class || group.getEnclosingClass() == null) {
                return ConditionEvaluationResult.enabled("the cluster IT itself");
            }
            return CORE.contains(group.getSimpleName())
                    ? ConditionEvaluationResult.enabled("a core group")
                    : ConditionEvaluationResult.disabled("runs against the standalone Redis only (RedisConformanceIT)");
        }
    }
}
