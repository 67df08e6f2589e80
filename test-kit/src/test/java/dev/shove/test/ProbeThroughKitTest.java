package dev.shove.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.Broker;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryProbe;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@ShoveTest
class ProbeThroughKitTest {

    @Test
    @DisplayName("the in-memory probe reaches through the kit's recording transport (Broker.unwrap passes it on)")
    @SuppressWarnings("unchecked")
    void probeReachesThroughTheKit(ShoveKit kit) {
        Broker<InMemory> broker = (Broker<InMemory>) kit.broker();
        Topic<String> notes = Topic.builder("notes", String.class).build();
        broker.topology().declare(notes);
        broker.publisher().publish(notes, "hello");

        assertThat(InMemoryProbe.of(broker).waiting(notes)).containsExactly("hello");
    }
}
