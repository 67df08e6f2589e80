package dev.shove;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("ConsumerGroupConfig")
class ConsumerGroupConfigTest {

    @Test
    @DisplayName("ofDefaults: one consumer, default options, no autoscaler, the topic's name, a dead-letter consumer")
    void defaults() {
        ConsumerGroupConfig c = ConsumerGroupConfig.ofDefaults();
        assertThat(c.minConsumers()).isEqualTo(1);
        assertThat(c.maxConsumers()).isEqualTo(1);
        assertThat(c.options()).hasToString(ConsumerOptions.ofDefaults().toString());
        assertThat(c.autoscaler()).isEmpty();
        assertThat(c.groupName()).isEmpty();
        assertThat(c.groupNameFor(Topic.builder("orders", String.class).build()))
                .isEqualTo("orders");
        assertThat(c.deadLetterConsumer()).isTrue();
        assertThat(c.deadLetters()).isEqualTo(DeadLetterHandling.KEEP);
        assertThat(c.backendSettings()).isEmpty();
    }

    @ParameterizedTest(name = "{0}..{1}")
    @CsvSource({"0, 1", "1, 1", "2, 5", "0, 1000"})
    @DisplayName("accepts 0 <= min <= max with 1 <= max <= MAX_CONSUMERS")
    void validRange(int min, int max) {
        ConsumerGroupConfig c = ConsumerGroupConfig.of(min, max);
        assertThat(c.minConsumers()).isEqualTo(min);
        assertThat(c.maxConsumers()).isEqualTo(max);
    }

    @ParameterizedTest(name = "{0}..{1}")
    @CsvSource({"-1, 1", "3, 2"})
    @DisplayName("refuses a negative min or a min above max, naming the setting and the value")
    void badMin(int min, int max) {
        assertThatThrownBy(() -> ConsumerGroupConfig.of(min, max))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("min consumers must be between 0 and max consumers (%d), was %d".formatted(max, min));
    }

    @ParameterizedTest(name = "max {0}")
    @CsvSource({"0", "1001"})
    @DisplayName("refuses max below 1 or above MAX_CONSUMERS")
    void badMax(int max) {
        assertThatThrownBy(() -> ConsumerGroupConfig.of(0, max))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("max consumers must be between 1 and 1000, was " + max);
    }

    @Test
    @DisplayName("the builder carries every consumer setting into options()")
    void consumerSettings() {
        HandlerInterceptor first = Invocation::proceed;
        HandlerInterceptor second = Invocation::proceed;
        ConsumerGroupConfig c = ConsumerGroupConfig.builder()
                .consumers(2)
                .prefetch(20)
                .maxRetries(3)
                .handlerTimeout(Duration.ofSeconds(60))
                .handlerTimeoutOutcome(Outcome.defer())
                .maxMessageSize(1024)
                .laneBuffer(7)
                .decodeFailurePolicy(DecodeFailurePolicy.SKIP)
                .requiredHeaders("tenant")
                .interceptors(first, second)
                .startAt(Position.start())
                .seeking()
                .build();
        ConsumerOptions o = c.options();
        assertThat(c.minConsumers()).isEqualTo(2);
        assertThat(c.maxConsumers()).isEqualTo(2);
        assertThat(o.prefetch()).isEqualTo(20);
        assertThat(o.maxRetries()).isEqualTo(3);
        assertThat(o.handlerTimeout()).contains(Duration.ofSeconds(60));
        assertThat(o.handlerTimeoutOutcome()).isEqualTo(Outcome.defer());
        assertThat(o.maxMessageSize()).hasValue(1024);
        assertThat(o.laneBuffer()).isEqualTo(7);
        assertThat(o.decodeFailurePolicy()).isEqualTo(DecodeFailurePolicy.SKIP);
        assertThat(o.requiredHeaders()).containsExactly("tenant");
        assertThat(o.interceptors()).containsExactly(first, second);
        assertThat(o.startAt()).contains(Position.start());
        assertThat(o.isSeeking()).isTrue();
    }

    @Test
    @DisplayName("options(consumerOptions) copies every consumer setting; later setters change them further")
    void fromOptions() {
        ConsumerOptions options =
                ConsumerOptions.builder().prefetch(5).noHandlerTimeout().build();
        ConsumerGroupConfig c =
                ConsumerGroupConfig.builder().options(options).maxRetries(1).build();
        assertThat(c.options().prefetch()).isEqualTo(5);
        assertThat(c.options().isHandlerTimeoutDisabled()).isTrue();
        assertThat(c.options().maxRetries()).isEqualTo(1);
    }

    @Test
    @DisplayName(
            "the autoscaler runs with its defaults only when max > min; autoscaler() sets it, noAutoscaler() stops it")
    void autoscaler() {
        assertThat(ConsumerGroupConfig.of(2, 2).autoscaler()).isEmpty();
        assertThat(ConsumerGroupConfig.of(1, 4).autoscaler()).contains(AutoscalerConfig.ofDefaults());
        AutoscalerConfig fast =
                AutoscalerConfig.builder().pollInterval(Duration.ofMillis(50)).build();
        assertThat(ConsumerGroupConfig.builder()
                        .consumers(1, 4)
                        .autoscaler(fast)
                        .build()
                        .autoscaler())
                .contains(fast);
        assertThat(ConsumerGroupConfig.builder()
                        .consumers(1, 4)
                        .noAutoscaler()
                        .build()
                        .autoscaler())
                .isEmpty();
    }

    @Test
    @DisplayName("group name, dead-letter consumer and backend settings are set by the builder")
    void groupSettings() {
        BackendGroupSettings kafkaish = () -> "kafka";
        ConsumerGroupConfig c = ConsumerGroupConfig.builder()
                .groupName("billing")
                .noDeadLetterConsumer()
                .backendSettings(kafkaish)
                .build();
        assertThat(c.groupName()).contains("billing");
        assertThat(c.groupNameFor(Topic.builder("orders", String.class).build()))
                .isEqualTo("billing");
        assertThat(c.deadLetterConsumer()).isFalse();
        assertThat(c.deadLetters()).isEqualTo(DeadLetterHandling.NONE);
        assertThat(ConsumerGroupConfig.builder()
                        .handleAndRemoveDeadLetters()
                        .build()
                        .deadLetters())
                .isEqualTo(DeadLetterHandling.REMOVE);
        assertThat(c.backendSettings()).containsSame(kafkaish);
        assertThatThrownBy(() -> ConsumerGroupConfig.builder().groupName(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("group name must not be blank");
    }

    @Test
    @DisplayName("toBuilder starts from every setting; the original never changes")
    void toBuilder() {
        ConsumerGroupConfig base = ConsumerGroupConfig.builder()
                .consumers(1, 3)
                .prefetch(4)
                .groupName("g")
                .noDeadLetterConsumer()
                .build();
        ConsumerGroupConfig changed = base.toBuilder().prefetch(8).build();
        assertThat(changed.options().prefetch()).isEqualTo(8);
        assertThat(changed.maxConsumers()).isEqualTo(3);
        assertThat(changed.groupName()).contains("g");
        assertThat(changed.deadLetterConsumer()).isFalse();
        assertThat(base.options().prefetch()).isEqualTo(4);
    }

    @Test
    @DisplayName("toString names the consumer range, the autoscaler and the options")
    void text() {
        assertThat(ConsumerGroupConfig.of(1, 2).toString())
                .startsWith("ConsumerGroupConfig[consumers=1..2, autoscaler=AutoscalerConfig[")
                .contains("ConsumerOptions[prefetch=10");
    }
}
