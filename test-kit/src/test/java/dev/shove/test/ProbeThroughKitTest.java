package dev.shove.test;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.Broker;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryProbe;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@ShoveTest
class ProbeThroughKitTest {

    @Test
    @DisplayName("the in-memory probe cannot reach through the kit's recording transport, and says what to use instead")
    @SuppressWarnings("unchecked")
    void probeExplainsTheWrappedTransport(ShoveKit kit) {
        Broker<InMemory> broker = (Broker<InMemory>) kit.broker();

        assertThatThrownBy(() -> InMemoryProbe.of(broker))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("this in-memory broker's transport is wrapped by another")
                .hasMessageContaining("use the kit's awaitIdle, published, journey and inject");
    }
}
