package dev.shove.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.ShoveHeaders;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class MessageIdHeadersTest {
    @Test
    @DisplayName("the id reads as one random version-4 UUID string, the same string every time")
    void idIsAStableVersion4Uuid() {
        MessageIdHeaders headers = MessageIdHeaders.fresh();

        String id = headers.get(ShoveHeaders.MESSAGE_ID);

        assertThat(id).isNotNull();
        UUID uuid = UUID.fromString(id);
        assertThat(uuid.version()).isEqualTo(4);
        assertThat(uuid.variant()).isEqualTo(2);
        assertThat(uuid.toString()).isEqualTo(id);
        assertThat(headers.get(ShoveHeaders.MESSAGE_ID)).isSameAs(id);
        assertThat(MessageIdHeaders.fresh().get(ShoveHeaders.MESSAGE_ID)).isNotEqualTo(id);
    }

    @Test
    @DisplayName("as a map it is exactly one entry, the id, equal to a JDK map of it both ways")
    void oneEntryMap() {
        MessageIdHeaders headers = MessageIdHeaders.fresh();
        String id = headers.messageId();
        Map<String, String> plain = Map.of(ShoveHeaders.MESSAGE_ID, id);

        assertThat(headers).isEqualTo(plain);
        assertThat(plain).isEqualTo(headers);
        assertThat(headers.hashCode()).isEqualTo(plain.hashCode());
        assertThat(headers.size()).isEqualTo(1);
        assertThat(headers.isEmpty()).isFalse();
        assertThat(headers.containsKey(ShoveHeaders.MESSAGE_ID)).isTrue();
        assertThat(headers.containsValue(id)).isTrue();
        assertThat(headers.get(ShoveHeaders.RETRY_COUNT)).isNull();
        assertThat(headers.keySet()).containsExactly(ShoveHeaders.MESSAGE_ID);
        assertThat(headers.values()).containsExactly(id);
        assertThat(headers.entrySet()).containsExactly(Map.entry(ShoveHeaders.MESSAGE_ID, id));
        Map<String, String> visited = new HashMap<>();
        headers.forEach(visited::put);
        assertThat(visited).isEqualTo(plain);
        assertThat(new HashMap<>(headers)).isEqualTo(plain);
        assertThat(Map.copyOf(headers)).isEqualTo(plain);
    }

    @Test
    @DisplayName("threads racing to read the id first all read the same id")
    void racingReadersAgree() throws InterruptedException {
        for (int round = 0; round < 200; round++) {
            MessageIdHeaders headers = MessageIdHeaders.fresh();
            String[] seen = new String[4];
            List<Thread> readers = new ArrayList<>();
            for (int i = 0; i < seen.length; i++) {
                int slot = i;
                readers.add(Thread.ofVirtual().start(() -> seen[slot] = headers.get(ShoveHeaders.MESSAGE_ID)));
            }
            for (Thread t : readers) {
                t.join();
            }
            assertThat(seen).containsOnly(seen[0]);
            assertThat(seen[0]).isNotNull();
        }
    }
}
