package dev.shove.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.Broker;
import dev.shove.Topic;
import dev.shove.spi.DeadLetterStore;
import dev.shove.spi.Delivery;
import dev.shove.spi.Transport;
import io.lettuce.core.Consumer;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The Redis dead-letter store against a group that consumes the dead-letter stream, which the kit (whose groups run
 * without a dead-letter consumer) does not reach: pending entries count and are read, acknowledged ones are not, and a
 * removal deletes and acknowledges. The stream is written and read with raw commands, as a dead-letter consumer would.
 */
class RedisDeadLettersIT {
    record Msg(int n) {}

    private static RedisTestSupport redis;

    @BeforeAll
    static void redis() {
        redis = RedisTestSupport.connect();
    }

    @AfterAll
    static void cleanUp() {
        if (redis != null) {
            redis.close();
        }
    }

    private static Topic<Msg> topic() {
        String name = RedisTestSupport.unique("dlq-store");
        redis.forget(name);
        return Topic.builder(name, Msg.class)
                .holdQueue(Duration.ofSeconds(30))
                .dlq()
                .build();
    }

    private static List<String> ids(List<Delivery> letters) {
        return letters.stream().map(d -> ((RedisDelivery) d).id).toList();
    }

    private static List<String> payloads(List<Delivery> letters) {
        return letters.stream()
                .map(d -> new String(d.payload(), StandardCharsets.UTF_8))
                .toList();
    }

    @Test
    @SuppressWarnings("unchecked") // xreadgroup's generic varargs
    @DisplayName("the dead letters of a group are its pending entries and those past its position, in stream order;"
            + " removing deletes them and acknowledges the pending ones")
    void groupView() {
        Topic<Msg> topic = topic();
        String group = "ops";
        try (Broker<Redis> broker = Broker.connect(redis.recording(RedisConfig.of(RedisTestSupport.uri())))) {
            broker.topology().declare(topic);
            Transport transport = broker.unwrap(Transport.class).orElseThrow();
            RedisClusterCommands<String, String> r = redis.redis();
            String key = new RedisKeys(RedisConfig.of(RedisTestSupport.uri()).keyPrefix())
                    .deadLetters(topic, topic.dlq().orElseThrow());
            List<String> e = new ArrayList<>();
            for (int i = 1; i <= 5; i++) {
                e.add(r.xadd(key, Map.of(RedisEntries.PAYLOAD, "p" + i, "tenant", "acme")));
            }
            r.xgroupCreate(XReadArgs.StreamOffset.from(key, "0"), group);
            r.xreadgroup(
                    Consumer.from(group, "c"),
                    XReadArgs.Builder.count(3),
                    XReadArgs.StreamOffset.lastConsumed(key)); // p1..p3 pending
            r.xack(key, group, e.get(1)); // p2 consumed

            DeadLetterStore store = transport.deadLetters(topic, group);

            assertThat(store.queue()).isEqualTo(topic.dlq().orElseThrow());
            assertThat(store.readsInPlace()).isTrue();
            assertThat(store.count()).isEqualTo(4);
            try (DeadLetterStore.Scan scan = store.scan()) {
                r.xadd(key, Map.of(RedisEntries.PAYLOAD, "late")); // after the pass began: not in it
                List<Delivery> letters = scan.next(10);
                assertThat(payloads(letters)).containsExactly("p1", "p3", "p4", "p5");
                assertThat(letters.getFirst().headers()).containsEntry("tenant", "acme");
                assertThat(letters.getFirst().queue()).isEqualTo(topic.dlq().orElseThrow());
                assertThat(scan.next(10)).isEmpty();

                scan.remove(List.of(letters.get(0), letters.get(2))); // p1 (pending) and p4 (unread)
            }

            assertThat(r.xlen(key)).isEqualTo(4); // p2, p3, p5, late
            assertThat(r.xpending(key, group).getCount()).isEqualTo(1); // p3 only: p1 was acknowledged
            // p4 was past the group's position, so Redis no longer knows the lag: the store counts past it itself
            assertThat(store.count()).isEqualTo(3); // p3 pending, p5 and late unread
            try (DeadLetterStore.Scan scan = store.scan()) {
                List<Delivery> one = new ArrayList<>();
                for (List<Delivery> page = scan.next(1); !page.isEmpty(); page = scan.next(1)) {
                    assertThat(page).hasSize(1);
                    one.addAll(page);
                }
                assertThat(payloads(one)).containsExactly("p3", "p5", "late");
                assertThat(ids(one).getFirst()).isEqualTo(e.get(2));
            }

            // a group that never read the stream sees all of it; a removal deletes the entry for every group
            DeadLetterStore fresh = transport.deadLetters(topic, "auditors");
            assertThat(fresh.count()).isEqualTo(4);
            try (DeadLetterStore.Scan scan = fresh.scan()) {
                List<Delivery> letters = scan.next(10);
                assertThat(payloads(letters)).containsExactly("p2", "p3", "p5", "late");
                scan.remove(List.of(letters.get(1))); // p3, pending to "ops"
            }
            assertThat(r.xlen(key)).isEqualTo(3);
            assertThat(fresh.count()).isEqualTo(3);
        }
    }
}
