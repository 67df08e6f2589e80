package dev.shove.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.shove.AuthenticationException;
import dev.shove.Broker;
import dev.shove.Outcome;
import dev.shove.Topic;
import io.nats.client.NKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Authentication other than a password, on nats-server processes of this test's own ({@link
 * NatsTestSupport.OwnServer}, each on a port of its choosing): an NKey user whose seed is made when the test starts,
 * and a token.
 */
class NatsAuthIT {
    record Msg(int n) {}

    @Test
    @DisplayName("an NKey seed signs the server's nonce: the backend connects, publishes and consumes; another seed is"
            + " refused")
    void nkeySeed() throws Exception {
        NKey user = NKey.createUser(new SecureRandom());
        String seed = new String(user.getSeed());
        String publicKey = new String(user.getPublicKey());
        Path conf = Files.createTempFile("shove-nats-nkey-", ".conf");
        Files.writeString(conf, "authorization { users = [ { nkey: \"" + publicKey + "\" } ] }\n");
        try (NatsTestSupport.OwnServer server = new NatsTestSupport.OwnServer("-c", conf.toString()).start()) {
            roundTrip(NatsConfig.builder(server.url()).nkeySeed(seed).build());
            String other = new String(NKey.createUser(new SecureRandom()).getSeed());
            assertThatThrownBy(() -> Broker.connect(NatsConfig.builder(server.url())
                                    .nkeySeed(other)
                                    .build())
                            .close())
                    .isInstanceOf(AuthenticationException.class)
                    .satisfies(e -> assertThat(((AuthenticationException) e).isRetriable())
                            .isFalse())
                    .hasMessageContaining("refused nkey")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain(other));
        } finally {
            Files.deleteIfExists(conf);
        }
    }

    @Test
    @DisplayName("a token authenticates; a wrong one is refused without being shown")
    void token() throws Exception {
        Path conf = Files.createTempFile("shove-nats-token-", ".conf");
        Files.writeString(conf, "authorization { token: \"auth-it-t0ken\" }\n");
        try (NatsTestSupport.OwnServer server = new NatsTestSupport.OwnServer("-c", conf.toString()).start()) {
            roundTrip(NatsConfig.builder(server.url()).token("auth-it-t0ken").build());
            assertThatThrownBy(() -> Broker.connect(NatsConfig.builder(server.url())
                                    .token("wrong-t0ken")
                                    .build())
                            .close())
                    .isInstanceOf(AuthenticationException.class)
                    .satisfies(e -> assertThat(((AuthenticationException) e).isRetriable())
                            .isFalse())
                    .hasMessageContaining("refused token")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("wrong-t0ken"));
        } finally {
            Files.deleteIfExists(conf);
        }
    }

    private static void roundTrip(NatsConfig config) {
        Topic<Msg> topic = Topic.builder("auth-orders", Msg.class)
                .holdQueue(Duration.ofMillis(300))
                .dlq()
                .build();
        AtomicInteger handled = new AtomicInteger();
        try (Broker<Nats> broker = Broker.connect(config)) {
            broker.topology().declare(topic);
            var group = broker.consumerGroup();
            group.register(topic, () -> (m, meta, c) -> {
                handled.incrementAndGet();
                return Outcome.ack();
            });
            group.start();
            broker.publisher().publish(topic, new Msg(1));
            await().atMost(Duration.ofSeconds(20)).until(() -> handled.get() == 1);
            assertThat(group.stop(Duration.ofSeconds(10)).isClean()).isTrue();
        }
    }
}
