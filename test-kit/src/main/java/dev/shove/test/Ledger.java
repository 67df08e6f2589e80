package dev.shove.test;

import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.spi.Delivery;
import dev.shove.spi.OutboundMessage;
import dev.shove.spi.Settlement;
import dev.shove.spi.SubscriptionRequest;
import dev.shove.spi.SubscriptionRequest.Source;
import dev.shove.spi.WireHeaders;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What the recording transport and the handler recorder saw, in the order they saw it: every publish the broker
 * accepted, every delivery handed to the engine, every handler call of the kit's groups and every settlement the
 * engine asked for. The kit answers "what was published", "is anything still moving" and "what happened to this
 * message" from here. Thread-safe: one lock, held briefly; nothing is called while holding it.
 *
 * <p>Why the kit keeps its own count of what moves, beside the broker's stats: {@code QueueStats.inFlight} is 0 where
 * the broker cannot tell (Kafka) and {@code held} is -1 where it cannot count hold tiers (Redis), and a settlement's
 * copy or a publish in flight is on no broker's books yet. Counting is done when a step starts (a hold copy counts as
 * on its way back from the moment the settlement is submitted), so that its end can never be seen first.
 */
final class Ledger {
    /** Messages without a {@code shove-message-id} are counted together under this key. */
    private static final String NO_ID = "";

    private final Object lock = new Object();
    private final List<Sent> sent = new ArrayList<>();
    private final List<Event> events = new ArrayList<>();
    private final Map<String, Topic<?>> subscribed = new LinkedHashMap<>();
    private final Map<String, Motion> motion = new HashMap<>();
    private final Map<String, Set<String>> kitGroups = new HashMap<>();
    private final long start = System.nanoTime();
    private long sequence;
    private @Nullable WireHeaders wire;

    /** Where a delivery came from: a topic's main queue or its dead-letter queue, as one consumer group reads it. */
    record Route(String topic, String group, Source source) {}

    /** A message the broker accepted for a topic: published, injected, replied or replayed. */
    record Sent(long seq, Topic<?> topic, OutboundMessage message) {}

    /** One thing that happened to a message, in the order the kit saw it. */
    sealed interface Event permits Delivered, Settling, Waited, Called {
        long seq();

        /** Milliseconds since the ledger began. */
        long atMs();

        String topic();

        String group();

        @Nullable
        String messageId();
    }

    /** A delivery handed to the engine. */
    record Delivered(
            long seq,
            long atMs,
            Route route,
            @Nullable String messageId,
            int retryCount,
            String deliveryId,
            boolean redelivered,
            byte[] payload)
            implements Event {
        @Override
        public String topic() {
            return route.topic();
        }

        @Override
        public String group() {
            return route.group();
        }
    }

    /** A settlement the engine submitted for a delivery; {@link #done} once the broker answered. */
    static final class Settling implements Event {
        final long seq;
        final long atMs;
        final Route route;
        final @Nullable String messageId;
        final int retryCount;
        final Settlement settlement;
        /** The retry count a hold copy carries, -1 when the settlement holds nothing. */
        final int holdRetryCount;

        private volatile boolean done;
        private volatile @Nullable Throwable failure;

        Settling(
                long seq,
                long atMs,
                Route route,
                @Nullable String messageId,
                int retryCount,
                Settlement settlement,
                int holdRetryCount) {
            this.seq = seq;
            this.atMs = atMs;
            this.route = route;
            this.messageId = messageId;
            this.retryCount = retryCount;
            this.settlement = settlement;
            this.holdRetryCount = holdRetryCount;
        }

        @Override
        public long seq() {
            return seq;
        }

        @Override
        public long atMs() {
            return atMs;
        }

        @Override
        public String topic() {
            return route.topic();
        }

        @Override
        public String group() {
            return route.group();
        }

        @Override
        public @Nullable String messageId() {
            return messageId;
        }

        boolean done() {
            return done;
        }

        @Nullable
        Throwable failure() {
            return failure;
        }

        void finish(@Nullable Throwable error) {
            this.failure = error;
            this.done = true;
        }
    }

    /** A sequenced topic's retry waiting in place: the engine keeps the delivery and runs it again. */
    record Waited(
            long seq, long atMs, Route route, @Nullable String messageId, int retryCount) implements Event {
        @Override
        public String topic() {
            return route.topic();
        }

        @Override
        public String group() {
            return route.group();
        }
    }

    /** A handler call of one of the kit's groups. */
    record Called(
            long seq,
            long atMs,
            String topic,
            String group,
            @Nullable String messageId,
            HandlerCall call) implements Event {}

    /** One subscription's deliveries that the engine holds and has not settled. */
    static final class Tap {
        final SubscriptionRequest request;
        final Route route;
        private final Set<Delivery> unsettled = Collections.newSetFromMap(new IdentityHashMap<>());
        private boolean open = true;
        private boolean paused;

        Tap(SubscriptionRequest request) {
            this.request = request;
            this.route = new Route(request.topic().name(), request.group(), request.source());
        }
    }

