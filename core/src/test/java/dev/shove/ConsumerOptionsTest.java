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
            ConsumerOptions o = ConsumerOptions.defaults();

            assertThat(o.prefetch()).isEqualTo(10).isEqualTo(ConsumerOptions.DEFAULT_PREFETCH);
            assertThat(o.maxRetries()).isEqualTo(10).isEqualTo(ConsumerOptions.DEFAULT_MAX_RETRIES);
            assertThat(o.maxMessageSize()).hasValue(10 * 1024 * 1024);
            assertThat(o.laneBuffer()).isEqualTo(100).isEqualTo(ConsumerOptions.DEFAULT_LANE_BUFFER);
        }

        @Test
        @DisplayName("the handler timeout is inherited (not set here, not disabled), its outcome retry")
        void timeout() {
            ConsumerOptions o = ConsumerOptions.defaults();

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
            ConsumerOptions o = ConsumerOptions.defaults().withHandlerTimeout(Duration.ofSeconds(5));

            assertThat(o.resolveHandlerTimeout(GROUP_DEFAULT)).contains(Duration.ofSeconds(5));
            assertThat(o.resolveHandlerTimeout(null)).contains(Duration.ofSeconds(5));
        }

        @Test
        @DisplayName("without its own, the group default applies")
        void groupDefault() {
            assertThat(ConsumerOptions.defaults().resolveHandlerTimeout(GROUP_DEFAULT))
                    .contains(GROUP_DEFAULT);
        }

        @Test
        @DisplayName("without either, 30 seconds")
        void thirtySeconds() {
            assertThat(ConsumerOptions.defaults().resolveHandlerTimeout(null)).contains(Duration.ofSeconds(30));
        }

        @Test
        @DisplayName("withoutHandlerTimeout disables it whatever the group default")
        void disabled() {
            ConsumerOptions o = ConsumerOptions.defaults()
                    .withHandlerTimeout(Duration.ofSeconds(5))
                    .withoutHandlerTimeout();

            assertThat(o.isHandlerTimeoutDisabled()).isTrue();
            assertThat(o.handlerTimeout()).isEmpty();
            assertThat(o.resolveHandlerTimeout(GROUP_DEFAULT)).isEmpty();
            assertThat(o.resolveHandlerTimeout(null)).isEmpty();
        }

        @Test
        @DisplayName("withHandlerTimeout after withoutHandlerTimeout enables it again")
        void reEnabled() {
            ConsumerOptions o =
                    ConsumerOptions.defaults().withoutHandlerTimeout().withHandlerTimeout(Duration.ofSeconds(2));

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
            assertThatThrownBy(() -> ConsumerOptions.defaults().withPrefetch(prefetch))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("prefetch must be at least 1, was " + prefetch);
        }

        @Test
        @DisplayName("negative maxRetries is refused; 0 means no retries")
        void maxRetries() {
            assertThatThrownBy(() -> ConsumerOptions.defaults().withMaxRetries(-1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("maxRetries must not be negative, was -1");
            assertThat(ConsumerOptions.defaults().withMaxRetries(0).maxRetries())
                    .isZero();
        }

        @ParameterizedTest(name = "{0} ms")
        @ValueSource(longs = {0, -1})
        @DisplayName("a zero or negative handler timeout is refused")
        void timeout(long millis) {
            assertThatThrownBy(() -> ConsumerOptions.defaults().withHandlerTimeout(Duration.ofMillis(millis)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("handler timeout must be positive");
        }

        @Test
        @DisplayName("null timeout and null timeout outcome are refused")
        void nulls() {
            assertThatThrownBy(() -> ConsumerOptions.defaults().withHandlerTimeout(null))
                    .isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> ConsumerOptions.defaults().withHandlerTimeoutOutcome(null))
                    .isInstanceOf(NullPointerException.class);
        }

        @Test
        @DisplayName("a timeout outcome with a continuation is refused")
        void timeoutOutcomeWithContinuation() {
            assertThatThrownBy(() -> ConsumerOptions.defaults()
                            .withHandlerTimeoutOutcome(Outcome.defer().andThen(() -> {})))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("cannot carry a continuation");
        }

        @Test
        @DisplayName("a size limit below 1 byte is refused; withoutMessageSizeLimit removes it")
        void size() {
            assertThatThrownBy(() -> ConsumerOptions.defaults().withMaxMessageSize(0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("maxMessageSize must be at least 1 byte, was 0");
            assertThat(ConsumerOptions.defaults().withMaxMessageSize(1).maxMessageSize())
                    .hasValue(1);
            assertThat(ConsumerOptions.defaults().withoutMessageSizeLimit().maxMessageSize())
                    .isEmpty();
        }

        @Test
        @DisplayName("a negative lane buffer is refused; 0 is allowed")
        void laneBuffer() {
            assertThatThrownBy(() -> ConsumerOptions.defaults().withLaneBuffer(-1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("laneBuffer must not be negative, was -1");
            assertThat(ConsumerOptions.defaults().withLaneBuffer(0).laneBuffer())
                    .isZero();
        }
    }

    @Test
    @DisplayName("each with... returns a copy that keeps every other setting")
    void withKeepsOtherSettings() {
        ConsumerOptions base = ConsumerOptions.defaults();
        ConsumerOptions o = base.withPrefetch(3)
                .withMaxRetries(2)
                .withHandlerTimeout(Duration.ofSeconds(9))
                .withHandlerTimeoutOutcome(Outcome.defer())
                .withMaxMessageSize(1024)
                .withLaneBuffer(7);

        assertThat(o.prefetch()).isEqualTo(3);
        assertThat(o.maxRetries()).isEqualTo(2);
        assertThat(o.handlerTimeout()).contains(Duration.ofSeconds(9));
        assertThat(o.handlerTimeoutOutcome()).isEqualTo(Outcome.defer());
        assertThat(o.maxMessageSize()).hasValue(1024);
        assertThat(o.laneBuffer()).isEqualTo(7);

        ConsumerOptions again = o.withPrefetch(4);
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
        ConsumerOptions o = ConsumerOptions.defaults()
                .withPrefetch(3)
                .withMaxRetries(2)
                .withHandlerTimeoutOutcome(Outcome.defer())
                .withLaneBuffer(7)
                .withoutHandlerTimeout()
                .withoutMessageSizeLimit();

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
        assertThat(ConsumerOptions.defaults().withoutHandlerTimeout().withoutMessageSizeLimit())
                .hasToString("ConsumerOptions[prefetch=10, maxRetries=10, handlerTimeout=disabled,"
                        + " handlerTimeoutOutcome=retry, maxMessageSize=unlimited, laneBuffer=100,"
                        + " decodeFailurePolicy=REJECT]");
        assertThat(ConsumerOptions.defaults().toString()).contains("handlerTimeout=inherited");
    }
}
