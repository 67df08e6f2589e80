package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.GetResponse;
import dev.shove.Broker;
import dev.shove.PublishException;
import dev.shove.SequenceFailure;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What a published message looks like on the broker. */
class RabbitMqPublishIT {
    record Msg(String key, int n) {}

    @RegisterExtension
    static final RabbitAdmin admin = new RabbitAdmin();

    private static Broker<RabbitMq> broker;

    @BeforeAll
    static void connect() {
        broker = admin.connect(admin.config("shove-it-publish"));
    }

    @Test
    @DisplayName("a published message is persistent, typed by the codec, and carries the user's and shove's headers")
    void messageOnTheWire() throws Exception {
        Topic<Msg> topic = Topic.builder(admin.unique("wire"), Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        broker.topology().declare(topic);
        broker.publisher().publishWithHeaders(topic, new Msg("k", 1), Map.of("tenant", "acme"));
        GetResponse r = admin.get(topic.name());
        assertThat(r).isNotNull();
        assertThat(r.getProps().getDeliveryMode()).isEqualTo(2);
        assertThat(r.getProps().getContentType()).isEqualTo("application/json");
        Map<String, String> headers = AmqpMessages.toStrings(r.getProps().getHeaders());
        assertThat(headers).containsEntry("tenant", "acme").containsKey(ShoveHeaders.MESSAGE_ID);
        assertThat(r.getProps().getMessageId()).isEqualTo(headers.get(ShoveHeaders.MESSAGE_ID));
        assertThat(new String(r.getBody(), StandardCharsets.UTF_8)).isEqualTo("{\"key\":\"k\",\"n\":1}");
    }

    @Test
    @DisplayName("a sequenced message lands on the shard FNV-1a(key) % shards picks, with its key in a header")
    void sequencedRouting() throws Exception {
        Topic<Msg> topic = Topic.builder(admin.unique("route"), Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .routingShards(4)
                .build();
        broker.topology().declare(topic);
        List<String> keys = IntStream.range(0, 40).mapToObj(i -> "key-" + i).toList();
        for (String key : keys) {
            broker.publisher().publish(topic, new Msg(key, 0));
        }
        int found = 0;
        for (int shard = 0; shard < 4; shard++) {
            for (GetResponse r : admin.drain(topic.shardName(shard))) {
                String key = AmqpMessages.toStrings(r.getProps().getHeaders()).get(ShoveHeaders.SEQUENCE_KEY);
                assertThat(key).isNotNull();
                assertThat(topic.sequencing().orElseThrow().shardOf(key))
                        .as("shard of key %s", key)
                        .isEqualTo(shard);
                found++;
            }
        }
        assertThat(found).isEqualTo(keys.size());
    }

    @Test
    @DisplayName("asynchronous publishes pipeline on confirm channels and all complete once confirmed")
    void asyncPublishes() throws Exception {
        Topic<Msg> topic = Topic.builder(admin.unique("async"), Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        broker.topology().declare(topic);
        List<CompletableFuture<Void>> futures = IntStream.range(0, 1000)
                .mapToObj(i -> broker.publisher().publishAsync(topic, new Msg("k", i), Map.of()))
                .toList();
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get();
        assertThat(admin.depth(topic.name())).isEqualTo(1000);
    }

    /**
     * A {@code CC} header that is not an array makes RabbitMQ close the channel with 406 PRECONDITION_FAILED ("invalid
     * message: unacceptable_type_in_header"), as any message over the broker's {@code max_message_size} does: a
     * refusal for good, on the publish path, that no retry can fix.
     */
    private static final Map<String, String> REFUSED_HEADERS = Map.of("CC", "not-an-array");

    @Test
    @DisplayName(
            "a publish the broker refuses for good (406) fails at once, not retriable, naming the queue and the fix")
    void permanentRefusalIsNotRetried() throws Exception {
        Broker<RabbitMq> attempts5 = admin.connect(admin.config(admin.unique("refused")).toBuilder()
                .publishAttempts(5)
                .build());
        Topic<Msg> topic = Topic.builder(admin.unique("refused"), Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        attempts5.topology().declare(topic);

        assertThatThrownBy(() -> attempts5.publisher().publishWithHeaders(topic, new Msg("k", 1), REFUSED_HEADERS))
                .isInstanceOfSatisfying(
                        PublishException.class,
                        e -> assertThat(e.isRetriable())
                                .as("a refusal for good is not worth publishing again")
                                .isFalse())
                .hasMessageContaining("queue '" + topic.name() + "'")
                .hasMessageContaining("406 PRECONDITION_FAILED")
                .hasMessageContaining("max_message_size")
                .hasMessageNotContaining("attempt(s)");

        // the publisher is fine afterwards, and nothing of the refused message reached the queue
        attempts5.publisher().publish(topic, new Msg("k", 2));
        List<GetResponse> stored = admin.drain(topic.name());
        assertThat(stored).hasSize(1);
        assertThat(new String(stored.get(0).getBody(), StandardCharsets.UTF_8)).contains("\"n\":2");
    }

    @Test
    @DisplayName("publishes sharing a channel with a refused one are tried again and all land; only the refused fails")
    void innocentNeighboursOfARefusalLand() throws Exception {
        Broker<RabbitMq> oneChannel = admin.connect(admin.config(admin.unique("refused-1ch")).toBuilder()
                .publishChannels(1)
                .build());
        Topic<Msg> topic = Topic.builder(admin.unique("refused-mixed"), Msg.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        oneChannel.topology().declare(topic);
        List<CompletableFuture<Void>> good = new java.util.ArrayList<>();
        CompletableFuture<Void> bad = null;
        for (int i = 0; i < 200; i++) {
            if (i == 100) {
                bad = oneChannel.publisher().publishAsync(topic, new Msg("bad", i), REFUSED_HEADERS);
            } else {
                good.add(oneChannel.publisher().publishAsync(topic, new Msg("k", i), Map.of()));
            }
        }
        CompletableFuture.allOf(good.toArray(CompletableFuture[]::new)).get();
        assertThatThrownBy(bad::join)
                .isInstanceOf(CompletionException.class)
                .cause()
                .isInstanceOfSatisfying(
                        PublishException.class, e -> assertThat(e.isRetriable()).isFalse());
        Set<String> bodies = admin.drain(topic.name()).stream()
                .map(r -> new String(r.getBody(), StandardCharsets.UTF_8))
                .collect(Collectors.toSet());
        assertThat(bodies).hasSize(199).noneMatch(b -> b.contains("bad"));
    }
}
