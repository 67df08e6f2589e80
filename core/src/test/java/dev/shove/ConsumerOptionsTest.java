package dev.shove;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("ConsumerOptions")
class ConsumerOptionsTest {
    private static final Duration GROUP_DEFAULT = Duration.ofSeconds(45);

    @Nested
    @DisplayName("defaults")
    class Defaults {
        @Test
        @DisplayName("prefetch 10, maxRetries 10, 10 MiB size limit, lane buffer 100")
        void values() {
            ConsumerOptions o = ConsumerOptions.ofDefaults();

            assertThat(o.prefetch()).isEqualTo(10).isEqualTo(ConsumerOptions.DEFAULT_PREFETCH);
            assertThat(o.maxRetries()).isEqualTo(10).isEqualTo(ConsumerOptions.DEFAULT_MAX_RETRIES);
            assertThat(o.maxMessageSize()).hasValue(10 * 1024 * 1024);
            assertThat(o.laneBuffer()).isEqualTo(100).isEqualTo(ConsumerOptions.DEFAULT_LANE_BUFFER);
        }

        @Test
        @DisplayName("the handler timeout is inherited (not set here, not disabled), its outcome retry")
        void timeout() {
            ConsumerOptions o = ConsumerOptions.ofDefaults();

            assertThat(o.handlerTimeout()).isEmpty();
            assertThat(o.isHandlerTimeoutDisabled()).isFalse();
            assertThat(o.handlerTimeoutOutcome()).isEqualTo(Outcome.retry());
            assertThat(ConsumerOptions.DEFAULT_HANDLER_TIMEOUT).isEqualTo(Duration.ofSeconds(30));
        }
    }

    @Nested
    @DisplayName("handler timeout resolution")
    class TimeoutResolution {
        @Test
        @DisplayName("the registration's own timeout wins over the group default")
        void ownWins() {
            ConsumerOptions o = ConsumerOptions.builder()
                    .handlerTimeout(Duration.ofSeconds(5))
                    .build();

            assertThat(o.resolveHandlerTimeout(GROUP_DEFAULT)).contains(Duration.ofSeconds(5));
            assertThat(o.resolveHandlerTimeout(null)).contains(Duration.ofSeconds(5));
        }

        @Test
        @DisplayName("without its own, the group default applies")
        void groupDefault() {
            assertThat(ConsumerOptions.ofDefaults().resolveHandlerTimeout(GROUP_DEFAULT))
                    .contains(GROUP_DEFAULT);
        }

        @Test
        @DisplayName("without either, 30 seconds")
        void thirtySeconds() {
            assertThat(ConsumerOptions.ofDefaults().resolveHandlerTimeout(null)).contains(Duration.ofSeconds(30));
        }

        @Test
        @DisplayName("withoutHandlerTimeout disables it whatever the group default")
        void disabled() {
            ConsumerOptions o = ConsumerOptions.builder()
                    .handlerTimeout(Duration.ofSeconds(5))
                    .noHandlerTimeout()
                    .build();

            assertThat(o.isHandlerTimeoutDisabled()).isTrue();
            assertThat(o.handlerTimeout()).isEmpty();
            assertThat(o.resolveHandlerTimeout(GROUP_DEFAULT)).isEmpty();
            assertThat(o.resolveHandlerTimeout(null)).isEmpty();
        }

        @Test
        @DisplayName("withHandlerTimeout after withoutHandlerTimeout enables it again")
        void reEnabled() {
            ConsumerOptions o = ConsumerOptions.builder()
                    .noHandlerTimeout()
                    .handlerTimeout(Duration.ofSeconds(2))
                    .build();

            assertThat(o.isHandlerTimeoutDisabled()).isFalse();
            assertThat(o.resolveHandlerTimeout(GROUP_DEFAULT)).contains(Duration.ofSeconds(2));
        }
    }

