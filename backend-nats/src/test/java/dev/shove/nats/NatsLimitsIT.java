package dev.shove.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.Broker;
import dev.shove.Topic;
import dev.shove.TopologyException;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Stream limits that would drop a pending message (issue 33, defect 2): a max age shorter than the retries it holds is
 * refused at declare time, on a stream shove would create and on one that exists; dead-letter streams keep their
 * letters whatever the topic streams' limits.
 */
class NatsLimitsIT {
    private static final Set<String> before = new HashSet<>();

    @BeforeAll
    static void nats() throws Exception {
        NatsTestSupport.requireNats();
        before.addAll(NatsTestSupport.streams());
    }

    @AfterAll
    static void cleanUp() throws Exception {
        NatsTestSupport.deleteStreamsCreatedSince(before);
    }

    private static Topic<String> topic(String prefix, Duration longestTier) {
        return Topic.builder(NatsTestSupport.unique(prefix), String.class)
                .holdQueue(Duration.ofMillis(200))
                .holdQueue(longestTier)
                .dlq()
                .build();
    }

    private static boolean exists(JetStreamManagement jsm, String stream) throws Exception {
        try {
            jsm.getStreamInfo(stream);
            return true;
        } catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == NatsTopology.STREAM_NOT_FOUND) {
                return false;
            }
            throw e;
        }
    }

    @Test
    @DisplayName("a topic whose hold tier outlasts streamMaxAge is refused before any stream is made, naming the fix")
    void maxAgeShorterThanTierRefused() throws Exception {
        Topic<String> topic = topic("limits-short", Duration.ofSeconds(6));
        NatsConfig config = NatsTestSupport.config()
                .duplicateWindow(Duration.ofSeconds(1))
                .streamMaxAge(Duration.ofSeconds(3))
                .build();
        Connection raw = NatsTestSupport.raw();
        try (Broker<Nats> broker = Broker.connect(config)) {
            assertThatThrownBy(() -> broker.topology().declare(topic))
                    .isInstanceOf(TopologyException.class)
                    .hasMessage(
                            ("topic '%s' has a hold tier of 6 s, but NATS streamMaxAge is 3 s: its retry copies wait"
                                            + " in the topic's stream and would expire before they are due, with no retry and no"
                                            + " dead letter. Set streamMaxAge to at least 12 s (twice the longest tier), or"
                                            + " noStreamMaxAge()")
                                    .formatted(topic.name()));
            assertThat(exists(raw.jetStreamManagement(), NatsTopology.stream(topic.name())))
                    .isFalse();
        } finally {
            raw.close();
        }
    }

    @Test
    @DisplayName("an existing topic stream whose max age is too short for the topic's tiers is refused with the command"
            + " that raises it")
    void existingStreamTooShortRefused() throws Exception {
        Topic<String> topic = topic("limits-existing", Duration.ofSeconds(10));
        String stream = NatsTopology.stream(topic.name());
        Connection raw = NatsTestSupport.raw();
        try {
            raw.jetStreamManagement()
                    .addStream(StreamConfiguration.builder()
                            .name(stream)
                            .subjects(NatsTopology.subjects(topic))
                            .retentionPolicy(RetentionPolicy.Limits)
                            .duplicateWindow(Duration.ofSeconds(1))
                            .maxAge(Duration.ofSeconds(5))
                            .build());
            try (Broker<Nats> broker =
                    Broker.connect(NatsTestSupport.config().noStreamMaxAge().build())) {
                assertThatThrownBy(() -> broker.topology().declare(topic))
                        .isInstanceOf(TopologyException.class)
                        .hasMessageContaining("exists with max age 5 s")
                        .hasMessageContaining("at least 20 s")
                        .hasMessageContaining("nats stream edit " + stream + " --max-age=20s");
            }
        } finally {
            raw.close();
        }
    }

    @Test
    @DisplayName("a dead-letter stream takes neither the topic streams' max age nor their message limit")
    void deadLetterStreamKeepsLetters() throws Exception {
        Topic<String> topic = topic("limits-dlq", Duration.ofSeconds(1));
        NatsConfig config = NatsTestSupport.config().streamMaxMessages(1_000).build();
        Connection raw = NatsTestSupport.raw();
        try (Broker<Nats> broker = Broker.connect(config)) {
            broker.topology().declare(topic);
            JetStreamManagement jsm = raw.jetStreamManagement();
            StreamConfiguration main =
                    jsm.getStreamInfo(NatsTopology.stream(topic.name())).getConfiguration();
            StreamInfo dlq = jsm.getStreamInfo(NatsTopology.stream(topic.dlq().orElseThrow()));
            assertThat(main.getMaxAge()).isEqualTo(Duration.ofHours(1));
            assertThat(main.getMaxMsgs()).isEqualTo(1_000);
            assertThat(dlq.getConfiguration().getMaxAge()).isEqualTo(Duration.ZERO);
            assertThat(dlq.getConfiguration().getMaxMsgs()).isEqualTo(-1);
        } finally {
            raw.close();
        }
        NatsConfig aged =
                NatsTestSupport.config().deadLetterMaxAge(Duration.ofDays(30)).build();
        Topic<String> second = topic("limits-dlq-aged", Duration.ofSeconds(1));
        Connection again = NatsTestSupport.raw();
        try (Broker<Nats> broker = Broker.connect(aged)) {
            broker.topology().declare(second);
            assertThat(again.jetStreamManagement()
                            .getStreamInfo(NatsTopology.stream(second.dlq().orElseThrow()))
                            .getConfiguration()
                            .getMaxAge())
                    .isEqualTo(Duration.ofDays(30));
        } finally {
            again.close();
        }
    }
}
