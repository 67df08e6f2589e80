package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.GetResponse;
import dev.shove.Broker;
import dev.shove.SequenceFailure;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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
}