    /** What moves for one topic, as far as this process can see. */
    private static final class Motion {
        final List<Tap> taps = new ArrayList<>();
        final Map<String, Integer> holds = new HashMap<>();
        final Map<String, Integer> deadLetters = new HashMap<>();
        int publishing;
        int running;
    }

    /** The transport opened: the reader of shove's headers from the wire. */
    void opened(WireHeaders headers) {
        synchronized (lock) {
            this.wire = headers;
        }
    }

    // ---------------------------------------------------------------- publishing

    void publishing(Topic<?> topic) {
        synchronized (lock) {
            motion(topic.name()).publishing++;
        }
    }

    /** A publish ended: recorded when the broker accepted it. */
    void published(Topic<?> topic, OutboundMessage message, boolean accepted) {
        synchronized (lock) {
            if (accepted) {
                sent.add(new Sent(++sequence, topic, message));
            }
            motion(topic.name()).publishing--;
        }
    }

    // ---------------------------------------------------------------- subscriptions

    Tap subscribing(SubscriptionRequest request) {
        Tap tap = new Tap(request);
        synchronized (lock) {
            subscribed.putIfAbsent(request.topic().name(), request.topic());
            motion(tap.route.topic()).taps.add(tap);
        }
        return tap;
    }

    void delivered(Tap tap, Collection<? extends Delivery> deliveries) {
        WireHeaders headers = wireHeaders();
        synchronized (lock) {
            Motion m = motion(tap.route.topic());
            for (Delivery d : deliveries) {
                tap.unsettled.add(d);
                String id = messageId(d.headers());
                events.add(new Delivered(
                        ++sequence,
                        now(),
                        tap.route,
                        id,
                        headers.retryCount(d.headers()),
                        d.deliveryId(),
                        d.redelivered(),
                        d.payload()));
                Map<String, Integer> waiting = tap.route.source() == Source.MAIN ? m.holds : m.deadLetters;
                waiting.computeIfPresent(key(id), (k, n) -> n > 1 ? n - 1 : null);
            }
        }
    }

    /** Deliveries the engine gave back or the subscription dropped: the broker redelivers them, if anyone. */
    void released(Tap tap, Collection<? extends Delivery> deliveries) {
        synchronized (lock) {
            deliveries.forEach(tap.unsettled::remove);
        }
    }

    Settling settling(Tap tap, Delivery delivery, Settlement settlement) {
        WireHeaders headers = wireHeaders();
        String id = messageId(delivery.headers());
        int holdRetryCount = -1;
        for (Settlement.Copy copy : settlement.copies()) {
            if (copy instanceof Settlement.Copy.ToHold hold) {
                holdRetryCount = headers.retryCount(hold.headers());
            }
        }
        synchronized (lock) {
            Settling s = new Settling(
                    ++sequence,
                    now(),
                    tap.route,
                    id,
                    headers.retryCount(delivery.headers()),
                    settlement,
                    holdRetryCount);
            events.add(s);
            count(tap.route.topic(), settlement, +1);
            return s;
        }
    }

    /** The broker answered a settlement: the delivery is done with, and a refused copy is not on its way. */
    void settled(Tap tap, Delivery delivery, Settling settling, @Nullable Throwable failure) {
        synchronized (lock) {
            settling.finish(failure);
            tap.unsettled.remove(delivery);
            if (failure != null) {
                count(tap.route.topic(), settling.settlement, -1);
            } else {
                for (Settlement.Copy copy : settling.settlement.copies()) {
                    if (copy instanceof Settlement.Copy.ToTopic reply) {
                        sent.add(new Sent(++sequence, reply.topic(), reply.message()));
                    }
                }
            }
        }
    }

    void waiting(Tap tap, Delivery delivery, int retryCount) {
        String id = messageId(delivery.headers());
        synchronized (lock) {
            events.add(new Waited(++sequence, now(), tap.route, id, retryCount));
        }
    }

    void paused(Tap tap) {
        synchronized (lock) {
            tap.paused = true;
        }
    }

    /** The subscription ended: what it held goes back to the broker by the broker's own means. */
    void closed(Tap tap) {
        synchronized (lock) {
            tap.open = false;
            tap.unsettled.clear();
            motion(tap.route.topic()).taps.remove(tap);
        }
    }

    /** Dead letters removed by the dead-letter tools (replayed or purged): no dead-letter consumer will read them. */
    void deadLettersRemoved(Topic<?> topic, List<Delivery> letters) {
        synchronized (lock) {
            Motion m = motion(topic.name());
            for (Delivery d : letters) {
                m.deadLetters.computeIfPresent(key(messageId(d.headers())), (k, n) -> n > 1 ? n - 1 : null);
            }
        }
    }

    // ---------------------------------------------------------------- handler calls

    /** A group made through the kit registered a handler for the topic: its calls are recorded. */
    void registered(String topic, String group) {
        synchronized (lock) {
            kitGroups.computeIfAbsent(topic, t -> new LinkedHashSet<>()).add(group);
        }
    }

