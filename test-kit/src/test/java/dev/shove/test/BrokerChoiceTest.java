package dev.shove.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.memory.InMemoryConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.opentest4j.TestAbortedException;

/** Which broker a test gets, with the system properties, environment and Docker given by the test. */
class BrokerChoiceTest {
    private static final BrokerChoice.Settings KAFKA =
            new BrokerChoice.Settings("kafka", "", false, ShoveTest.Lifecycle.PER_METHOD);

    private final List<String> started = new ArrayList<>();

    private BrokerChoice choice(
            Map<String, String> properties, Map<String, String> environment, @Nullable String dockerUnavailable) {
        return new BrokerChoice(
                properties::get, environment::get, switchedOff -> dockerUnavailable, (backend, image) -> {
                    started.add(backend + " " + image);
                    return new RunningBroker() {
                        @Override
                        public String uri() {
                            return "memory://?capacity=7";
                        }

                        @Override
                        public String description() {
                            return backend + " in a container (" + image + ")";
                        }

                        @Override
                        public void close() {}
                    };
                });
    }

    @Test
    @DisplayName("the system property names the broker before the environment variable")
    void propertyBeforeEnvironment() {
        BrokerChoice.Choice chosen = choice(
                        Map.of(ShoveTest.BROKER_URI_PROPERTY, "memory://?capacity=3"),
                        Map.of(ShoveTest.BROKER_URI_ENV, "kafka://127.0.0.1:9092"),
                        null)
                .choose(KAFKA);

        assertThat(chosen.source()).isEqualTo(ShoveKit.Source.URI);
        assertThat(((InMemoryConfig) chosen.config()).capacity()).isEqualTo(3);
        assertThat(chosen.description()).isEqualTo("memory:// (from the system property shove.test.broker.uri)");
        assertThat(started).isEmpty();
    }

    @Test
    @DisplayName("the environment variable names the broker when the system property is not set or blank")
    void environmentWhenNoProperty() {
        BrokerChoice.Choice chosen = choice(
                        Map.of(ShoveTest.BROKER_URI_PROPERTY, " "),
                        Map.of(ShoveTest.BROKER_URI_ENV, "memory://?capacity=4"),
                        null)
                .choose(BrokerChoice.Settings.DEFAULTS);

        assertThat(chosen.source()).isEqualTo(ShoveKit.Source.URI);
        assertThat(((InMemoryConfig) chosen.config()).capacity()).isEqualTo(4);
        assertThat(chosen.description()).endsWith("(from the environment variable SHOVE_TEST_BROKER_URI)");
    }

    @Test
    @DisplayName("without a URI, a test asking for a backend gets a container of its default image when Docker answers")
    void containerWhenDockerAnswers() {
        BrokerChoice.Choice chosen = choice(Map.of(), Map.of(), null).choose(KAFKA);

        assertThat(chosen.source()).isEqualTo(ShoveKit.Source.CONTAINER);
        assertThat(started).containsExactly("kafka apache/kafka:4.1.0");
        assertThat(chosen.description()).isEqualTo("kafka in a container (apache/kafka:4.1.0) at memory://");
    }

    @Test
    @DisplayName("the test's image replaces the default one")
    void imageOfTheTest() {
        choice(Map.of(), Map.of(), null)
                .choose(new BrokerChoice.Settings("rabbitmq", "rabbitmq:4.1", false, ShoveTest.Lifecycle.PER_METHOD));

        assertThat(started).containsExactly("rabbitmq rabbitmq:4.1");
    }

    @Test
    @DisplayName("no backend named means the in-memory broker, and Docker is not asked")
    void inMemoryByDefault() {
        BrokerChoice.Choice chosen = choice(Map.of(), Map.of(), null).choose(BrokerChoice.Settings.DEFAULTS);

        assertThat(chosen.source()).isEqualTo(ShoveKit.Source.IN_MEMORY);
        assertThat(chosen.config()).isInstanceOf(InMemoryConfig.class);
        assertThat(started).isEmpty();
    }

    @Test
    @DisplayName("when no container can start, the in-memory broker is chosen with the reason, or the test skipped")
    void fallbackOrSkip() {
        BrokerChoice noDocker = choice(Map.of(), Map.of(), "no Docker daemon answers");

        BrokerChoice.Choice chosen = noDocker.choose(KAFKA);
        assertThat(chosen.source()).isEqualTo(ShoveKit.Source.IN_MEMORY);
        assertThat(chosen.description())
                .contains("asked for a kafka broker in a container, but no Docker daemon answers");

        assertThatThrownBy(() ->
                        noDocker.choose(new BrokerChoice.Settings("kafka", "", true, ShoveTest.Lifecycle.PER_METHOD)))
                .isInstanceOf(TestAbortedException.class)
                .hasMessageEndingWith("the test requires kafka (requireBackend = true), so it is skipped");
        assertThat(started).isEmpty();
    }

    @Test
    @DisplayName("settings that cannot work are refused, saying what to change")
    void settingsAreChecked() {
        assertThatThrownBy(() -> BrokerChoice.Settings.of(RequireWithoutBackend.class.getAnnotation(ShoveTest.class)))
                .isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("requireBackend = true) needs a backend");
        assertThatThrownBy(() -> BrokerChoice.Settings.of(ImageWithoutBackend.class.getAnnotation(ShoveTest.class)))
                .isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("needs the backend that runs in it");
        assertThat(BrokerChoice.Settings.of(Kafka.class.getAnnotation(ShoveTest.class))
                        .backend())
                .isEqualTo("kafka");
    }

    @Test
    @DisplayName("descriptions of broker URIs hide passwords and settings")
    void redaction() {
        assertThat(BrokerChoice.redact("amqp://app:s3cret@rabbit:5672/prod?password_file=/run/x"))
                .isEqualTo("amqp://app:***@rabbit:5672/prod");
        assertThat(BrokerChoice.redact("kafka://k1:9092,k2:9092?sasl.password=s3cret"))
                .isEqualTo("kafka://k1:9092,k2:9092");
        assertThat(BrokerChoice.redact("redis://user@cache:6379")).isEqualTo("redis://user@cache:6379");
        assertThat(BrokerChoice.redact("memory:")).isEqualTo("memory:");
    }

    @ShoveTest(requireBackend = true)
    static class RequireWithoutBackend {}

    @ShoveTest(image = "apache/kafka:4.1.0")
    static class ImageWithoutBackend {}

    @ShoveTest(backend = " Kafka ")
    static class Kafka {}
}
