package dev.shove.kafka;

import java.util.Set;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The conformance kit again with transactional settlement ({@link KafkaConfig.Builder#transactional()}): every
 * consumer commits its replies, hold copies and dead-letter copies with its offsets in one Kafka transaction, and reads
 * with {@code isolation.level=read_committed}. To keep the CI short it runs the groups of contracts that transactions
 * change (replies, outcomes and retries through the hold relay, dead letters and their tools, sequenced waits in the
 * commit metadata, seeks, rebalances, shutdown commits); the other groups do not touch settlement and run in {@link
 * KafkaConformanceIT} only.
 */
class KafkaTransactionalConformanceIT extends KafkaConformanceIT {
    /** The {@code @Nested} groups of the kit this class runs. */
    static final Set<String> GROUPS = Set.of(
            "Replies", "Outcomes", "DeadLetters", "DeadLetterTools", "Sequencing", "Seeking", "Groups", "Shutdown");

    @RegisterExtension
    static final ExecutionCondition ONLY_SETTLEMENT_GROUPS = context -> {
        Class<?> test = context.getTestClass().orElse(null);
        if (test == null || test.getEnclosingClass() == null || GROUPS.contains(test.getSimpleName())) {
            return ConditionEvaluationResult.enabled("a group transactions change");
        }
        return ConditionEvaluationResult.disabled(
                test.getSimpleName() + " does not touch settlement: run by KafkaConformanceIT only");
    };

    @Override
    protected boolean transactional() {
        return true;
    }
}
