package dev.shove.codec.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.Outcome;
import dev.shove.SchemaVersions;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.codec.avro.test.Order;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import dev.shove.memory.InMemoryProbe;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

@DisplayName("AvroCodec on the in-memory broker")
class AvroCodecTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    // region versions
    static final Schema V1 = schema("order-v1.avsc");
    static final Schema V2 = schema("order-v2.avsc");

    /** Version 1 did not say where an order came from; version 2 wrote currencies in lower case. */
    static final SchemaVersions<Order> VERSIONS = SchemaVersions.<Order>builder(3)
            .upcaster(1, v1 -> {
                v1.setOrigin("legacy-v1");
                return v1;
            })
            .upcaster(2, v2 -> {
                v2.setCurrency(v2.getCurrency().toUpperCase(Locale.ROOT));
                return v2;
            })
            .build();

    static AvroCodec<Order> v3Codec() {
        return AvroCodec.specific(Order.class, VERSIONS, Map.of(1, V1, 2, V2));
    }
    // endregion versions

    static Schema schema(String file) {
        try (InputStream in = AvroCodecTest.class.getResourceAsStream("/avro/" + file)) {
            return new Schema.Parser().parse(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static <M> Topic<M> topic(String name, Class<M> type, AvroCodec<M> codec) {
        return Topic.builder(name, type)
                .codec(codec)
                .holdQueue(Duration.ofMillis(100))
                .dlq()
                .build();
    }

    /** Runs a consumer of {@code topic} that collects what it handles; dead letters stay in the DLQ. */
    private static <M> List<M> consume(Broker<InMemory> broker, Topic<M> topic) {
        List<M> handled = new CopyOnWriteArrayList<>();
        var group = broker.consumerGroup();
        group.register(
                topic, ConsumerGroupConfig.builder().noDeadLetterConsumer().build(), () -> (m, meta, c) -> {
                    handled.add(m);
                    return Outcome.ack();
                });
        group.start();
        return handled;
    }

    private static String deathReason(InMemoryProbe probe, Topic<?> topic) {
        await().atMost(WAIT).until(() -> probe.rawDeadLetters(topic).size() == 1);
        return probe.rawDeadLetters(topic).getFirst().headers().get(ShoveHeaders.DEATH_REASON);
    }

    private static GenericRecord record(Schema schema, Map<String, Object> fields) {
        GenericData.Record r = new GenericData.Record(schema);
        fields.forEach(r::put);
        return r;
    }

    @Test
    @DisplayName("a specific record published on an Avro topic reaches the handler equal to itself")
    void roundTrip() {
        Topic<Order> topic = topic("avro-round-trip", Order.class, AvroCodec.specific(Order.class));
        Order order = new Order("o-1", 1299L, "USD", "web");
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            List<Order> handled = consume(broker, topic);
            broker.publisher().publish(topic, order);
            await().atMost(WAIT).until(() -> handled.size() == 1);
            assertThat(handled).containsExactly(order);
        }
    }

    @Test
    @DisplayName("a generic record of a schema published on an Avro topic reaches the handler equal to itself")
    void genericRoundTrip() {
        Topic<GenericRecord> topic =
                topic("avro-generic-round-trip", GenericRecord.class, AvroCodec.generic(Order.getClassSchema()));
        GenericRecord order =
                record(Order.getClassSchema(), Map.of("id", "o-1", "amountCents", 5L, "currency", "EUR", "origin", ""));
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            List<GenericRecord> handled = consume(broker, topic);
            broker.publisher().publish(topic, order);
            await().atMost(WAIT).until(() -> handled.size() == 1);
            assertThat(handled.getFirst().toString()).isEqualTo(order.toString());
        }
    }

    @Test
    @DisplayName("the codec names its record, its content type and its Java type")
    void describesItself() {
        assertThat(v3Codec().name()).isEqualTo("avro(dev.shove.codec.avro.test.Order, v3)");
        assertThat(AvroCodec.specific(Order.class).name()).isEqualTo("avro(dev.shove.codec.avro.test.Order)");
        assertThat(v3Codec().contentType()).isEqualTo("avro/binary");
        assertThat(v3Codec().messageType()).hasValue(Order.class);
        assertThat(v3Codec().schema()).isEqualTo(Order.getClassSchema());
        assertThat(v3Codec().writerSchemas()).containsOnlyKeys(1, 2);
    }

    @Test
    @DisplayName(
            "bytes that are not a datum of the schema are dead-lettered as a decode failure, the handler not called")
    void malformed() {
        Topic<Order> topic = topic("avro-malformed", Order.class, AvroCodec.specific(Order.class));
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            InMemoryProbe probe = InMemoryProbe.of(broker);
            List<Order> handled = consume(broker, topic);
            // a string of 50 bytes (zig-zag 100), of which 2 follow
            probe.inject(topic, new byte[] {100, 'o', '-'}, Map.of());
            assertThat(deathReason(probe, topic)).startsWith("decode-failed: avro(dev.shove.codec.avro.test.Order): ");
            assertThat(handled).isEmpty();
        }
    }

    @Test
    @DisplayName("its payload schema is the current schema in Avro's JSON")
    void payloadSchema() {
        var schema = v3Codec().payloadSchema().orElseThrow();
        assertThat(schema.format()).isEqualTo("application/vnd.apache.avro+json;version=1.9.0");
        assertThat(new Schema.Parser().parse(schema.document())).isEqualTo(Order.getClassSchema());
    }

    @Test
    @DisplayName("bytes left over after a datum are a decode failure")
    void trailingBytes() throws Exception {
        AvroCodec<Order> codec = AvroCodec.specific(Order.class);
        byte[] good = codec.encode(new Order("o", 1L, "EUR", ""));
        byte[] longer = java.util.Arrays.copyOf(good, good.length + 3);
        assertThatThrownBy(() -> codec.decode(longer, Map.of()))
                .isInstanceOf(IOException.class)
                .hasMessage("bytes are left over after a datum of dev.shove.codec.avro.test.Order: not a datum written"
                        + " with the schema of version 1");
    }

    @Nested
    @DisplayName("schema evolution")
    class Evolution {
        @Test
        @DisplayName("a consumer on version 3 reads messages written at 1 and 2: their schemas resolved, then upcast")
        void upcasts() {
            Topic<Order> v3 = topic("avro-upcast", Order.class, v3Codec());
            // the old producers wrote generic records of their schemas: version 1 without a version header
            Topic<GenericRecord> v1 = topic(v3.name(), GenericRecord.class, AvroCodec.generic(V1));
            Topic<GenericRecord> v2 = topic(
                    v3.name(),
                    GenericRecord.class,
                    AvroCodec.generic(
                            V2, SchemaVersions.<GenericRecord>builder(2).build(), Map.of(1, V1)));
            try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
                List<Order> handled = consume(broker, v3);
                broker.publisher().publish(v1, record(V1, Map.of("id", "o-1", "cents", 500L)));
                broker.publisher().publish(v2, record(V2, Map.of("id", "o-2", "cents", 700L, "currency", "gbp")));
                broker.publisher().publish(v3, new Order("o-3", 900L, "USD", "web"));
                await().atMost(WAIT).until(() -> handled.size() == 3);
                assertThat(handled)
                        .containsExactlyInAnyOrder(
                                // cents read as amountCents (its alias), currency the reader's default, then upcast
                                new Order("o-1", 500L, "EUR", "legacy-v1"),
                                new Order("o-2", 700L, "GBP", ""),
                                new Order("o-3", 900L, "USD", "web"));
            }
        }

        @Test
        @DisplayName("without upcasters, a message of an older schema is read by Avro's writer/reader resolution")
        void resolutionAlone() throws Exception {
            AvroCodec<Order> reader = AvroCodec.specific(
                    Order.class, SchemaVersions.<Order>builder(2).build(), Map.of(1, V1));
            byte[] v1 = AvroCodec.generic(V1).encode(record(V1, Map.of("id", "o-1", "cents", 42L)));
            assertThat(reader.decode(v1, Map.of(ShoveHeaders.SCHEMA_VERSION, "1")))
                    .isEqualTo(new Order("o-1", 42L, "EUR", ""));
        }

        @Test
        @DisplayName("a message of a version newer than the consumer's is dead-lettered with that version named")
        void newerVersionRefused() {
            Topic<Order> v3 = topic("avro-too-new", Order.class, v3Codec());
            Topic<Order> v4 = topic(
                    v3.name(),
                    Order.class,
                    AvroCodec.specific(
                            Order.class, SchemaVersions.<Order>builder(4).build(), Map.of(1, V1, 2, V2, 3, V2)));
            try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
                InMemoryProbe probe = InMemoryProbe.of(broker);
                List<Order> handled = consume(broker, v3);
                broker.publisher().publish(v4, new Order("o-4", 1L, "EUR", ""));
                assertThat(deathReason(probe, v3))
                        .isEqualTo("decode-failed: avro(dev.shove.codec.avro.test.Order, v3): schema version 4 is"
                                + " newer than this consumer reads (up to 3): deploy a consumer that knows version 4,"
                                + " then replay the message from the dead-letter queue");
                assertThat(handled).isEmpty();
            }
        }

        @Test
        @DisplayName("an older version without its writer schema is refused when the codec is built")
        void missingWriterSchema() {
            assertThatThrownBy(() -> AvroCodec.specific(Order.class, VERSIONS, Map.of(1, V1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith(
                            "avro(dev.shove.codec.avro.test.Order, v3): no writer schema for version 2");
        }

        @Test
        @DisplayName("a writer schema for the current version or beyond is refused when the codec is built")
        void writerSchemaOutOfRange() {
            assertThatThrownBy(() -> AvroCodec.specific(Order.class, VERSIONS, Map.of(1, V1, 2, V2, 3, V2)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("avro(dev.shove.codec.avro.test.Order, v3): a writer schema is given for version 3,"
                            + " but older versions go from 1 to 2 (current 3)");
        }

        @Test
        @DisplayName("an older schema the current one cannot read is refused when the codec is built, naming it")
        void incompatibleWriterSchema() {
            Schema idAsInt = SchemaBuilder.record("Order")
                    .namespace("dev.shove.codec.avro.test")
                    .fields()
                    .requiredInt("id")
                    .requiredLong("cents")
                    .endRecord();
            assertThatThrownBy(() -> AvroCodec.specific(
                            Order.class, SchemaVersions.<Order>builder(2).build(), Map.of(1, idAsInt)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("avro(dev.shove.codec.avro.test.Order, v2): the schema of version 1 cannot"
                            + " be read with the current one");
        }
    }
}
