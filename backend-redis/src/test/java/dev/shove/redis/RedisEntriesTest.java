package dev.shove.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RedisEntriesTest {

    @Test
    @DisplayName("an entry carries the payload and every header; a held copy's group is read apart from the headers")
    void fieldsRoundTrip() {
        Map<String, byte[]> fields = RedisEntries.fields(new byte[] {0, 1, (byte) 255}, Map.of("tenant", "acme"));
        fields.put(RedisEntries.GROUP, "g".getBytes(StandardCharsets.UTF_8));
        RedisEntries.Message m = RedisEntries.read(fields);
        assertThat(m.payload()).containsExactly(0, 1, 255);
        assertThat(m.headers()).containsExactly(Map.entry("tenant", "acme"));
        assertThat(m.group()).isEqualTo("g");
    }

    @Test
    @DisplayName("a foreign entry with one field is that field's payload; with several, they are headers")
    void foreignEntries() {
        assertThat(RedisEntries.read(Map.of("data", "x".getBytes(StandardCharsets.UTF_8)))
                        .payload())
                .containsExactly('x');
        RedisEntries.Message m = RedisEntries.read(
                Map.of("a", "1".getBytes(StandardCharsets.UTF_8), "b", "2".getBytes(StandardCharsets.UTF_8)));
        assertThat(m.payload()).isEmpty();
        assertThat(m.headers()).containsEntry("a", "1").containsEntry("b", "2");
    }

    @Test
    @DisplayName("a held copy's member gives back its fields; two equal copies are two members")
    void members() {
        Map<String, byte[]> fields = RedisEntries.fields("{}".getBytes(StandardCharsets.UTF_8), Map.of("k", "v"));
        byte[] one = RedisEntries.member(fields);
        byte[] two = RedisEntries.member(fields);
        assertThat(one).isNotEqualTo(two);
        assertThat(RedisEntries.fieldsOf(one)).containsOnlyKeys(RedisEntries.PAYLOAD, "k");
        assertThat(RedisEntries.fieldsOf(one).get("k")).containsExactly('v');
        assertThatThrownBy(() -> RedisEntries.fieldsOf(new byte[] {1, 2, 3}))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("an entry id and its offset convert both ways, keep their order, and give the id before")
    void offsets() {
        long a = RedisEntries.offsetOf("1796139787773-0");
        long b = RedisEntries.offsetOf("1796139787773-1");
        long c = RedisEntries.offsetOf("1796139787774-0");
        assertThat(a).isPositive().isLessThan(b);
        assertThat(b).isLessThan(c);
        assertThat(RedisEntries.idOf(b)).isEqualTo("1796139787773-1");
        assertThat(RedisEntries.before("5-3")).isEqualTo("5-2");
        assertThat(RedisEntries.before("5-0")).isEqualTo("4-18446744073709551615");
        assertThat(RedisEntries.compare("5-18446744073709551615", "6-0")).isNegative();
    }
}
