package dev.shove.memory;

import dev.shove.Position;
import dev.shove.spi.DeadLetterStore;
import dev.shove.spi.Delivery;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A dead-letter queue of the in-memory broker for the dead-letter tools: a scan reads what the group has not read, in
 * place, and a removal takes messages out of the queue (or, in a log, out of what the group will read).
 */
final class MemDeadLetters implements DeadLetterStore {
    private final MemQueue queue;
    private final String group;

    MemDeadLetters(MemQueue queue, String group) {
        this.queue = queue;
        this.group = group;
    }

    @Override
    public String queue() {
        return queue.name;
    }

    @Override
    public long count() {
        return queue.unread(group).size();
    }

    @Override
    public boolean readsInPlace() {
        return true;
    }

    @Override
    public Scan scan() {
        List<MemMessage> letters = queue.unread(group);
        return new Scan() {
            private int next;

            @Override
            public List<Delivery> next(int max) {
                List<Delivery> page = new ArrayList<>(Math.min(max, letters.size() - next));
                while (page.size() < max && next < letters.size()) {
                    page.add(new Letter(letters.get(next++), queue));
                }
                return page;
            }

            @Override
            public void remove(List<Delivery> read) {
                List<MemMessage> messages = new ArrayList<>(read.size());
                for (Delivery d : read) {
                    messages.add(((Letter) d).message());
                }
                queue.remove(group, messages);
            }

            @Override
            public void close() {}
        };
    }

    /** A dead letter as a scan reads it. */
    private record Letter(MemMessage message, MemQueue source) implements Delivery {
        @Override
        public byte[] payload() {
            return message.payload;
        }

        @Override
        public Map<String, String> headers() {
            return message.headers;
        }

        @Override
        public String deliveryId() {
            return source.name + "@" + message.position;
        }

        @Override
        public String queue() {
            return source.name;
        }

        @Override
        public long timestampMs() {
            return message.timestampMs;
        }

        @Override
        public long offset() {
            return source.isLog() ? message.position : -1;
        }

        @Override
        public @Nullable Position position() {
            return source.isLog() ? new Position.Captured(source.name, -1, message.position) : null;
        }
    }
}
