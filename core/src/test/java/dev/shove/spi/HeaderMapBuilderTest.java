package dev.shove.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.MessageMetadata;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HeaderMapBuilderTest {

    @ParameterizedTest(name = "{0} headers")
    @ValueSource(ints = {0, 1, 2, 3, 4, 9})
    @DisplayName("builds exactly the headers put, at every size")
    void everySize(int count) {
        HeaderMapBuilder builder = new HeaderMapBuilder(count);
        for (int i = 0; i < count; i++) {
            builder.put("h" + i, "v" + i);
        }
        Map<String, String> headers = builder.build();
        assertThat(headers).hasSize(count);
        for (int i = 0; i < count; i++) {
            assertThat(headers).containsEntry("h" + i, "v" + i);
        }
    }

    @Test
    @DisplayName("a name put again takes the later value and takes no more room")
    void repeatedNameTakesTheLaterValue() {
        Map<String, String> headers = new HeaderMapBuilder(2)
                .put("a", "1")
                .put("b", "2")
                .put("a", "3")
                .build();
        assertThat(headers).containsOnly(Map.entry("a", "3"), Map.entry("b", "2"));
    }

    @Test
    @DisplayName("one name more than the builder has room for is refused, naming it")
    void overflowIsRefused() {
        HeaderMapBuilder builder = new HeaderMapBuilder(1).put("a", "1");
        assertThatThrownBy(() -> builder.put("b", "2"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'b'");
    }

    @Test
    @DisplayName("the map is immutable, and MessageMetadata keeps it without a copy")
    void immutableAndKeptAsItIs() {
        Map<String, String> headers = new HeaderMapBuilder(4)
                .put("a", "1")
                .put("b", "2")
                .put("c", "3")
                .put("d", "4")
                .build();
        assertThatThrownBy(() -> headers.put("e", "5")).isInstanceOf(UnsupportedOperationException.class);
        assertThat(MessageMetadata.of("orders", "orders#1", headers).headers()).isSameAs(headers);
    }
}
