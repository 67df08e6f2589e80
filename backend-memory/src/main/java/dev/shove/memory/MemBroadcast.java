package dev.shove.memory;

import dev.shove.Position;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A broadcast topic of the in-memory broker: every subscriber has a queue of its own that receives a copy of every
 * message published while it is subscribed. A bounded history (the broker's capacity) lets a new subscriber start
 * from an earlier position.
 */
final class MemBroadcast {
    private final int historyLimit;
    private final List<MemQueue> subscribers = new CopyOnWriteArrayList<>();
    private final ArrayDeque<MemMessage> history = new ArrayDeque<>();
    private long positions;

    MemBroadcast(int historyLimit) {
        this.historyLimit = historyLimit;
    }

    /** Gives each current subscriber its own copy; remembers the message for later subscribers. */
    void publish(MemMessage template) throws InterruptedException {
        List<MemQueue> targets;
        synchronized (this) {
            template.position = positions++;
            history.addLast(template);
            if (history.size() > historyLimit) {
                history.removeFirst();
            }
            targets = List.copyOf(subscribers);
        }
        for (MemQueue q : targets) {
            q.put(copyOf(template), true);
        }
    }

    /**
     * Adds a subscriber queue, first filled with the history from {@code start} (null: nothing earlier, only what is
     * published from now on).
     *
     * @throws IllegalArgumentException when the start position is older than the history kept
     */
    void subscribe(MemQueue queue, Position start) throws InterruptedException {
        List<MemMessage> backlog = new ArrayList<>();
        synchronized (this) {
            long oldest = history.isEmpty() ? positions : history.getFirst().position;
            for (MemMessage m : history) {
                if (includes(start, m, oldest)) {
                    backlog.add(copyOf(m));
                }
            }
            subscribers.add(queue);
        }
        for (MemMessage m : backlog) {
            queue.put(m, true);
        }
    }

    private boolean includes(Position start, MemMessage m, long oldest) {
        return switch (start) {
            case Position.End e -> false;
            case Position.Start s -> true;
            case Position.Sequence s -> {
                if (s.sequence() < oldest || s.sequence() > positions) {
                    throw new IllegalArgumentException("broadcast position %d no longer exists (kept: %d to %d)"
                            .formatted(s.sequence(), oldest, positions));
                }
                yield m.position >= s.sequence();
            }
            case Position.Timestamp t -> m.timestampMs >= t.time().toEpochMilli();
            case Position.Captured c ->
                throw new IllegalArgumentException(
                        "a broadcast subscription cannot start at a captured position: " + c);
        };
    }

    List<MemQueue> queues() {
        return subscribers;
    }

    void unsubscribe(MemQueue queue) {
        subscribers.remove(queue);
    }

    private static MemMessage copyOf(MemMessage m) {
        return new MemMessage(m.payload, m.headers, m.timestampMs);
    }
}