    @Nested
    @DisplayName("validation")
    class Validation {
        @ParameterizedTest(name = "prefetch {0}")
        @ValueSource(ints = {0, -1})
        @DisplayName("prefetch below 1 is refused")
        void prefetch(int prefetch) {
            assertThatThrownBy(
                            () -> ConsumerOptions.builder().prefetch(prefetch).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("prefetch must be between 1 and 100000, was " + prefetch);
        }

        @Test
        @DisplayName("negative maxRetries is refused; 0 means no retries")
        void maxRetries() {
            assertThatThrownBy(() -> ConsumerOptions.builder().maxRetries(-1).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("maxRetries must be between 0 and 100000, was -1");
            assertThat(ConsumerOptions.builder().maxRetries(0).build().maxRetries())
                    .isZero();
        }

        @ParameterizedTest(name = "{0} ms")
        @ValueSource(longs = {0, -1})
        @DisplayName("a zero or negative handler timeout is refused")
        void timeout(long millis) {
            assertThatThrownBy(() -> ConsumerOptions.builder()
                            .handlerTimeout(Duration.ofMillis(millis))
                            .build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("handler timeout must be positive");
        }

        @Test
        @DisplayName("null timeout and null timeout outcome are refused")
        void nulls() {
            assertThatThrownBy(
                            () -> ConsumerOptions.builder().handlerTimeout(null).build())
                    .isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> ConsumerOptions.builder()
                            .handlerTimeoutOutcome(null)
                            .build())
                    .isInstanceOf(NullPointerException.class);
        }

        @Test
        @DisplayName("a timeout outcome with a continuation is refused")
        void timeoutOutcomeWithContinuation() {
            assertThatThrownBy(() -> ConsumerOptions.builder()
                            .handlerTimeoutOutcome(Outcome.defer().andThen(() -> {}))
                            .build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("cannot carry a continuation");
        }

        @Test
        @DisplayName("a size limit below 1 byte is refused; withoutMessageSizeLimit removes it")
        void size() {
            assertThatThrownBy(() -> ConsumerOptions.builder().maxMessageSize(0).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("maxMessageSize must be between 1 and 2147483647, was 0");
            assertThat(ConsumerOptions.builder().maxMessageSize(1).build().maxMessageSize())
                    .hasValue(1);
            assertThat(ConsumerOptions.builder().noMessageSizeLimit().build().maxMessageSize())
                    .isEmpty();
        }

        @Test
        @DisplayName("a negative lane buffer is refused; 0 is allowed")
        void laneBuffer() {
            assertThatThrownBy(() -> ConsumerOptions.builder().laneBuffer(-1).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("laneBuffer must be between 0 and 1000000, was -1");
            assertThat(ConsumerOptions.builder().laneBuffer(0).build().laneBuffer())
                    .isZero();
        }
    }

    @Test
    @DisplayName("toBuilder starts from every setting of the options; changing one keeps the others")
    void toBuilderKeepsOtherSettings() {
        ConsumerOptions base = ConsumerOptions.ofDefaults();
        ConsumerOptions o = base.toBuilder()
                .prefetch(3)
                .maxRetries(2)
                .handlerTimeout(Duration.ofSeconds(9))
                .handlerTimeoutOutcome(Outcome.defer())
                .maxMessageSize(1024)
                .laneBuffer(7)
                .build();

        assertThat(o.prefetch()).isEqualTo(3);
        assertThat(o.maxRetries()).isEqualTo(2);
        assertThat(o.handlerTimeout()).contains(Duration.ofSeconds(9));
        assertThat(o.handlerTimeoutOutcome()).isEqualTo(Outcome.defer());
        assertThat(o.maxMessageSize()).hasValue(1024);
        assertThat(o.laneBuffer()).isEqualTo(7);

        ConsumerOptions again = o.toBuilder().prefetch(4).build();
        assertThat(again.maxRetries()).isEqualTo(2);
        assertThat(again.handlerTimeout()).contains(Duration.ofSeconds(9));
        assertThat(again.handlerTimeoutOutcome()).isEqualTo(Outcome.defer());
        assertThat(again.maxMessageSize()).hasValue(1024);
        assertThat(again.laneBuffer()).isEqualTo(7);

        assertThat(base.prefetch()).isEqualTo(10);
        assertThat(base.handlerTimeout()).isEmpty();
    }

    @Test
    @DisplayName("withoutHandlerTimeout and withoutMessageSizeLimit keep every other setting")
    void withoutKeepsOtherSettings() {
        ConsumerOptions o = ConsumerOptions.builder()
                .prefetch(3)
                .maxRetries(2)
                .handlerTimeoutOutcome(Outcome.defer())
                .laneBuffer(7)
                .noHandlerTimeout()
                .noMessageSizeLimit()
                .build();

        assertThat(o.prefetch()).isEqualTo(3);
        assertThat(o.maxRetries()).isEqualTo(2);
        assertThat(o.handlerTimeoutOutcome()).isEqualTo(Outcome.defer());
        assertThat(o.laneBuffer()).isEqualTo(7);
        assertThat(o.isHandlerTimeoutDisabled()).isTrue();
        assertThat(o.maxMessageSize()).isEmpty();
    }

    @Test
    @DisplayName("toString names every setting, including disabled ones")
    void text() {
        assertThat(ConsumerOptions.builder()
                        .noHandlerTimeout()
                        .noMessageSizeLimit()
                        .build())
                .hasToString("ConsumerOptions[prefetch=10, maxRetries=10, handlerTimeout=disabled,"
                        + " handlerTimeoutOutcome=retry, maxMessageSize=unlimited, laneBuffer=100,"
                        + " decodeFailurePolicy=REJECT]");
        assertThat(ConsumerOptions.ofDefaults().toString()).contains("handlerTimeout=inherited");
    }

    @Test
    @DisplayName("exceptionOutcome maps a class and its subclasses; the nearest class wins; others count as retry")
    void exceptionOutcomes() {
        ConsumerOptions o = ConsumerOptions.builder()
                .exceptionOutcome(RuntimeException.class, Outcome.retry(Duration.ofSeconds(5)))
                .exceptionOutcome(IllegalArgumentException.class, Outcome.reject())
                .build();
        assertThat(o.exceptionOutcome(new NumberFormatException())).contains(Outcome.reject());
        assertThat(o.exceptionOutcome(new IllegalStateException())).contains(Outcome.retry(Duration.ofSeconds(5)));
        assertThat(o.exceptionOutcome(new java.io.IOException())).isEmpty();
    }

    @Test
    @DisplayName("exceptionOutcome refuses ack and outcomes with a continuation, naming the exception class")
    void exceptionOutcomeRefusesAck() {
        assertThatThrownBy(() -> ConsumerOptions.builder().exceptionOutcome(IllegalStateException.class, Outcome.ack()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.IllegalStateException")
                .hasMessageContaining("catch it in the handler");
        assertThatThrownBy(() -> ConsumerOptions.builder()
                        .exceptionOutcome(
                                IllegalStateException.class, Outcome.reject().andThen(() -> {})))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
