package dev.shove;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("Topic")
class TopicTest {
    record Order(String id, String customer) {}

    private static Topic.Builder<Order> orders() {
        return Topic.builder("orders", Order.class);
    }

    private static List<String> tierQueues(Topic<?> topic) {
        return topic.holdTiers().stream().map(HoldTier::queue).toList();
    }

    @Nested
    @DisplayName("naming")
    class Names {
        @ParameterizedTest(name = "{0} ms -> orders-hold-{1}")
        @CsvSource({
            "500, 500ms",
            "1500, 1500ms",
            "1000, 1s",
            "5000, 5s",
            "90000, 90s",
            "60000, 1m",
            "120000, 2m",
            "5400000, 90m",
            "3600000, 1h",
            "90000000, 25h"
        })
        @DisplayName("hold tiers are named {name}-hold-{compact delay} in the largest exact unit")
        void compactTierNames(long millis, String compact) {
            Topic<Order> topic =
                    orders().holdQueue(Duration.ofMillis(millis)).dlq().build();

            assertThat(topic.holdTiers())
                    .containsExactly(new HoldTier(Duration.ofMillis(millis), "orders-hold-" + compact));
        }

        @Test
        @DisplayName("sub-second tiers never collide with each other or with whole seconds")
        void subSecondTiersAreDistinct() {
            Topic<Order> topic = orders().holdQueue(Duration.ofMillis(500))
                    .holdQueue(Duration.ofMillis(999))
                    .holdQueue(Duration.ofSeconds(1))
                    .holdQueue(Duration.ofMillis(1001))
                    .dlq()
                    .build();

            assertThat(tierQueues(topic))
                    .containsExactly("orders-hold-500ms", "orders-hold-999ms", "orders-hold-1s", "orders-hold-1001ms");
        }

        @Test
        @DisplayName("tiers keep their declaration order and delays")
        void tierOrder() {
            Topic<Order> topic = orders().holdQueue(Duration.ofSeconds(30))
                    .holdQueue(Duration.ofSeconds(300))
                    .dlq()
                    .build();

            assertThat(topic.holdTiers())
                    .containsExactly(
                            new HoldTier(Duration.ofSeconds(30), "orders-hold-30s"),
                            new HoldTier(Duration.ofSeconds(300), "orders-hold-5m"));
            assertThat(topic.hasImplicitTier()).isFalse();
        }

        @Test
        @DisplayName("the main queue is the topic's name and the DLQ defaults to {name}-dlq")
        void mainAndDlq() {
            Topic<Order> topic = orders().holdQueue(Duration.ofSeconds(5)).dlq().build();

            assertThat(topic.name()).isEqualTo("orders");
            assertThat(topic.dlq()).contains("orders-dlq");
            assertThat(topic).hasToString("Topic[orders]");
        }

        @Test
        @DisplayName("dlq(name) names the dead-letter queue")
        void namedDlq() {
            Topic<Order> topic = orders().holdQueue(Duration.ofSeconds(5))
                    .dlq("billing-dead")
                    .build();

            assertThat(topic.dlq()).contains("billing-dead");
        }

        @Test
        @DisplayName("without dlq() the topic has no dead-letter queue")
        void noDlq() {
            Topic<Order> topic = orders().holdQueue(Duration.ofSeconds(5)).build();

            assertThat(topic.dlq()).isEmpty();
        }

        @Test
        @DisplayName("shards are {name}-seq-{i}, their tiers {name}-seq-{i}-hold-{delay}")
        void shardNames() {
            Topic<Order> topic = Topic.builder("payments", Order.class)
                    .holdQueue(Duration.ofSeconds(5))
                    .holdQueue(Duration.ofSeconds(60))
                    .dlq()
                    .sequenced(SequenceFailure.SKIP, Order::customer)
                    .build();

            assertThat(topic.shardName(0)).isEqualTo("payments-seq-0");
            assertThat(topic.shardName(7)).isEqualTo("payments-seq-7");
            assertThat(topic.shardHoldTiers(2))
                    .containsExactly(
                            new HoldTier(Duration.ofSeconds(5), "payments-seq-2-hold-5s"),
                            new HoldTier(Duration.ofSeconds(60), "payments-seq-2-hold-1m"));
        }

