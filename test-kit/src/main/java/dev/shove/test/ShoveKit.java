package dev.shove.test;

import dev.shove.Broker;
import dev.shove.BrokerConfig;
import dev.shove.ConsumerGroup;
import dev.shove.DeadLetter;
import dev.shove.NoContext;
import dev.shove.PublishException;
import dev.shove.Publisher;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.spi.OutboundMessage;
import dev.shove.spi.QueueStats;
import dev.shove.spi.SubscriptionRequest;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A test's shove broker and what the kit recorded on it: the messages the broker accepted, each message's journey
 * through the consumer groups made with {@link #consumerGroup()}, and a wait for topics to go idle. Given to test
 * methods by {@link ShoveExtension} (see {@link ShoveTest} for which broker it is); the same for every backend, and
 * nothing in it needs the in-memory broker.
 *
 * <pre>{@code
 * kit.consumerGroup().withContext(shop).register(ORDERS, OrderHandler::new).start();
 * kit.publisher().publish(ORDERS, new OrderPaid("o-1", 1299));
 * kit.awaitIdle(ORDERS);
 * assertThat(kit.journey(ORDERS, order -> order.orderId().equals("o-1"))).wasRetried(1).wasAcknowledged();
 * }</pre>
 *
 * <p>The broker's transport is wrapped in a recorder that passes every call through unchanged: the application's code
 * runs against the real backend. Thread-safe.
 *
 * @since 0.1.0
 */
public final class ShoveKit {
    /** How long {@link #awaitIdle(Topic[])} waits at most. */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(30);

    /** How long nothing may move before a topic counts as idle (a settlement may still publish a copy). */
    public static final Duration QUIET_PERIOD = Duration.ofMillis(100);

    /** How many dead letters a journey looks through for its own. */
    static final int DEAD_LETTER_SEARCH = 1_000;

    private static final long POLL_NANOS = Duration.ofMillis(10).toNanos();

    /** Where the kit's broker came from. */
    public enum Source {
        /** A broker URI: the system property or environment variable {@link ShoveTest} names. */
        URI,
        /** A container Testcontainers started for the test run. */
        CONTAINER,
        /** The in-memory broker: the default, or the fallback when no container could start. */
        IN_MEMORY
    }

    private final Ledger ledger = new Ledger();
    private final CallRecorder recorder = new CallRecorder(ledger);
    private final SimpleMeterRegistry meterRegistry = new SimpleMeterRegistry();
    private final Broker<?> broker;
    private final RecordingTransport transport;
    private final Source source;
    private final String description;

    ShoveKit(BrokerConfig<?> config, Source source, String description, String clientName) {
        this.source = Objects.requireNonNull(source, "source");
        this.description = Objects.requireNonNull(description, "description");
        RecordingTransport.Config<?> recording = new RecordingTransport.Config<>(config, ledger);
        this.broker = Broker.builder(recording)
                .meterRegistry(meterRegistry)
                .clientName(clientName)
                .connect();
        this.transport = recording.transport();
    }

    /** {@return the connected broker} It is closed by the extension; do not close it yourself. */
    public Broker<?> broker() {
        return broker;
    }

    /** {@return the broker's publisher: {@code broker().publisher()}} */
    public Publisher publisher() {
        return broker.publisher();
    }

    /**
     * A new consumer group of the broker whose handler calls the kit records for {@link #journey journeys}: the
     * broker's own group with a recording interceptor around every other (batch handlers are recorded too). Use it
     * as {@code broker().consumerGroup()}, e.g. {@code kit.consumerGroup().withContext(state).register(...)}.
     *
     * @return a new recording consumer group with no context
     */
    public ConsumerGroup<?, NoContext> consumerGroup() {
        return RecordingGroup.of(broker.consumerGroup(), recorder, ledger);
    }

    /** {@return the registry the broker's meters go to ({@code shove.messages.*}), to assert on counts} */
    public MeterRegistry meterRegistry() {
        return meterRegistry;
    }

    /** {@return where the broker came from} */
    public Source source() {
        return source;
    }

    /**
     * {@return which broker this is and why, without secrets: {@code the in-memory broker}, {@code kafka in a
     * container (apache/kafka:4.1.0) at kafka://localhost:32770}, or the in-memory broker and why no container could
     * start}
     */
    public String description() {
        return description;
    }

    // ---------------------------------------------------------------- what was published

    /**
     * Every message the broker accepted for {@code topic} since the kit began (or was {@linkplain #clear()
     * cleared}), in the order it accepted them: published by the application, replies of handlers, dead letters
     * replayed, raw bytes {@linkplain #inject injected}.
     *
     * @param topic the topic
     * @param <T> the message type
     * @return the accepted messages, oldest first
     */
    public <T> List<Published<T>> published(Topic<T> topic) {
        Objects.requireNonNull(topic, "topic");
        List<Published<T>> out = new ArrayList<>();
        for (Ledger.Sent s : ledger.sent(topic.name())) {
            out.add(new Published<>(topic, s.message()));
        }
        return out;
    }

    /**
     * The messages of {@link #published(Topic)}, decoded with the topic's codec.
     *
     * @param topic the topic
     * @param <T> the message type
     * @return the accepted messages, decoded, oldest first
     * @throws dev.shove.CodecException when one does not decode
     */
    public <T> List<T> publishedMessages(Topic<T> topic) {
        return published(topic).stream().map(Published::message).toList();
    }

    /**
     * Puts raw bytes with headers of your choosing on the topic, as another producer could: bytes that do not decode,
     * {@code shove-} headers the publisher refuses, a message without a message id. For a sequenced topic, {@code
     * shove-sequence-key} in {@code headers} chooses the key. Declares the topic first; returns once the broker
     * accepted the message. Works on every backend.
     *
     * @param topic the topic to put the message on
     * @param payload the bytes, as they are
     * @param headers every header the message carries; {@code shove-} headers included
     * @throws PublishException when the broker refuses it
     */
    public void inject(Topic<?> topic, byte[] payload, Map<String, String> headers) {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(payload, "payload");
        broker.topology().declare(topic);
        String key = headers.get(ShoveHeaders.SEQUENCE_KEY);
        int shard = -1;
        if (topic.isSequenced()) {
            if (key == null) {
                throw new IllegalArgumentException("topic '" + topic.name() + "' is sequenced: give a "
                        + ShoveHeaders.SEQUENCE_KEY + " header to choose the key");
            }
            shard = topic.sequencing().orElseThrow().shardOf(key);
        }
        OutboundMessage message =
                new OutboundMessage(payload.clone(), Map.copyOf(headers), key, shard, "application/octet-stream");
        try {
            transport.publish(topic, message).get();
        } catch (ExecutionException e) {
            throw new PublishException("injecting into topic '" + topic.name() + "' failed: " + e.getCause(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PublishException("interrupted while injecting into topic '" + topic.name() + "'", e);
        }
    }

    // ---------------------------------------------------------------- idle

    /**
     * Waits until the topics go idle, at most {@link #DEFAULT_IDLE_TIMEOUT}; with no topics, every topic something
     * consumes through this broker. See {@link #awaitIdle(Duration, Topic[])}.
     *
     * @param topics the topics to wait for; none for every consumed topic
     * @throws AssertionError when the topics do not go idle in time, naming what still moved
     */
    public void awaitIdle(Topic<?>... topics) {
        awaitIdle(DEFAULT_IDLE_TIMEOUT, topics);
    }

    /**
     * Waits until nothing moves for the topics and that lasts {@link #QUIET_PERIOD}: on the broker, nothing ready,
     * in flight or held in the topic's hold tiers (its stats); in this process, no publish waiting for the broker, no
     * delivery unsettled, no handler call of the kit's groups running, no retry copy on its way back from a hold
     * tier, and no dead letter still to reach a running dead-letter consumer. Dead letters that wait in the dead-letter
     * queue with nobody consuming it are at rest. With no topics, every topic something consumes through this broker.
     *
     * @param timeout how long to wait
     * @param topics the topics to wait for; none for every consumed topic
     * @throws AssertionError when the topics do not go idle within {@code timeout}, naming what still moved
     * @throws IllegalStateException when no topic is named and nothing consumes any yet
     */
    public void awaitIdle(Duration timeout, Topic<?>... topics) {
        Objects.requireNonNull(timeout, "timeout");
        List<Topic<?>> which = topics.length > 0 ? List.of(topics) : ledger.subscribedTopics();
        if (which.isEmpty()) {
            throw new IllegalStateException("awaitIdle() has nothing to wait for: no topic is consumed through this"
                    + " broker yet; start a consumer group first, or name the topics");
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        long quietSince = 0;
        boolean quiet = false;
        List<String> moving = List.of();
        while (true) {
            List<String> now = motion(which);
            long t = System.nanoTime();
            if (now.isEmpty()) {
                if (!quiet) {
                    quiet = true;
                    quietSince = t;
                } else if (t - quietSince >= QUIET_PERIOD.toNanos()) {
                    return;
                }
            } else {
                quiet = false;
                moving = now;
            }
            if (t - deadline >= 0) {
                if (quiet) {
                    return;
                }
                throw new AssertionError(names(which) + " did not go idle within " + timeout.toMillis()
                        + " ms; still moving:\n  - " + String.join("\n  - ", moving));
            }
            LockSupport.parkNanos(POLL_NANOS);
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + names(which) + " to go idle");
            }
        }
    }

    /** What moves for the topics, one line each: the kit's own facts first, then (if those are still) the broker's. */
    private List<String> motion(List<Topic<?>> topics) {
        List<String> moving = new ArrayList<>();
        for (Topic<?> topic : topics) {
            for (String m : ledger.motion(topic)) {
                moving.add("topic '" + topic.name() + "': " + m);
            }
        }
        if (!moving.isEmpty()) {
            return moving;
        }
        for (Topic<?> topic : topics) {
            try {
                QueueStats stats = transport.stats(topic);
                if (stats.ready() > 0 || stats.inFlight() > 0 || stats.held() > 0) {
                    moving.add("topic '" + topic.name() + "' on the broker: " + stats.ready() + " ready, "
                            + stats.inFlight() + " in flight, "
                            + (stats.held() < 0 ? "hold tiers not counted" : stats.held() + " held"));
                }
            } catch (RuntimeException e) {
                moving.add("topic '" + topic.name() + "': the broker's stats cannot be read (" + e + ")");
            }
        }
        return moving;
    }

    private static String names(List<Topic<?>> topics) {
        return (topics.size() == 1 ? "topic " : "topics ")
                + String.join(
                        ", ", topics.stream().map(t -> "'" + t.name() + "'").toList());
    }

    // ---------------------------------------------------------------- journeys

    /**
     * The journey of the message with id {@code messageId} through the kit's consumer group of {@code topic}: a
     * snapshot of what happened to it so far (call {@link #awaitIdle} first).
     *
     * @param topic the topic
     * @param messageId the message's {@code shove-message-id}
     * @param <T> the message type
     * @return the journey
     * @throws AssertionError when no such message was published to or delivered from the topic, when only groups
     *     not made through {@link #consumerGroup()} consumed it, or when several of the kit's groups did (then use
     *     {@link #journeys(Topic)} and choose by {@link Journey#group()})
     */
    public <T> Journey<T> journey(Topic<T> topic, String messageId) {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(messageId, "messageId");
        List<Ledger.Event> events = ledger.events(topic.name()).stream()
                .filter(e -> messageId.equals(e.messageId()))
                .toList();
        Set<String> groups = new LinkedHashSet<>();
        Set<String> otherGroups = new LinkedHashSet<>();
        for (Ledger.Event e : events) {
            (ledger.isKitRegistration(topic.name(), e.group()) ? groups : otherGroups).add(e.group());
        }
        if (groups.size() > 1) {
            throw new AssertionError("message " + messageId + " of topic '" + topic.name() + "' went through "
                    + groups.size() + " of the kit's groups " + groups + ": use journeys(topic) and choose by group()");
        }
        boolean published = ledger.sent(topic.name()).stream()
                .anyMatch(s -> messageId.equals(s.message().headers().get(ShoveHeaders.MESSAGE_ID)));
        if (groups.isEmpty()) {
            if (!otherGroups.isEmpty()) {
                throw new AssertionError("message " + messageId + " of topic '" + topic.name() + "' was consumed only"
                        + " by groups not made through kit.consumerGroup() " + otherGroups
                        + "; the kit records the handler calls of its own groups");
            }
            if (!published) {
                throw new AssertionError("no message with id " + messageId + " was published to or delivered from"
                        + " topic '" + topic.name() + "' while the kit recorded");
            }
        }
        String group =
                groups.isEmpty() ? defaultGroup(topic) : groups.iterator().next();
        return journey(topic, group, messageId, events, messages(topic).get(messageId));
    }

    /**
     * The journey of the one message of {@code topic} that {@code which} matches (decoded with the topic's codec),
     * among those published to it or delivered from it; see {@link #journey(Topic, String)}.
     *
     * @param topic the topic
     * @param which chooses the message
     * @param <T> the message type
     * @return the journey
     * @throws AssertionError when no message matches, or more than one does
     */
    public <T> Journey<T> journey(Topic<T> topic, Predicate<? super T> which) {
        Objects.requireNonNull(which, "which");
        Map<String, T> matches = new LinkedHashMap<>();
        Map<String, @Nullable T> seen = messages(topic);
        seen.forEach((id, message) -> {
            if (message != null && which.test(message)) {
                matches.put(id, message);
            }
        });
        if (matches.size() == 1) {
            return journey(topic, matches.keySet().iterator().next());
        }
        if (matches.isEmpty()) {
            throw new AssertionError("no message of topic '" + topic.name() + "' matches; the kit saw "
                    + (seen.isEmpty() ? "none" : seen.size() + ": " + listed(seen)));
        }
        throw new AssertionError(
                matches.size() + " messages of topic '" + topic.name() + "' match, expected one: " + listed(matches));
    }

    /**
     * The journeys of every message published to or delivered from {@code topic}, in the order the kit first saw
     * them, one per message and kit group that consumed it (a message no kit group received yet has one {@link
     * Journey.Fate#PENDING} journey when one kit group consumes the topic).
     *
     * @param topic the topic
     * @param <T> the message type
     * @return the journeys, possibly none
     */
    public <T> List<Journey<T>> journeys(Topic<T> topic) {
        Objects.requireNonNull(topic, "topic");
        List<Ledger.Event> events = ledger.events(topic.name());
        List<Journey<T>> out = new ArrayList<>();
        Map<String, @Nullable T> messages = messages(topic);
        for (String id : messages.keySet()) {
            List<Ledger.Event> mine =
                    events.stream().filter(e -> id.equals(e.messageId())).toList();
            Set<String> groups = new LinkedHashSet<>();
            for (Ledger.Event e : mine) {
                if (ledger.isKitRegistration(topic.name(), e.group())) {
                    groups.add(e.group());
                }
            }
            if (groups.isEmpty()
                    && mine.isEmpty()
                    && ledger.kitGroups(topic.name()).size() == 1) {
                groups.add(ledger.kitGroups(topic.name()).getFirst());
            }
            for (String group : groups) {
                out.add(journey(topic, group, id, mine, messages.get(id)));
            }
        }
        return out;
    }

    private <T> Journey<T> journey(
            Topic<T> topic, String group, String messageId, List<Ledger.Event> events, @Nullable T message) {
        List<Ledger.Event> ofGroup =
                events.stream().filter(e -> e.group().equals(group)).toList();
        return Journey.of(topic, group, messageId, message, ofGroup, id -> findDeadLetter(topic, group, id));
    }

    /** The message's dead letter, looked for with the dead-letter tools as the group sees the queue. */
    private <T> Journey.DeadLetterSearch<T> findDeadLetter(Topic<T> topic, String group, String messageId) {
        String queue = topic.dlq().orElse(topic.name() + "-dlq");
        List<DeadLetter<T>> letters;
        try {
            letters = broker.deadLetters(topic, group).browse(DEAD_LETTER_SEARCH);
        } catch (UnsupportedOperationException e) {
            return new Journey.DeadLetterSearch<>(
                    null, "the dead-letter tools cannot read '" + queue + "' on this backend: " + e.getMessage());
        }
        DeadLetter<T> found = null;
        for (DeadLetter<T> letter : letters) {
            if (letter.id().equals(messageId)) {
                found = letter; // the latest, if it died more than once
            }
        }
        if (found == null) {
            return new Journey.DeadLetterSearch<>(
                    null,
                    "the dead-letter tools do not find it in '" + queue + "' (among the first " + DEAD_LETTER_SEARCH
                            + "): read by the dead-letter consumer, replayed or purged");
        }
        return new Journey.DeadLetterSearch<>(
                found,
                "the dead-letter tools find it in '" + queue + "': \""
                        + found.metadata().reason() + "\", death count "
                        + found.metadata().deathCount()
                        + found.metadata()
                                .exceptionClass()
                                .map(c -> ", exception " + c)
                                .orElse(""));
    }

    /**
     * The messages the kit saw on {@code topic} (published, then delivered), by id in the order first seen, decoded;
     * null for bytes that do not decode.
     */
    private <T> Map<String, @Nullable T> messages(Topic<T> topic) {
        Map<String, byte[]> payloads = new LinkedHashMap<>();
        for (Ledger.Sent s : ledger.sent(topic.name())) {
            String id = s.message().headers().get(ShoveHeaders.MESSAGE_ID);
            if (id != null) {
                payloads.putIfAbsent(id, s.message().payload());
            }
        }
        for (Ledger.Event e : ledger.events(topic.name())) {
            if (e instanceof Ledger.Delivered d
                    && d.route().source() == SubscriptionRequest.Source.MAIN
                    && d.messageId() != null) {
                payloads.putIfAbsent(d.messageId(), d.payload());
            }
        }
        Map<String, @Nullable T> out = new LinkedHashMap<>();
        payloads.forEach((id, bytes) -> {
            T message;
            try {
                message = topic.codec().decode(bytes);
            } catch (Exception e) {
                message = null;
            }
            out.put(id, message);
        });
        return out;
    }

    private String defaultGroup(Topic<?> topic) {
        List<String> groups = ledger.kitGroups(topic.name());
        return groups.size() == 1 ? groups.getFirst() : topic.name();
    }

    private static String listed(Map<String, ?> messages) {
        List<String> out = new ArrayList<>();
        messages.forEach((id, m) -> {
            if (out.size() < 10) {
                out.add(id + " " + (m == null ? "(bytes that do not decode)" : m));
            }
        });
        return String.join(", ", out) + (messages.size() > 10 ? ", ..." : "");
    }

    // ---------------------------------------------------------------- lifecycle

    /**
     * Forgets what was published and every journey so far (useful between the tests of a {@link
     * ShoveTest.Lifecycle#PER_CLASS} kit); what still moves is still waited for.
     */
    public void clear() {
        ledger.clear();
    }

    /** Closes the broker: its groups stop (draining), then the connection closes. Idempotent. */
    void close() {
        broker.close();
        meterRegistry.close();
    }

    @Override
    public String toString() {
        return "ShoveKit[" + description + "]";
    }
}
