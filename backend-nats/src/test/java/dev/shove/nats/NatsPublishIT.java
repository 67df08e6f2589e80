package dev.shove.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.Broker;
import dev.shove.PublishException;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.TopologyException;
import dev.shove.spi.OutboundMessage;
import dev.shove.spi.TransportContext;
import dev.shove.spi.WireHeaders;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StreamConfiguration;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Publishing and topology on the real server: what the kit cannot see from outside. */
class NatsPublishIT {
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

    /** A transport of its own on the test server, as a broker would open it. */
    private static NatsTransport transport(String name) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        return (NatsTransport)
                NatsTestSupport.config().build().open(new TransportContext(registry, name, new WireHeaders(registry)));
    }

    /** How many messages the stream holds, read with a plain connection. */
    private static long storedMessages(String stream) throws Exception {
        Connection c = NatsTestSupport.raw();
        try {
            return c.jetStreamManagement()
                    .getStreamInfo(stream)
                    .getStreamState()
                    .getMsgCount();
        } finally {
            c.close();
        }
    }

    @Test
    @DisplayName("a message over the server's max_payload fails with a PublishException that says so")
    void overMaxPayload() {
        Topic<byte[]> topic =
                Topic.builder(NatsTestSupport.unique("big"), byte[].class).dlq().build();
        try (Broker<Nats> broker = Broker.connect(NatsTestSupport.config().build())) {
            broker.topology().declare(topic);
            assertThatThrownBy(() -> broker.publisher().publish(topic, new byte[2 * 1024 * 1024]))
                    .isInstanceOf(PublishException.class)
                    .hasMessageContaining("max_payload")
                    .hasMessageContaining(topic.name());
        }
    }

    @Test
    @DisplayName("a message published twice with the same shove-message-id is stored once (Nats-Msg-Id)")
    void duplicatesDropped() throws Exception {
        Topic<byte[]> topic = Topic.builder(NatsTestSupport.unique("dedup"), byte[].class)
                .dlq()
                .build();
        try (NatsTransport transport = transport("dedup-test")) {
            transport.declare(topic);
            OutboundMessage message =
                    new OutboundMessage(new byte[] {1}, Map.of(ShoveHeaders.MESSAGE_ID, "m-1"), null, -1, "raw");
            transport.publish(topic, message).join();
            transport.publish(topic, message).join();
            assertThat(storedMessages(topic.name())).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("a message published from an interrupted thread is stored, and the thread stays interrupted (jnats"
            + " drops what an interrupted thread queues)")
    void publishFromInterruptedThread() throws Exception {
        Topic<byte[]> topic = Topic.builder(NatsTestSupport.unique("interrupted"), byte[].class)
                .dlq()
                .build();
        try (NatsTransport transport = transport("interrupt-test")) {
            transport.declare(topic);
            OutboundMessage message = new OutboundMessage(new byte[] {1}, Map.of(), null, -1, "raw");
            Thread.currentThread().interrupt();
            CompletableFuture<Void> published = transport.publish(topic, message);
            assertThat(Thread.interrupted()).isTrue();
            // well inside the 10 s apiTimeout after which a dropped publish would fail
            published.get(5, TimeUnit.SECONDS);
            assertThat(storedMessages(topic.name())).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("a topic's stream that exists with work-queue retention is refused with a TopologyException naming"
            + " the difference and the fix")
    void workQueueStreamRefused() throws Exception {
        String name = NatsTestSupport.unique("wq");
        Connection c = NatsTestSupport.raw();
        try {
            c.jetStreamManagement()
                    .addStream(StreamConfiguration.builder()
                            .name(name)
                            .subjects(name, name + ".retry.>")
                            .retentionPolicy(RetentionPolicy.WorkQueue)
                            .build());
        } finally {
            c.close();
        }
        Topic<byte[]> topic = Topic.builder(name, byte[].class).build();
        try (Broker<Nats> broker = Broker.connect(NatsTestSupport.config().build())) {
            assertThatThrownBy(() -> broker.topology().declare(topic))
                    .isInstanceOf(TopologyException.class)
                    .hasMessageContaining(name)
                    .hasMessageContaining("workqueue retention, but shove needs limits retention");
        }
    }

    @Test
    @DisplayName("a group's consumer that exists reading another subject is refused with a TopologyException naming"
            + " both subjects")
    void conflictingConsumerRefused() throws Exception {
        Topic<byte[]> topic = Topic.builder(NatsTestSupport.unique("conflict"), byte[].class)
                .dlq()
                .build();
        try (Broker<Nats> broker = Broker.connect(NatsTestSupport.config().build())) {
            broker.topology().declare(topic);
            Connection c = NatsTestSupport.raw();
            try {
                JetStreamManagement jsm = c.jetStreamManagement();
                jsm.addOrUpdateConsumer(
                        topic.name(),
                        ConsumerConfiguration.builder()
                                .durable(topic.name())
                                .filterSubject(topic.name() + ".retry.other")
                                .ackWait(Duration.ofSeconds(5))
                                .build());
            } finally {
                c.close();
            }
            var group = broker.consumerGroup();
            assertThatThrownBy(() -> {
                        group.register(topic, () -> (m, meta, ctx) -> dev.shove.Outcome.ack());
                        group.start();
                    })
                    .hasStackTraceContaining(topic.name() + ".retry.other")
                    .hasStackTraceContaining("nats consumer rm");
            group.stop(Duration.ofSeconds(5));
        }
    }
}
