package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.shove.Broker;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.Topic;
import dev.shove.TopologyException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Declaring topics: idempotence, conflicts, and the names the broker and the handler see. */
abstract class TopologyContracts<B> extends Contracts<B> {

    TopologyContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    @Test
    @DisplayName("declaring a topic twice is idempotent: no error, and it works as declared once")
    void declareIsIdempotent() {
        Topic<Msg> topic = plainTopic("declare-twice");
        h().broker().topology().declare(topic);
        h().broker().topology().declare(topic);
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(1);
        rec.assertNoMoreCalls(1);
    }

    @Test
    @DisplayName("a topic declared by another connection can be declared again")
    void declareFromAnotherConnection() {
        Topic<Msg> topic = plainTopic("declare-other");
        try (Broker<B> other = Broker.connect(h().kit().brokerConfig())) {
            other.topology().declare(topic);
        }
        h().broker().topology().declare(topic);
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        assertThat(rec.awaitCalls(1)).extracting(Recorder.Call::message).containsExactly(Msg.of(1));
    }

    @Test
    @DisplayName("declareAll declares every topic: each can be published to before any consumer exists")
    void declareAll() {
        Topic<Msg> a = plainTopic("declare-all-a");
        Topic<Msg> b = plainTopic("declare-all-b");
        Topic<Msg> c = plainTopic("declare-all-c");
        h().broker().topology().declareAll(a, b, c);
        h().publisher().publish(a, Msg.of(1));
        h().publisher().publish(b, Msg.of(2));
        h().publisher().publish(c, Msg.of(3));

        Recorder<Msg> rec = h().acking();
        var group = h().group();
        group.register(a, config(), () -> rec);
        group.register(b, config(), () -> rec);
        group.register(c, config(), () -> rec);
        group.start();

        rec.awaitCalls(3);
        assertThat(rec.messages()).containsExactlyInAnyOrder(Msg.of(1), Msg.of(2), Msg.of(3));
    }

    @Test
    @DisplayName("declareAll stops at the first topic that fails: earlier ones are declared, later ones are not")
    void declareAllStopsAtFirstFailure() {
        assumeTrue(h().kit().detectsConflictingDeclarations(), "the backend cannot detect conflicting declarations");
        assumeTrue(h().kit().refusesUndeclaredTopics(), "the backend creates topics on first use");
        Topic<Msg> first = plainTopic("declare-all-first");
        Topic<Msg> existing = plainTopic("declare-all-conflict");
        Topic<Msg> last = plainTopic("declare-all-last");
        h().broker().topology().declare(existing);
        Topic<Msg> conflicting = Topic.builder(existing.name(), Msg.class)
                .holdQueue(tier())
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .build();

        assertThatThrownBy(() -> h().broker().topology().declareAll(first, conflicting, last))
                .isInstanceOf(TopologyException.class);
        h().publisher().publish(first, Msg.of(1));
        assertThatThrownBy(() -> h().publisher().publish(last, Msg.of(2))).isInstanceOf(TopologyException.class);
    }

    @Test
    @DisplayName("redeclaring a topic with a conflicting shape fails with a TopologyException naming the topic")
    void conflictingRedeclaration() {
        assumeTrue(h().kit().detectsConflictingDeclarations(), "the backend cannot detect conflicting declarations");
        Topic<Msg> plain = plainTopic("conflict");
        h().broker().topology().declare(plain);
        Topic<Msg> sequenced = Topic.builder(plain.name(), Msg.class)
                .holdQueue(tier())
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .build();

        assertThatThrownBy(() -> h().broker().topology().declare(sequenced))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining(plain.name());
    }

    @Test
    @DisplayName("publishing to a topic that was never declared fails with a TopologyException naming it")
    void publishToUndeclared() {
        assumeTrue(h().kit().refusesUndeclaredTopics(), "the backend creates topics on first use");
        Topic<Msg> topic = plainTopic("undeclared");

        assertThatThrownBy(() -> h().publisher().publish(topic, Msg.of(1)))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining(topic.name());
    }

    @Test
    @DisplayName("the handler sees the topic's name in metadata.topic()")
    void metadataTopicIsTopicName() {
        Topic<Msg> topic = plainTopic("naming");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        assertThat(rec.awaitCalls(1).getFirst().metadata().topic()).isEqualTo(topic.name());
    }

    @Test
    @DisplayName("a sequenced topic's handler sees the topic's name, not a shard's, in metadata.topic()")
    void sequencedMetadataTopicIsTopicName() {
        Topic<Msg> topic = h().topic("naming-seq")
                .holdQueue(tier())
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .build();
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        h().publisher().publish(topic, new Msg("a", 1));

        assertThat(rec.awaitCalls(1).getFirst().metadata().topic()).isEqualTo(topic.name());
    }

    @Test
    @DisplayName("a dead-letter queue with a name of its own receives the topic's dead letters")
    void namedDeadLetterQueue() {
        String dlq = h().name("custom-dead");
        Topic<Msg> topic = h().topic("named-dlq").holdQueue(tier()).dlq(dlq).build();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.reject());
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        Recorder.Death<Msg> death = rec.awaitDeaths(1).getFirst();
        assertThat(death.message()).isEqualTo(Msg.of(1));
        assertThat(death.metadata().originalQueue()).isEqualTo(topic.name());
    }

    @Test
    @DisplayName("a topic named like another topic's dead-letter queue is refused at declare, naming both topics and"
            + " the fix")
    void topicNamedLikeAnotherTopicsDeadLetterQueueIsRefused() {
        Topic<Msg> topic = plainTopic("dlq-alias");
        h().broker().topology().declare(topic);
        Topic<Msg> alias = Topic.builder(topic.dlq().orElseThrow(), Msg.class)
                .holdQueue(tier())
                .build();

        assertThatThrownBy(() -> h().broker().topology().declare(alias))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("'" + alias.name() + "'")
                .hasMessageContaining("'" + topic.name() + "'")
                .hasMessageContaining(".dlq(");
    }

    @Test
    @DisplayName("a dead-letter queue named like another topic is refused at declare, also when a consumer group"
            + " declares it")
    void deadLetterQueueNamedLikeAnotherTopicIsRefused() {
        Topic<Msg> taken = plainTopic("dlq-taken");
        h().broker().topology().declare(taken);
        Topic<Msg> topic =
                h().topic("dlq-onto").holdQueue(tier()).dlq(taken.name()).build();

        Recorder<Msg> rec = h().acking();

        assertThatThrownBy(() -> h().group().register(topic, config(), () -> rec))
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("'" + topic.name() + "'")
                .hasMessageContaining("'" + taken.name() + "'");
    }

    @Test
    @DisplayName("ping makes a round trip to the broker while it is open, and fails once it is closed")
    void ping() {
        h().broker().ping(h().patience());
        h().broker().close();

        assertThatThrownBy(() -> h().broker().ping()).isInstanceOf(IllegalStateException.class);
    }
}
