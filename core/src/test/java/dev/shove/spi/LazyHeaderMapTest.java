package dev.shove.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.MessageMetadata;
import java.util.Map;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** A header map that decodes on read: lookups decode one value, whole-map operations everything once. */
class LazyHeaderMapTest {

    /** Headers as name, value pairs; counts what the engine would have paid for. */
    private static final class Counting extends LazyHeaderMap {
        private final String[] pairs;
        int finds;
        int wholeDecodes;

        Counting(String... pairs) {
            this.pairs = pairs;
        }

        @Override
        protected @Nullable String find(String name) {
            finds++;
            for (int i = pairs.length - 2; i >= 0; i -= 2) {
                if (pairs[i].equals(name)) {
                    return pairs[i + 1];
                }
            }
            return null;
        }

        @Override
        protected void decodeAll(BiConsumer<String, String> into) {
            wholeDecodes++;
            for (int i = 0; i < pairs.length; i += 2) {
                into.accept(pairs[i], pairs[i + 1]);
            }
        }
    }

    @Test
    void aLookupFindsOneNameWithoutDecodingTheRest() {
        Counting map = new Counting("a", "1", "b", "2", "a", "3");
        assertThat(map.get("a")).isEqualTo("3");
        assertThat(map.get("missing")).isNull();
        assertThat(map.containsKey("b")).isTrue();
        assertThat(map.getOrDefault("missing", "x")).isEqualTo("x");
        assertThat(map.get(null)).isNull();
        assertThat(map.get(42)).isNull();
        assertThat(map.wholeDecodes).isZero();
    }

    @Test
    void wholeMapOperationsDecodeEverythingOnceAndLookupsThenUseIt() {
        Counting map = new Counting("a", "1", "b", "2", "a", "3");
        assertThat(map).hasSize(2).isEqualTo(Map.of("a", "3", "b", "2"));
        assertThat(map.hashCode()).isEqualTo(Map.of("a", "3", "b", "2").hashCode());
        assertThat(map.keySet()).containsExactlyInAnyOrder("a", "b");
        assertThat(map.values()).containsExactlyInAnyOrder("3", "2");
        assertThat(map.containsValue("2")).isTrue();
        assertThat(map.containsValue(null)).isFalse();
        int finds = map.finds;
        assertThat(map.get("b")).isEqualTo("2");
        assertThat(map.finds).as("answered from the decoded map").isEqualTo(finds);
        assertThat(map.wholeDecodes).isOne();
    }

    @Test
    void isImmutable() {
        Counting map = new Counting("a", "1");
        assertThatThrownBy(() -> map.put("b", "2")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> map.remove("a")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(map::clear).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> map.entrySet().iterator().remove()).isInstanceOf(RuntimeException.class);
        assertThat(map).containsExactly(Map.entry("a", "1"));
    }

    @Test
    void metadataKeepsItWithoutACopy() {
        Counting map = new Counting("shove-message-id", "m-1");
        MessageMetadata metadata = MessageMetadata.of("orders", "d-1", map);
        assertThat(metadata.headers()).isSameAs(map);
        assertThat(metadata.header("shove-message-id")).contains("m-1");
        assertThat(map.wholeDecodes).isZero();
    }
}
