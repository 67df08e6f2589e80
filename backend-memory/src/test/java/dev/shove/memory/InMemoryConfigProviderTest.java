package dev.shove.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.Broker;
import dev.shove.BrokerConfig;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class InMemoryConfigProviderTest {

    @Test
    @DisplayName("Broker.connect(memory:) connects an in-memory broker")
    void connects() {
        try (Broker<?> broker = Broker.connect("memory:")) {
            assertThat(broker.backendName()).isEqualTo("memory");
        }
    }

    @Test
    @DisplayName("memory://?capacity=&retention= set the builder's settings")
    void settings() {
        assertThat(BrokerConfig.fromUri("memory://?capacity=5&retention=100"))
                .isInstanceOfSatisfying(InMemoryConfig.class, c -> {
                    assertThat(c.capacity()).isEqualTo(5);
                    assertThat(c.retention()).isEqualTo(100);
                });
        assertThat(BrokerConfig.fromUri("memory:?capacity=7")).hasToString("InMemoryConfig[capacity=7]");
    }

    @Test
    @DisplayName("a bad setting is refused with the builder's own message")
    void badSetting() {
        assertThatThrownBy(() -> BrokerConfig.fromUri("memory://?capacity=0"))
                .hasMessageContaining("capacity must be at least 1");
        assertThatThrownBy(() -> BrokerConfig.fromUri("memory://?size=1"))
                .hasMessageContaining("unknown parameter(s) [size]");
    }
}
