package dev.shove.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.SequenceFailure;
import dev.shove.Topic;
import dev.shove.spi.DeadLetterStore;
import dev.shove.spi.Delivery;
import dev.shove.spi.TransportContext;
import dev.shove.spi.WireHeaders;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * How the dead-letter store maps to SQS, seen from SQS itself: a pass receives (the letters it holds are out of sight
 * and still counted), deletes what it removes and makes the rest visible when it ends; a FIFO pass sees more of a key
 * only after it removed what it holds of it. The kit's {@code DeadLetterTools} prove the tools end to end.
 */
class SqsDeadLettersIT {
    private static final Set<String> before = new HashSet<>();

    private SqsTransport transport;
    private SqsClient sqs;

    @BeforeAll
    static void emulator() {
        SqsTestSupport.requireSqs();
        before.addAll(SqsTestSupport.snapshot());
    }

    @AfterAll
    static void deleteQueues() {
        if (!before.isEmpty()) {
            SqsTestSupport.deleteCreatedSince(before);
        }
    }

    @BeforeEach
    void open() {
        transport = (SqsTransport) SqsTestSupport.config()
                .open(new TransportContext(
                        new SimpleMeterRegistry(), "dead-letters-it", new WireHeaders(new SimpleMeterRegistry())));
        sqs = SqsTestSupport.sqs();
    }

    @AfterEach
    void close() {
        transport.close();
        sqs.close();
    }

    private String dlqUrl(Topic<?> topic) {
        String name = topic.dlq().orElseThrow() + (topic.isSequenced() ? ".fifo" : "");
        return sqs.getQueueUrl(r -> r.queueName(name)).queueUrl();
    }

    private Map<String, String> depth(String url) {
        return sqs.getQueueAttributes(r -> r.queueUrl(url)
                        .attributeNames(
                                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
                .attributesAsStrings();
    }

    private static List<String> bodies(List<Delivery> letters) {
        return letters.stream()
                .map(d -> new String(d.payload(), StandardCharsets.UTF_8))
                .toList();
    }

    @Test
    @DisplayName("a pass holds what it reads out of sight and still counted, deletes what it removes, and makes the"
            + " rest visible when it ends")
    void passOnAStandardQueue() {
        Topic<String> topic = Topic.builder(SqsTestSupport.unique("dl-pass"), String.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        transport.declare(topic);
        String url = dlqUrl(topic);
        for (String body : List.of("d1", "d2", "d3")) {
            sqs.sendMessage(r -> r.queueUrl(url).messageBody(body));
        }
        DeadLetterStore store = transport.deadLetters(topic, "any-group");
        assertThat(store.queue()).isEqualTo(topic.dlq().orElseThrow());
        assertThat(store.readsInPlace()).isFalse();

        List<Delivery> read;
        try (DeadLetterStore.Scan scan = store.scan()) {
            read = scan.next(10);
            assertThat(bodies(read)).containsExactlyInAnyOrder("d1", "d2", "d3");
            assertThat(scan.next(10)).isEmpty();
            assertThat(depth(url))
                    .containsEntry("ApproximateNumberOfMessages", "0")
                    .containsEntry("ApproximateNumberOfMessagesNotVisible", "3");
            assertThat(store.count()).isEqualTo(3);

            scan.remove(read.subList(0, 1));
            assertThat(store.count()).isEqualTo(2);
        }

        assertThat(depth(url))
                .containsEntry("ApproximateNumberOfMessages", "2")
                .containsEntry("ApproximateNumberOfMessagesNotVisible", "0");
        try (DeadLetterStore.Scan again = store.scan()) {
            assertThat(bodies(again.next(10))).containsExactlyInAnyOrderElementsOf(bodies(read.subList(1, 3)));
        }
    }

    @Test
    @DisplayName("a FIFO pass reads a key in order, and its next letters only after removing the ones it holds")
    void passOnAFifoQueue() {
        Topic<String> topic = Topic.builder(SqsTestSupport.unique("dl-fifo"), String.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .sequenced(SequenceFailure.SKIP, s -> "a")
                .build();
        transport.declare(topic);
        String url = dlqUrl(topic);
        for (String body : List.of("a0", "a1", "a2")) {
            sqs.sendMessage(
                    r -> r.queueUrl(url).messageBody(body).messageGroupId("a").messageDeduplicationId(body));
        }
        DeadLetterStore store = transport.deadLetters(topic, "any-group");
        assertThat(store.queue()).isEqualTo(topic.dlq().orElseThrow() + ".fifo");

        try (DeadLetterStore.Scan browse = store.scan()) {
            List<Delivery> first = browse.next(10);
            assertThat(bodies(first)).first().isEqualTo("a0");
            assertThat(bodies(first)).isSubsetOf("a0", "a1", "a2").isSorted();
            if (first.size() < 3) {
                assertThat(browse.next(10))
                        .as("key 'a' is locked while the pass holds some of it")
                        .isEmpty();
            }
        }

        StringBuilder order = new StringBuilder();
        try (DeadLetterStore.Scan replay = store.scan()) {
            for (List<Delivery> page = replay.next(10); !page.isEmpty(); page = replay.next(10)) {
                bodies(page).forEach(order::append);
                replay.remove(page);
            }
        }
        assertThat(order.toString()).isEqualTo("a0a1a2");
        assertThat(store.count()).isZero();
    }
}