    boolean isKitRegistration(String topic, String group) {
        synchronized (lock) {
            return kitGroups.getOrDefault(topic, Set.of()).contains(group);
        }
    }

    /** The names of the kit's groups registered for {@code topic}, in the order they registered. */
    List<String> kitGroups(String topic) {
        synchronized (lock) {
            return List.copyOf(kitGroups.getOrDefault(topic, Set.of()));
        }
    }

    void callStarted(String topic, String group, @Nullable String messageId, HandlerCall call) {
        synchronized (lock) {
            events.add(new Called(++sequence, now(), topic, group, messageId, call));
            motion(topic).running++;
        }
    }

    void callEnded(String topic) {
        synchronized (lock) {
            motion(topic).running--;
        }
    }

    // ---------------------------------------------------------------- questions

    /** Every message the broker accepted for {@code topic}, in the order it accepted them. */
    List<Sent> sent(String topic) {
        synchronized (lock) {
            return sent.stream().filter(s -> s.topic().name().equals(topic)).toList();
        }
    }

    /** Every event of {@code topic} so far, in order. */
    List<Event> events(String topic) {
        synchronized (lock) {
            return events.stream().filter(e -> e.topic().equals(topic)).toList();
        }
    }

    /** The topics some subscription of this broker consumed, in the order they were first subscribed. */
    List<Topic<?>> subscribedTopics() {
        synchronized (lock) {
            return List.copyOf(subscribed.values());
        }
    }

    /** Forgets what was published and what happened; what still moves is still counted. */
    void clear() {
        synchronized (lock) {
            sent.clear();
            events.clear();
        }
    }

    /**
     * What still moves for {@code topic} in this process, one line each; empty when nothing does. Dead letters count
     * only while a dead-letter consumer of the topic runs (otherwise they wait in the queue, at rest).
     */
    List<String> motion(Topic<?> topic) {
        List<String> moving = new ArrayList<>();
        synchronized (lock) {
            Motion m = motion.get(topic.name());
            if (m == null) {
                return moving;
            }
            if (m.publishing > 0) {
                moving.add(m.publishing + " publish(es) not yet accepted by the broker");
            }
            for (Tap tap : m.taps) {
                if (!tap.unsettled.isEmpty()) {
                    moving.add(tap.unsettled.size() + " delivery(ies) of group '" + tap.route.group() + "' from '"
                            + tap.request.queue() + "' not yet settled: " + describe(tap.unsettled));
                }
            }
            if (m.running > 0) {
                moving.add(m.running + " handler call(s) running");
            }
            if (!m.holds.isEmpty()) {
                moving.add("retry copies on their way back from a hold tier: " + ids(m.holds));
            }
            boolean deadLetterConsumer =
                    m.taps.stream().anyMatch(t -> t.route.source() == Source.DEAD_LETTER && t.open && !t.paused);
            if (deadLetterConsumer && !m.deadLetters.isEmpty()) {
                moving.add("dead letters not yet read by the dead-letter consumer: " + ids(m.deadLetters));
            }
        }
        return moving;
    }

    private void count(String topic, Settlement settlement, int delta) {
        Motion m = motion(topic);
        for (Settlement.Copy copy : settlement.copies()) {
            Map<String, Integer> waiting = switch (copy) {
                case Settlement.Copy.ToHold hold -> m.holds;
                case Settlement.Copy.ToDeadLetter letter -> m.deadLetters;
                case Settlement.Copy.ToTopic reply -> null;
            };
            if (waiting == null) {
                continue;
            }
            String id = key(messageId(copy.headers()));
            if (delta > 0) {
                waiting.merge(id, 1, Integer::sum);
            } else {
                waiting.computeIfPresent(id, (k, n) -> n > 1 ? n - 1 : null);
            }
        }
    }

    private long now() {
        return (System.nanoTime() - start) / 1_000_000;
    }

    private Motion motion(String topic) {
        return motion.computeIfAbsent(topic, t -> new Motion());
    }

    private WireHeaders wireHeaders() {
        synchronized (lock) {
            return Objects.requireNonNull(wire, "the recording transport is not open");
        }
    }

    private static @Nullable String messageId(Map<String, String> headers) {
        return headers.get(ShoveHeaders.MESSAGE_ID);
    }

    private static String key(@Nullable String messageId) {
        return messageId == null ? NO_ID : messageId;
    }

    private static String ids(Map<String, Integer> counts) {
        List<String> out = new ArrayList<>();
        counts.forEach((id, n) -> out.add((id.isEmpty() ? "(no message id)" : id) + (n > 1 ? " x" + n : "")));
        return String.join(", ", out);
    }

    private static String describe(Set<Delivery> deliveries) {
        List<String> out = new ArrayList<>();
        for (Delivery d : deliveries) {
            if (out.size() == 5) {
                out.add("...");
                break;
            }
            String id = messageId(d.headers());
            out.add((id == null ? "(no message id)" : id) + " (" + d.deliveryId() + ")");
        }
        return String.join(", ", out);
    }
}
