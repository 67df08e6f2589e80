package dev.shove;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("ShoveHeaders")
class ShoveHeadersTest {

    @ParameterizedTest(name = "\"{0}\" is reserved")
    @ValueSource(
            strings = {
                "shove-",
                "shove-message-id",
                "shove-anything",
                "Shove-Message-Id",
                "SHOVE-RETRY-COUNT",
                "sHoVe-x",
                "shove-sequence-key"
            })
    @DisplayName("any header under the prefix, in any case, is reserved")
    void reserved(String name) {
        assertThat(ShoveHeaders.isReserved(name)).isTrue();
    }

    @ParameterizedTest(name = "\"{0}\" is free")
    @ValueSource(
            strings = {"", "shove", "SHOVE", "shove_message_id", "shovel-x", "x-shove-retry", " shove-x", "trace-id"})
    @DisplayName("other headers are free, including ones that merely contain the prefix")
    void free(String name) {
        assertThat(ShoveHeaders.isReserved(name)).isFalse();
    }

    @Test
    @DisplayName("every header shove writes uses the reserved prefix and is listed once")
    void allUseThePrefix() {
        assertThat(ShoveHeaders.ALL).allMatch(ShoveHeaders::isReserved).doesNotHaveDuplicates();
        assertThat(ShoveHeaders.ALL)
                .containsExactlyInAnyOrder(
                        ShoveHeaders.MESSAGE_ID,
                        ShoveHeaders.RETRY_COUNT,
                        ShoveHeaders.SEQUENCE_KEY,
                        ShoveHeaders.NOT_BEFORE,
                        ShoveHeaders.DEATH_REASON,
                        ShoveHeaders.ORIGINAL_QUEUE,
                        ShoveHeaders.DEATH_COUNT,
                        ShoveHeaders.EXCEPTION_CLASS,
                        ShoveHeaders.EXCEPTION_MESSAGE,
                        ShoveHeaders.EXCEPTION_TRACE,
                        ShoveHeaders.REPLAY_COUNT,
                        ShoveHeaders.SCHEMA_VERSION);
        assertThat(ShoveHeaders.PREFIX).isEqualTo("shove-");
    }
}
