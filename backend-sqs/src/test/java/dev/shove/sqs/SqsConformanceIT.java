package dev.shove.sqs;

import dev.shove.BrokerConfig;
import dev.shove.conformance.BrokerConformance;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The whole conformance kit against the SQS/SNS emulator ({@code SHOVE_SQS_ENDPOINT}, default {@code
 * http://127.0.0.1:4566}). Four capabilities are declared missing and their contracts skip themselves: seeking (a queue
 * is no log), transactions (SQS has none across a send and a delete), partition/offset coordinates (a queue has
 * neither), and durable sequenced retries (a FIFO message waiting in place cannot carry its retry count: SQS cannot
 * change a message, and a copy would go behind the rest of its group). Every queue and topic the kit created is
 * deleted when the class ends.
 *
 * <p>The config polls with 2 s long polls instead of 20 s (see {@link SqsTestSupport#config()}): a stopped consumer
 * holds the messages it returns back until its last poll ends, and the kit starts the next consumer at once.
 */
class SqsConformanceIT extends BrokerConformance<Sqs> {
    private static final Set<String> before = new HashSet<>();

    @BeforeAll
    static void emulator() {
        SqsTestSupport.requireSqs();
        before.addAll(SqsTestSupport.snapshot());
    }

    @AfterAll
    static void deleteKitQueues() {
        if (!before.isEmpty()) {
            SqsTestSupport.deleteCreatedSince(before);
        }
    }

    @Override
    protected BrokerConfig<Sqs> brokerConfig() {
        return SqsTestSupport.config();
    }

    @Override
    protected Duration patience() {
        return Duration.ofSeconds(20);
    }
}
