package dev.shove;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("GroupConfig")
class GroupConfigTest {
    /** The backend marker of the test config. */
    enum TestBackend {}

    /** A minimal backend config, as a backend author writes one, with one setting of its own. */
    static final class TestGroupConfig extends GroupConfig<TestBackend, TestGroupConfig> {
        final String region;

        static TestGroupConfig of(int min, int max) {
            return new TestGroupConfig(min, max, ConsumerOptions.defaults(), "eu");
        }

        private TestGroupConfig(int min, int max, ConsumerOptions options, String region) {
            super(min, max, options);
            this.region = region;
        }

        TestGroupConfig withRegion(String region) {
            return new TestGroupConfig(minConsumers(), maxConsumers(), options(), region);
        }

        @Override
        protected TestGroupConfig copy(int min, int max, ConsumerOptions options) {
            return new TestGroupConfig(min, max, options, region);
        }
    }

    @Test
    @DisplayName("keeps min, max and default options")
    void basics() {
        TestGroupConfig c = TestGroupConfig.of(1, 4);

        assertThat(c.minConsumers()).isEqualTo(1);
        assertThat(c.maxConsumers()).isEqualTo(4);
        assertThat(c.options().prefetch()).isEqualTo(ConsumerOptions.DEFAULT_PREFETCH);
    }

    @ParameterizedTest(name = "min={0} max={1}")
    @CsvSource({"0, 1", "1, 1", "3, 3", "0, 8"})
    @DisplayName("accepts 0 <= min <= max with max >= 1")
    void valid(int min, int max) {
        assertThat(TestGroupConfig.of(min, max).maxConsumers()).isEqualTo(max);
    }

    @Test
    @DisplayName("refuses a negative min")
    void negativeMin() {
        assertThatThrownBy(() -> TestGroupConfig.of(-1, 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("minConsumers must not be negative, was -1");
    }

    @ParameterizedTest(name = "min={0} max={1}")
    @CsvSource({"0, 0", "3, 2", "1, 0"})
    @DisplayName("refuses max below 1 or below min")
    void badMax(int min, int max) {
        assertThatThrownBy(() -> TestGroupConfig.of(min, max))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "maxConsumers must be at least 1 and at least minConsumers (" + min + "), was " + max);
    }

    @Test
    @DisplayName("every with... returns the backend's own type with the backend's own settings kept")
    void withReturnsOwnType() {
        TestGroupConfig c = TestGroupConfig.of(2, 5)
                .withRegion("us")
                .withPrefetch(3)
                .withMaxRetries(1)
                .withHandlerTimeout(Duration.ofSeconds(4))
                .withHandlerTimeoutOutcome(Outcome.defer())
                .withMaxMessageSize(100)
                .withLaneBuffer(9);

        assertThat(c.region).isEqualTo("us");
        assertThat(c.minConsumers()).isEqualTo(2);
        assertThat(c.maxConsumers()).isEqualTo(5);
        ConsumerOptions o = c.options();
        assertThat(o.prefetch()).isEqualTo(3);
        assertThat(o.maxRetries()).isEqualTo(1);
        assertThat(o.handlerTimeout()).contains(Duration.ofSeconds(4));
        assertThat(o.handlerTimeoutOutcome()).isEqualTo(Outcome.defer());
        assertThat(o.maxMessageSize()).hasValue(100);
        assertThat(o.laneBuffer()).isEqualTo(9);
    }

    @Test
    @DisplayName("the without... variants reach the options")
    void without() {
        TestGroupConfig c = TestGroupConfig.of(1, 1).withoutHandlerTimeout().withoutMessageSizeLimit();

        assertThat(c.options().isHandlerTimeoutDisabled()).isTrue();
        assertThat(c.options().maxMessageSize()).isEmpty();
    }

    @Test
    @DisplayName("with... never changes the original")
    void immutable() {
        TestGroupConfig original = TestGroupConfig.of(1, 2);

        TestGroupConfig changed = original.withPrefetch(1);

        assertThat(changed).isNotSameAs(original);
        assertThat(original.options().prefetch()).isEqualTo(10);
    }

    @Test
    @DisplayName("withOptions(null) is refused")
    void nullOptions() {
        assertThatThrownBy(() -> TestGroupConfig.of(1, 2).withOptions(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    @DisplayName("toString names the backend type, the consumer range and the options")
    void text() {
        assertThat(TestGroupConfig.of(1, 4).toString())
                .startsWith("TestGroupConfig[consumers=1..4, ConsumerOptions[prefetch=10");
    }

    @Test
    @DisplayName("ConsumerGroupConfig: the autoscaler runs with defaults only when max > min")
    void autoscalerDefault() {
        assertThat(ConsumerGroupConfig.of(TestGroupConfig.of(1, 4)).autoscaler())
                .contains(AutoscalerConfig.ofDefaults());
        assertThat(ConsumerGroupConfig.of(TestGroupConfig.of(2, 2)).autoscaler())
                .isEmpty();
    }

    @Test
    @DisplayName("ConsumerGroupConfig: withAutoscaler sets it, withoutAutoscaler switches it off")
    void autoscalerSettings() {
        AutoscalerConfig fast =
                AutoscalerConfig.custom().pollInterval(Duration.ofSeconds(1)).build();
        ConsumerGroupConfig<TestBackend> c =
                ConsumerGroupConfig.of(TestGroupConfig.of(0, 3)).withAutoscaler(fast);

        assertThat(c.autoscaler()).contains(fast);
        assertThat(c.withoutAutoscaler().autoscaler()).isEmpty();
        assertThat(ConsumerGroupConfig.of(TestGroupConfig.of(3, 3))
                        .withAutoscaler(fast)
                        .autoscaler())
                .as("a fixed-size group never scales")
                .isEmpty();
    }

    @Test
    @DisplayName("ConsumerGroupConfig: group name and dead-letter consumer default and override")
    void groupSettings() {
        ConsumerGroupConfig<TestBackend> c = ConsumerGroupConfig.of(TestGroupConfig.of(1, 1));

        assertThat(c.groupName()).isEmpty();
        assertThat(c.deadLetterConsumer()).isTrue();
        ConsumerGroupConfig<TestBackend> changed = c.withGroupName("billing").withoutDeadLetterConsumer();
        assertThat(changed.groupName()).contains("billing");
        assertThat(changed.deadLetterConsumer()).isFalse();
        assertThat(changed.backend()).isSameAs(c.backend());
    }
}
