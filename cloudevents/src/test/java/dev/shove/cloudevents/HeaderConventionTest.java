package dev.shove.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HeaderConventionTest {
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"kafka, ce_", "rabbitmq, cloudEvents:", "nats, ce-", "redis, ce-", "sqs, ce-", "memory, ce-"})
    @DisplayName("each broker gets its protocol binding's prefix, the generic ce- where it has none")
    void forBackend(String backend, String prefix) {
        assertThat(HeaderConvention.forBackend(backend).prefix()).isEqualTo(prefix);
    }

    @Test
    @DisplayName("only AMQP carries datacontenttype in the broker's own field rather than a content-type header")
    void contentTypeHeader() {
        assertThat(HeaderConvention.forBackend("rabbitmq").contentTypeHeader()).isFalse();
        assertThat(HeaderConvention.forBackend("kafka").contentTypeHeader()).isTrue();
        assertThat(HeaderConvention.forBackend("sqs").contentTypeHeader()).isTrue();
    }

    @Test
    @DisplayName("a blank prefix is refused")
    void blankPrefix() {
        assertThatThrownBy(() -> new HeaderConvention(" ", true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs a prefix");
    }
}
