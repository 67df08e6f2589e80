package dev.shove.redis;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Reads the replies of {@code XINFO}: a list of alternating names and values (RESP2) or a map (RESP3). */
final class RedisInfo {
    private RedisInfo() {}

    static Map<String, Object> fields(@Nullable Object reply) {
        Map<String, Object> out = new HashMap<>();
        if (reply instanceof Map<?, ?> map) {
            map.forEach((k, v) -> out.put(string(k), v));
        } else if (reply instanceof List<?> list) {
            for (int i = 0; i + 1 < list.size(); i += 2) {
                out.put(string(list.get(i)), list.get(i + 1));
            }
        }
        return out;
    }

    static String string(@Nullable Object value) {
        if (value instanceof byte[] b) {
            return new String(b, StandardCharsets.UTF_8);
        }
        return String.valueOf(value);
    }

    static long number(@Nullable Object value) {
        if (value instanceof Number n) {
            return n.longValue();
        }
        if (value == null) {
            return 0;
        }
        try {
            return Long.parseLong(string(value).trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
