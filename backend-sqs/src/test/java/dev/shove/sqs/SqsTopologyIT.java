package dev.shove.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shove.Broker;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.Topic;
import dev.shove.TopologyException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/** What a topic becomes on SQS and SNS, what an existing queue must agree with, and topology given by URL and ARN. */
class SqsTopologyIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static SqsClient sqs;
    private static SnsClient sns;

    private final List<Broker<Sqs>> brokers = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void clients() {
        SqsTestSupport.requireSqs();
        sqs = SqsTestSupport.sqs();
        sns = SqsTestSupport.sns();
    }

    @AfterAll
    static void closeClients() {
        if (sqs != null) {
            sqs.close();
            sns.close();
        }
    }

    @AfterEach
    void closeBrokers() {
        brokers.forEach(Broker::close);
    }

    private Broker<Sqs> broker(SqsConfig config) {
        Broker<Sqs> broker = Broker.connect(config);
        brokers.add(broker);
        return broker;
    }

    private static String url(String queue) {
        return sqs.getQueueUrl(r -> r.queueName(queue)).queueUrl();
    }

    private static Map<String, String> attributes(String queue) {
        return sqs.getQueueAttributes(r -> r.queueUrl(url(queue)).attributeNamesWithStrings("All"))
                .attributesAsStrings();
    }

    private static String topicArn(String name) {
        return sns.listTopics().topics().stream()
                .map(t -> t.topicArn())
                .filter(a -> a.endsWith(":" + name))
                .findFirst()
                .orElseThrow();
    }

    @Test
    @DisplayName("a topic is a queue with a redrive policy to its DLQ, an SNS topic subscribing it with raw delivery,"
            + " and a queue policy letting exactly that topic send")
    void standardTopic() throws Exception {
        String name = SqsTestSupport.unique("topo");
        Topic<String> topic = Topic.builder(name, String.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        broker(SqsTestSupport.config().toBuilder().maxReceiveCount(7).build())
                .topology()
                .declare(topic);

        Map<String, String> main = attributes(name);
        Map<String, String> dlq = attributes(name + "-dlq");
        JsonNode redrive = JSON.readTree(main.get("RedrivePolicy"));
        assertThat(redrive.get("deadLetterTargetArn").asText()).isEqualTo(dlq.get("QueueArn"));
        assertThat(redrive.get("maxReceiveCount").asInt()).isEqualTo(7);
        assertThat(dlq.get("MessageRetentionPeriod")).isEqualTo("1209600");
        String arn = topicArn(name);
        JsonNode statement = JSON.readTree(main.get("Policy")).get("Statement").get(0);
        assertThat(statement.at("/Principal/Service").asText()).isEqualTo("sns.amazonaws.com");
        assertThat(statement.at("/Condition/ArnEquals/aws:SourceArn").asText()).isEqualTo(arn);
        assertThat(statement.get("Resource").asText()).isEqualTo(main.get("QueueArn"));
        var subscriptions = sns.listSubscriptionsByTopic(r -> r.topicArn(arn)).subscriptions();
        assertThat(subscriptions).hasSize(1);
        assertThat(subscriptions.getFirst().endpoint()).isEqualTo(main.get("QueueArn"));
        assertThat(sns.getSubscriptionAttributes(
                                r -> r.subscriptionArn(subscriptions.getFirst().subscriptionArn()))
                        .attributes())
                .containsEntry("RawMessageDelivery", "true");
    }

    @Test
    @DisplayName("a topic's queue keeps messages 14 days (SQS's default is 4), an existing one is brought to"
            + " queueRetention, and the SNS subscription redrives what SNS cannot deliver to the DLQ, which lets the"
            + " topic send")
    void retentionAndSubscriptionRedrive() throws Exception {
        String name = SqsTestSupport.unique("retain");
        Topic<String> topic = Topic.builder(name, String.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        broker(SqsTestSupport.config()).topology().declare(topic);

        Map<String, String> main = attributes(name);
        Map<String, String> dlq = attributes(name + "-dlq");
        assertThat(main.get("MessageRetentionPeriod")).isEqualTo("1209600");
        String arn = topicArn(name);
        var subscription = sns.listSubscriptionsByTopic(r -> r.topicArn(arn))
                .subscriptions()
                .getFirst();
        JsonNode redrive =
                JSON.readTree(sns.getSubscriptionAttributes(r -> r.subscriptionArn(subscription.subscriptionArn()))
                        .attributes()
                        .get("RedrivePolicy"));
        assertThat(redrive.get("deadLetterTargetArn").asText()).isEqualTo(dlq.get("QueueArn"));
        JsonNode dlqStatement =
                JSON.readTree(dlq.get("Policy")).get("Statement").get(0);
        assertThat(dlqStatement.at("/Condition/ArnEquals/aws:SourceArn").asText())
                .isEqualTo(arn);

        broker(SqsTestSupport.config().toBuilder()
                        .queueRetention(Duration.ofDays(2))
                        .build())
                .topology()
                .declare(topic);
        assertThat(attributes(name).get("MessageRetentionPeriod")).isEqualTo("172800");
    }

    @Test
    @DisplayName("a queue retention shorter than twice the longest tier, and a sequenced tier past SQS's 12 h"
            + " visibility, are refused before any queue is made")
    void limitsRefused() {
        String name = SqsTestSupport.unique("short");
        Topic<String> topic = Topic.builder(name, String.class)
                .holdQueue(Duration.ofHours(1))
                .dlq()
                .build();
        Broker<Sqs> shortLived = broker(SqsTestSupport.config().toBuilder()
                .queueRetention(Duration.ofMinutes(90))
                .build());
        assertThatThrownBy(() -> shortLived.topology().declare(topic))
                .isInstanceOf(TopologyException.class)
                .hasMessage(("topic '%s' has a hold tier of 1 h, but SQS queueRetention is 1 h 30 min: a retry could"
                                + " outlive its queue's retention and be deleted unseen. Set queueRetention to at"
                                + " least 2 h (twice the longest tier)")
                        .formatted(name));
        assertThat(sqs.listQueues(r -> r.queueNamePrefix(name)).queueUrls()).isEmpty();

        String seq = SqsTestSupport.unique("long-wait");
        Topic<String> sequenced = Topic.builder(seq, String.class)
                .holdQueue(Duration.ofHours(12))
                .dlq()
                .sequenced(SequenceFailure.FAIL_ALL, s -> s)
                .build();
        assertThatThrownBy(() -> broker(SqsTestSupport.config()).topology().declare(sequenced))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("sequenced topic '" + seq + "' has a hold tier of 12 h")
                .hasMessageContaining("Use tiers of at most 11 h");
    }

    @Test
    @DisplayName("a sequenced topic gets FIFO queues and a FIFO SNS topic, deduplicating by message id, not content")
    void sequencedTopic() {
        String name = SqsTestSupport.unique("topo-seq");
        Topic<String> topic = Topic.builder(name, String.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .sequenced(SequenceFailure.SKIP, s -> s)
                .build();
        broker(SqsTestSupport.config()).topology().declare(topic);

        assertThat(attributes(name + ".fifo"))
                .containsEntry("FifoQueue", "true")
                .containsEntry("ContentBasedDeduplication", "false");
        assertThat(attributes(name + "-dlq.fifo")).containsEntry("FifoQueue", "true");
        assertThat(sns.getTopicAttributes(r -> r.topicArn(topicArn(name + ".fifo")))
                        .attributes())
                .containsEntry("FifoTopic", "true");
    }

    @Test
    @DisplayName("the name prefix applies to every queue and topic, and the handler still sees the topic's name")
    void namePrefix() {
        String name = SqsTestSupport.unique("topo-prefix");
        Topic<String> topic = Topic.builder(name, String.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        Broker<Sqs> broker =
                broker(SqsTestSupport.config().toBuilder().namePrefix("env1-").build());
        List<String> seen = new CopyOnWriteArrayList<>();
        var group = broker.consumerGroup();
        group.register(topic, () -> (m, meta, c) -> {
            seen.add(meta.topic() + ":" + m);
            return Outcome.ack();
        });
        group.start();
        broker.publisher().publish(topic, "hello");

        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> seen.size() == 1);
        assertThat(seen).containsExactly(name + ":hello");
        assertThat(SqsTestSupport.queues(sqs, "env1-" + name)).hasSize(2);
        assertThat(SqsTestSupport.queues(sqs, name)).isEmpty();
        topicArn("env1-" + name);
        group.stop(Duration.ofSeconds(5));
    }

    @Test
    @DisplayName("an existing queue whose redrive policy names another DLQ is a TopologyException naming both")
    void conflictingRedrive() {
        String name = SqsTestSupport.unique("topo-redrive");
        broker(SqsTestSupport.config())
                .topology()
                .declare(Topic.builder(name, String.class)
                        .holdQueue(Duration.ofSeconds(1))
                        .dlq()
                        .build());
        Topic<String> other = Topic.builder(name, String.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq(name + "-graveyard")
                .build();

        assertThatThrownBy(() -> broker(SqsTestSupport.config()).topology().declare(other))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("'" + name + "'")
                .hasMessageContaining(name + "-dlq")
                .hasMessageContaining(name + "-graveyard");
    }

    @Test
    @DisplayName("a topic named like another topic's dead-letter queue, declared by another process, is refused:"
            + " the queue's role tag names its owner")
    void topicNamedLikeAnotherProcesssDeadLetterQueue() {
        String name = SqsTestSupport.unique("topo-alias");
        broker(SqsTestSupport.config())
                .topology()
                .declare(Topic.builder(name, String.class)
                        .holdQueue(Duration.ofSeconds(1))
                        .dlq()
                        .build());
        Topic<String> alias = Topic.builder(name + "-dlq", String.class)
                .holdQueue(Duration.ofSeconds(1))
                .build();

        assertThatThrownBy(() -> broker(SqsTestSupport.config()).topology().declare(alias))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("'" + name + "-dlq'")
                .hasMessageContaining("dead-letter queue of topic '" + name + "'")
                .hasMessageContaining(".dlq(");
        assertThat(sqs.listQueueTags(r -> r.queueUrl(url(name + "-dlq"))).tags())
                .containsEntry(SqsTopology.TAG_ROLE, "dlq:" + name);
    }

    @Test
    @DisplayName("an existing queue with a policy that does not let the topic send is a TopologyException")
    void foreignPolicy() {
        String name = SqsTestSupport.unique("topo-policy");
        String url = sqs.createQueue(r -> r.queueName(name)).queueUrl();
        sqs.setQueueAttributes(r -> r.queueUrl(url)
                .attributesWithStrings(Map.of("Policy", "{\"Version\":\"2012-10-17\",\"Statement\":[]}")));
        Topic<String> topic = Topic.builder(name, String.class)
                .holdQueue(Duration.ofSeconds(1))
                .build();

        assertThatThrownBy(() -> broker(SqsTestSupport.config()).topology().declare(topic))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("policy");
    }

    /** Queues, a topic, a policy and a raw subscription made without shove; returns the config that gives them. */
    private static SqsConfig given(String name, boolean redrive) {
        String ownMain = SqsTestSupport.unique("terraform-main");
        String ownDlq = SqsTestSupport.unique("terraform-dlq");
        String dlqUrl = sqs.createQueue(r -> r.queueName(ownDlq)).queueUrl();
        String dlqArn = sqs.getQueueAttributes(r -> r.queueUrl(dlqUrl).attributeNamesWithStrings("QueueArn"))
                .attributesAsStrings()
                .get("QueueArn");
        Map<String, String> attributes = redrive
                ? Map.of("RedrivePolicy", "{\"deadLetterTargetArn\":\"" + dlqArn + "\",\"maxReceiveCount\":5}")
                : Map.of();
        String mainUrl = sqs.createQueue(r -> r.queueName(ownMain).attributesWithStrings(attributes))
                .queueUrl();
        String mainArn = sqs.getQueueAttributes(r -> r.queueUrl(mainUrl).attributeNamesWithStrings("QueueArn"))
                .attributesAsStrings()
                .get("QueueArn");
        String arn = sns.createTopic(r -> r.name(SqsTestSupport.unique("terraform-topic")))
                .topicArn();
        sqs.setQueueAttributes(r ->
                r.queueUrl(mainUrl).attributesWithStrings(Map.of("Policy", SqsTopology.queuePolicy(mainArn, arn))));
        sns.subscribe(r ->
                r.topicArn(arn).protocol("sqs").endpoint(mainArn).attributes(Map.of("RawMessageDelivery", "true")));
        return SqsTestSupport.config().toBuilder()
                .queueUrl(name, mainUrl)
                .queueUrl(name + "-dlq", dlqUrl)
                .topicArn(name, arn)
                .build();
    }

    @Test
    @DisplayName("topology given by URL and ARN is checked and used, never created: nothing under the topic's name"
            + " appears")
    void givenTopology() {
        String name = SqsTestSupport.unique("topo-given");
        Topic<String> topic = Topic.builder(name, String.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        Broker<Sqs> broker = broker(given(name, true));
        List<String> dead = new CopyOnWriteArrayList<>();
        var group = broker.consumerGroup();
        group.register(topic, () -> new dev.shove.MessageHandler<String, dev.shove.NoContext>() {
            @Override
            public Outcome handle(String m, dev.shove.MessageMetadata meta, dev.shove.NoContext c) {
                return Outcome.reject("given");
            }

            @Override
            public void handleDead(String m, dev.shove.DeadMessageMetadata meta, dev.shove.NoContext c) {
                dead.add(m + ":" + meta.reason());
            }
        });
        group.start();
        broker.publisher().publish(topic, "via-terraform");

        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> dead.size() == 1);
        assertThat(dead).containsExactly("via-terraform:rejected: given");
        assertThat(SqsTestSupport.queues(sqs, name)).isEmpty();
        group.stop(Duration.ofSeconds(5));
    }

    @Test
    @DisplayName("given topology without a redrive policy (the backstop) is accepted as it is")
    void givenWithoutRedrive() {
        String name = SqsTestSupport.unique("topo-given-noredrive");
        Topic<String> topic = Topic.builder(name, String.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        SqsConfig config = given(name, false);

        broker(config).topology().declare(topic);
        String mainUrl = config.queueUrls().get(name);
        assertThat(sqs.getQueueAttributes(r -> r.queueUrl(mainUrl).attributeNamesWithStrings("All"))
                        .attributesAsStrings())
                .doesNotContainKey("RedrivePolicy");
    }

    @Test
    @DisplayName("topology given only in part is a TopologyException naming what is missing")
    void partlyGiven() {
        String name = SqsTestSupport.unique("topo-part");
        String url = sqs.createQueue(r -> r.queueName(name + "-elsewhere")).queueUrl();
        Topic<String> topic = Topic.builder(name, String.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        SqsConfig config =
                SqsTestSupport.config().toBuilder().queueUrl(name, url).build();

        assertThatThrownBy(() -> broker(config).topology().declare(topic))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("queueUrl(\"" + name + "-dlq\"")
                .hasMessageContaining("topicArn(\"" + name + "\"");
    }

    @Test
    @DisplayName("a given queue of the wrong shape (standard for a sequenced topic) is a TopologyException")
    void givenWrongShape() {
        String name = SqsTestSupport.unique("topo-shape");
        String url = sqs.createQueue(r -> r.queueName(name + "-std")).queueUrl();
        Topic<String> topic = Topic.builder(name, String.class)
                .holdQueue(Duration.ofSeconds(1))
                .sequenced(SequenceFailure.SKIP, s -> s)
                .allowMessageLoss()
                .build();
        SqsConfig config =
                SqsTestSupport.config().toBuilder().noSns().queueUrl(name, url).build();

        assertThatThrownBy(() -> broker(config).topology().declare(topic))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("standard")
                .hasMessageContaining("sequenced");
    }

    @Test
    @DisplayName("a name SQS cannot take ('.') is a TopologyException saying what SQS allows")
    void invalidName() {
        Topic<String> topic = Topic.builder(SqsTestSupport.unique("a.b"), String.class)
                .holdQueue(Duration.ofSeconds(1))
                .build();

        assertThatThrownBy(() -> broker(SqsTestSupport.config()).topology().declare(topic))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("letters, digits, '-' and '_'");
    }
}
