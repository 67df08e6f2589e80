package dev.shove.internal;

import dev.shove.Topic;
import dev.shove.TopologyException;
import dev.shove.spi.Transport;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Refuses a declaration whose broker objects another topic already owns: a topic {@code X} with {@code .dlq()} and a
 * topic named {@code X-dlq} would otherwise share one queue, so that {@code X}'s dead-letter handler receives live
 * messages of {@code X-dlq}, its dead-letter count counts them and a purge deletes them. The names come from the
 * transport ({@link Transport#objectNames(Topic)}), which knows how its broker spells them; the rule is the core's and
 * the same on every backend. One guard per broker connection; thread-safe.
 */
final class NameGuard {
    private record Claim(String topic, String role) {}

    private final Transport transport;
    private final Map<String, Claim> claims = new HashMap<>();

    NameGuard(Transport transport) {
        this.transport = transport;
    }

    /**
     * Declares {@code topic} on the transport after checking that none of its broker objects belongs to another topic
     * declared on this connection.
     *
     * @throws TopologyException naming both topics and the fix when a name is taken
     */
    void declare(Topic<?> topic) {
        Map<String, String> names = transport.objectNames(topic);
        List<String> claimed = new ArrayList<>();
        synchronized (this) {
            for (Map.Entry<String, String> e : names.entrySet()) {
                Claim owner = claims.get(e.getKey());
                if (owner != null && !owner.topic().equals(topic.name())) {
                    throw collision(topic, e.getKey(), e.getValue(), owner);
                }
            }
            for (Map.Entry<String, String> e : names.entrySet()) {
                if (claims.putIfAbsent(e.getKey(), new Claim(topic.name(), e.getValue())) == null) {
                    claimed.add(e.getKey());
                }
            }
        }
        try {
            transport.declare(topic);
        } catch (RuntimeException | Error e) {
            synchronized (this) {
                claimed.forEach(claims::remove);
            }
            throw e;
        }
    }

    private TopologyException collision(Topic<?> topic, String name, String role, Claim owner) {
        String fix = role.equals("dead-letter queue") || owner.role().equals("dead-letter queue")
                ? "give the dead-letter queue a name of its own with .dlq(\"...\") or rename one of the topics"
                : "rename one of the topics";
        return new TopologyException(
                ("topic '%s' cannot be declared: its %s '%s' on %s is already the %s of topic '%s'; two topics never"
                                + " share a broker object (one's dead letters would be the other's live messages): %s")
                        .formatted(topic.name(), role, name, transport.name(), owner.role(), owner.topic(), fix));
    }
}