        @ParameterizedTest(name = "\"{0}\" is refused")
        @ValueSource(strings = {"", "-orders", ".orders", "_orders", "or ders", "orders/x", "orders:x", "ördersß"})
        @DisplayName("a topic name unusable on some broker is refused with a message saying what is allowed")
        void invalidNames(String name) {
            assertThatThrownBy(() -> Topic.builder(name, Order.class))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("topic name '" + name + "'")
                    .hasMessageContaining("1 to 200 letters, digits");
        }

        @Test
        @DisplayName("a topic name is 1 to 200 characters")
        void nameLength() {
            assertThat(Topic.builder("a", Order.class).build().name()).isEqualTo("a");
            String longest = "x".repeat(200);
            assertThat(Topic.builder(longest, Order.class).build().name()).isEqualTo(longest);
            assertThatThrownBy(() -> Topic.builder("x".repeat(201), Order.class))
                    .isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        @DisplayName("names may use letters, digits, '.', '_' and '-'")
        void validName() {
            assertThat(Topic.builder("Orders.v2_eu-1", Order.class).build().name())
                    .isEqualTo("Orders.v2_eu-1");
        }

        @Test
        @DisplayName("a null topic name is refused with the same message")
        void nullName() {
            assertThatThrownBy(() -> Topic.builder(null, Order.class))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("topic name 'null'");
        }

        @Test
        @DisplayName("an invalid dlq name is refused, as is the topic's own name")
        void invalidDlqName() {
            assertThatThrownBy(() -> orders().dlq("dead letters"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("dlq name 'dead letters'");
            assertThatThrownBy(() -> orders().dlq("orders"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("topic 'orders'")
                    .hasMessageContaining("own name");
        }
    }

    @Nested
    @DisplayName("hold tiers")
    class HoldTiers {
        @Test
        @DisplayName("a topic without tiers gets one implicit 1 s tier")
        void implicitTier() {
            Topic<Order> topic = orders().dlq().build();

            assertThat(topic.holdTiers()).containsExactly(new HoldTier(Duration.ofSeconds(1), "orders-hold-1s"));
            assertThat(topic.hasImplicitTier()).isTrue();
            assertThat(Topic.IMPLICIT_TIER_DELAY).isEqualTo(Duration.ofSeconds(1));
        }

        @Test
        @DisplayName("tiers declared out of order are refused, naming both delays")
        void outOfOrder() {
            assertThatThrownBy(() -> orders().holdQueue(Duration.ofSeconds(30)).holdQueue(Duration.ofSeconds(5)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("topic 'orders'")
                    .hasMessageContaining("shortest first")
                    .hasMessageContaining("5 s follows 30 s");
        }

        @Test
        @DisplayName("a tier declared twice is refused, also when spelt in another unit")
        void duplicate() {
            assertThatThrownBy(() -> orders().holdQueue(Duration.ofSeconds(5)).holdQueue(Duration.ofSeconds(5)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("hold queue 5 s is declared twice");
            assertThatThrownBy(() -> orders().holdQueue(Duration.ofMinutes(1)).holdQueue(Duration.ofSeconds(60)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("hold queue 1 min is declared twice");
        }

        @Test
        @DisplayName("a tier that is not adjacent to its duplicate is refused as out of order")
        void duplicateNotAdjacent() {
            assertThatThrownBy(() -> orders().holdQueue(Duration.ofSeconds(5))
                            .holdQueue(Duration.ofSeconds(30))
                            .holdQueue(Duration.ofSeconds(5)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("shortest first");
        }

        @ParameterizedTest(name = "{0} ms")
        @ValueSource(longs = {0, -1, -5000})
        @DisplayName("a zero or negative tier is refused")
        void notPositive(long millis) {
            assertThatThrownBy(() -> orders().holdQueue(Duration.ofMillis(millis)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("topic 'orders'")
                    .hasMessageContaining("must be positive");
        }

        @Test
        @DisplayName("a sub-millisecond tier is refused: tiers are whole milliseconds")
        void subMillisecond() {
            assertThatThrownBy(() -> orders().holdQueue(Duration.ofNanos(1_500_000)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("whole milliseconds");
            assertThatThrownBy(() -> orders().holdQueue(Duration.ofNanos(999)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("whole milliseconds");
        }

        @Test
        @DisplayName("a null tier is refused")
        void nullTier() {
            assertThatThrownBy(() -> orders().holdQueue(null)).isInstanceOf(NullPointerException.class);
        }

        @Test
        @DisplayName("the tier list is immutable")
        void immutable() {
            Topic<Order> topic = orders().holdQueue(Duration.ofSeconds(5)).build();

            assertThatThrownBy(() -> topic.holdTiers().clear()).isInstanceOf(UnsupportedOperationException.class);
        }
    }

    @Nested
    @DisplayName("settings given twice")
    class Twice {
        @Test
        @DisplayName("dlq() twice fails naming the first dlq")
        void dlqTwice() {
            assertThatThrownBy(() -> orders().dlq().dlq())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("topic 'orders': dlq was already set to 'orders-dlq'");
        }

        @Test
        @DisplayName("dlq(name) after dlq() fails, and the other way round")
        void dlqNamedTwice() {
            assertThatThrownBy(() -> orders().dlq().dlq("other"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("dlq was already set");
            assertThatThrownBy(() -> orders().dlq("other").dlq())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("dlq was already set to 'other'");
        }

        @Test
        @DisplayName("sequenced(...) twice fails")
        void sequencedTwice() {
            assertThatThrownBy(() -> orders().sequenced(SequenceFailure.SKIP, Order::customer)
                            .sequenced(SequenceFailure.FAIL_ALL, Order::customer))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("sequenced(...) was already set to SKIP");
        }

        @Test
        @DisplayName("routingShards twice fails")
        void shardsTwice() {
            assertThatThrownBy(() -> orders().sequenced(SequenceFailure.SKIP, Order::customer)
                            .routingShards(4)
                            .routingShards(8))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("routingShards was already set to 4");
        }

        @Test
        @DisplayName("codec twice fails")
        void codecTwice() {
            assertThatThrownBy(() -> orders().codec(Codec.json(Order.class)).codec(Codec.json(Order.class)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("codec was already set");
        }
    }

    @Nested
    @DisplayName("sequenced topics")
    class Sequenced {
        @Test
        @DisplayName("default to 8 shards and expose their failure mode and key")
        void defaults() {
            Topic<Order> topic = orders().holdQueue(Duration.ofSeconds(5))
                    .dlq()
                    .sequenced(SequenceFailure.FAIL_ALL, Order::customer)
                    .build();

            assertThat(topic.isSequenced()).isTrue();
            Sequencing<Order> sequencing = topic.sequencing().orElseThrow();
            assertThat(sequencing.routingShards())
                    .isEqualTo(Sequencing.DEFAULT_ROUTING_SHARDS)
                    .isEqualTo(8);
            assertThat(sequencing.onFailure()).isEqualTo(SequenceFailure.FAIL_ALL);
            assertThat(sequencing.keyOf(new Order("o-1", "c-9"))).isEqualTo("c-9");
        }

        @Test
        @DisplayName("routingShards sets the shard count")
        void shards() {
            Topic<Order> topic = orders().holdQueue(Duration.ofSeconds(5))
                    .dlq()
                    .sequenced(SequenceFailure.SKIP, Order::customer)
                    .routingShards(16)
                    .build();

            assertThat(topic.sequencing().orElseThrow().routingShards()).isEqualTo(16);
        }

        @Test
        @DisplayName("routingShards may come before sequenced(...) as long as both are set")
        void shardsBeforeSequenced() {
            Topic<Order> topic = orders().holdQueue(Duration.ofSeconds(5))
                    .dlq()
                    .routingShards(3)
                    .sequenced(SequenceFailure.SKIP, Order::customer)
                    .build();

            assertThat(topic.sequencing().orElseThrow().routingShards()).isEqualTo(3);
        }

        @Test
        @DisplayName("without a DLQ fails, saying how to fix it")
        void requiresDlq() {
            assertThatThrownBy(() -> orders().holdQueue(Duration.ofSeconds(5))
                            .sequenced(SequenceFailure.SKIP, Order::customer)
                            .build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("topic 'orders': sequenced topics require a dlq")
                    .hasMessageContaining(".dlq()");
        }

        @Test
        @DisplayName("without a hold tier fails, saying how to fix it")
        void requiresTier() {
            assertThatThrownBy(() -> orders().dlq()
                            .sequenced(SequenceFailure.SKIP, Order::customer)
                            .build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("topic 'orders': sequenced topics require at least one hold queue")
                    .hasMessageContaining(".holdQueue(delay)");
        }

        @Test
        @DisplayName("allowMessageLoss waives both guards; the implicit tier is then used")
        void allowMessageLoss() {
            Topic<Order> topic = orders().sequenced(SequenceFailure.SKIP, Order::customer)
                    .allowMessageLoss()
                    .build();

            assertThat(topic.isSequenced()).isTrue();
            assertThat(topic.dlq()).isEmpty();
            assertThat(topic.allowsMessageLoss()).isTrue();
            assertThat(topic.hasImplicitTier()).isTrue();
            assertThat(tierQueues(topic)).containsExactly("orders-hold-1s");
        }

        @Test
        @DisplayName("routingShards without sequenced(...) fails at build, saying to call sequenced")
        void shardsWithoutSequenced() {
            assertThatThrownBy(() -> orders().dlq().routingShards(4).build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("routingShards(4) only applies to sequenced topics")
                    .hasMessageContaining("call sequenced(...)");
        }

        @ParameterizedTest(name = "{0} shards")
        @ValueSource(ints = {0, -1})
        @DisplayName("zero or negative shards are refused")
        void zeroShards(int shards) {
            assertThatThrownBy(() -> orders().routingShards(shards))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("routingShards must be greater than 0, was " + shards);
        }

        @Test
        @DisplayName("a key function returning null fails naming the message")
        void nullKey() {
            Topic<Order> topic = orders().holdQueue(Duration.ofSeconds(5))
                    .dlq()
                    .sequenced(SequenceFailure.SKIP, o -> null)
                    .build();

            assertThatThrownBy(() -> topic.sequencing().orElseThrow().keyOf(new Order("o-1", "c")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("returned null")
                    .hasMessageContaining("o-1");
        }

        @Test
        @DisplayName("an unsequenced topic has no sequencing")
        void unsequenced() {
            Topic<Order> topic = orders().holdQueue(Duration.ofSeconds(5)).dlq().build();

            assertThat(topic.isSequenced()).isFalse();
            assertThat(topic.sequencing()).isEmpty();
        }
    }

    @Nested
    @DisplayName("broadcast topics")
    class Broadcast {
        @Test
        @DisplayName("have no tiers, no DLQ and no sequencing")
        void plain() {
            Topic<Order> topic = orders().broadcast().build();

            assertThat(topic.isBroadcast()).isTrue();
            assertThat(topic.holdTiers()).isEmpty();
            assertThat(topic.hasImplicitTier()).isFalse();
            assertThat(topic.dlq()).isEmpty();
            assertThat(topic.isSequenced()).isFalse();
        }

        @Test
        @DisplayName("cannot have a DLQ")
        void withDlq() {
            assertThatThrownBy(() -> orders().broadcast().dlq().build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("topic 'orders': a broadcast topic is best effort");
        }

        @Test
        @DisplayName("cannot have hold tiers")
        void withTiers() {
            assertThatThrownBy(() -> orders().holdQueue(Duration.ofSeconds(5))
                            .broadcast()
                            .build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot have a dlq, hold queues or sequencing");
        }

        @Test
        @DisplayName("cannot be sequenced, even with allowMessageLoss")
        void withSequencing() {
            assertThatThrownBy(() -> orders().broadcast()
                            .sequenced(SequenceFailure.SKIP, Order::customer)
                            .allowMessageLoss()
                            .build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("broadcast");
        }

        @Test
        @DisplayName("with routingShards fails as an unsequenced topic would")
        void withShards() {
            assertThatThrownBy(() -> orders().broadcast().routingShards(2).build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("only applies to sequenced topics");
        }

        @Test
        @DisplayName("logs no warning about missing tiers or DLQ")
        void noWarnings() throws Exception {
            String log = CapturedLog.during(
                    () -> Topic.builder("bcast-quiet", Order.class).broadcast().build());

            assertThat(log).doesNotContain("bcast-quiet");
        }
    }

    @Nested
    @DisplayName("codecs")
    class Codecs {
        @Test
        @DisplayName("a byte[] topic uses the raw codec")
        void rawForBytes() {
            Topic<byte[]> topic = Topic.builder("blobs", byte[].class).dlq().build();

            assertThat(topic.codec()).isSameAs(Codec.raw());
            assertThat(topic.codec().contentType()).isEqualTo("application/octet-stream");
        }

        @Test
        @DisplayName("any other class uses JSON")
        void jsonOtherwise() throws Exception {
            Topic<Order> topic = orders().dlq().build();

            assertThat(topic.codec().contentType()).isEqualTo("application/json");
            byte[] json = topic.codec().encode(new Order("o-1", "c-1"));
            assertThat(new ObjectMapper().readTree(json))
                    .isEqualTo(new ObjectMapper().readTree("{\"id\":\"o-1\",\"customer\":\"c-1\"}"));
        }

        @Test
        @DisplayName("codec(...) replaces the codec chosen from the class")
        void replaced() {
            Codec<Order> custom = Codec.json(Order.class);
            Topic<Order> topic = orders().codec(custom).build();

            assertThat(topic.codec()).isSameAs(custom);
        }

        @Test
        @DisplayName("builder(name, codec) uses that codec")
        void builderWithCodec() {
            Topic<byte[]> topic = Topic.builder("raw", Codec.raw()).build();

            assertThat(topic.codec()).isSameAs(Codec.raw());
        }
    }

    @Nested
    @DisplayName("warnings at build")
    class Warnings {
        @Test
        @DisplayName("no tiers: WARN naming the implicit tier's queue")
        void implicitTierWarns() throws Exception {
            String log = CapturedLog.during(
                    () -> Topic.builder("warn-notier", Order.class).dlq().build());

            assertThat(log)
                    .contains("WARN")
                    .contains("topic 'warn-notier' declares no hold queue")
                    .contains("warn-notier-hold-1s");
        }

        @Test
        @DisplayName("no DLQ: WARN that rejected and exhausted messages will be discarded")
        void noDlqWarns() throws Exception {
            String log = CapturedLog.during(() -> Topic.builder("warn-nodlq", Order.class)
                    .holdQueue(Duration.ofSeconds(5))
                    .build());

            assertThat(log).contains("topic 'warn-nodlq' has no dlq").contains("discarded");
        }

        @Test
        @DisplayName("tiers and a DLQ: no warning")
        void quiet() throws Exception {
            String log = CapturedLog.during(() -> Topic.builder("warn-quiet", Order.class)
                    .holdQueue(Duration.ofSeconds(5))
                    .dlq()
                    .build());

            assertThat(log).doesNotContain("warn-quiet");
        }

        @Test
        @DisplayName("allowMessageLoss silences both warnings")
        void allowMessageLossIsQuiet() throws Exception {
            String log = CapturedLog.during(() ->
                    Topic.builder("warn-loss", Order.class).allowMessageLoss().build());

            assertThat(log).doesNotContain("warn-loss");
        }
    }
}
