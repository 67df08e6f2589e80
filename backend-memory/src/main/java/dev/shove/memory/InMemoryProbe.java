package dev.shove.memory;

import dev.shove.Broker;
import dev.shove.CodecException;
import dev.shove.PublishException;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.spi.DurationText;
import dev.shove.spi.OutboundMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.LockSupport;

/**
 * A look inside an in-memory broker, for application tests: wait until everything has settled, and read what waits
 * in a queue or a dead-letter queue. Thread-safe.
 *
 * <pre>{@code
 * InMemoryProbe probe = InMemoryProbe.of(broker);
 * broker.publisher().publish(ORDERS, order);
 * probe.awaitIdle(Duration.ofSeconds(5));
 * assertThat(probe.deadLetters(ORDERS)).isEmpty();
 * }</pre>
 *
 * <p>{@link #deadLetters} reads messages still waiting in the DLQ; a consumer group consumes its topic's DLQ (and
 * calls {@code handleDead}) unless registered with {@code noDeadLetterConsumer()}; {@link #rawDeadLetters} reads them
 * as bytes with their headers, and {@link #inject} puts raw messages on a queue as another producer could.
 *
 * @since 0.1.0
 */
public final class InMemoryProbe {
    private final InMemoryTransport broker;

    private InMemoryProbe(InMemoryTransport broker) {
        this.broker = broker;
    }

    /**
     * The probe of an in-memory broker.
     *
     * @param broker a broker connected with an {@link InMemoryConfig}, directly or through a decorating transport
     * @return a probe reading that broker's queues
     * @throws IllegalArgumentException when the broker is of another backend
     */
    public static InMemoryProbe of(Broker<InMemory> broker) {
        Objects.requireNonNull(broker, "broker");
        return new InMemoryProbe(broker.unwrap(InMemoryTransport.class)
                .orElseThrow(() -> new IllegalArgumentException("not an in-memory broker: " + broker.backendName())));
    }

    /**
     * {@return whether nothing is in motion: every queue empty except dead-letter queues, no delivery unsettled, no
     * retry waiting out its delay} Dead letters may wait unread (read them with {@link #deadLetters}).
     */
    public boolean isIdle() {
        return broker.isIdle();
    }

    /**
     * Waits until the broker is {@linkplain #isIdle() idle}, and stays idle for a moment (a handler's settlement may
     * publish a copy).
     *
     * @param timeout how long to wait
     * @throws AssertionError when it is not idle within {@code timeout}, naming what is still busy
     */
    public void awaitIdle(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        int quietPolls = 0;
        while (quietPolls < 3) {
            if (broker.isIdle()) {
                quietPolls++;
            } else {
                quietPolls = 0;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("the in-memory broker is not idle after " + DurationText.of(timeout) + " ("
                        + broker.pendingTimers() + " held message(s) waiting)");
            }
            LockSupport.parkNanos(2_000_000);
        }
    }

    /**
     * {@return how many messages wait in a queue (main queue, shard, or DLQ), not counting delivered ones}
     *
     * @param queue the queue's name, e.g. {@code orders}, {@code orders-seq-0} or {@code orders-dlq}
     */
    public int depth(String queue) {
        return broker.depth(queue);
    }

    /**
     * {@return the messages waiting in the topic's dead-letter queue, decoded, oldest first}
     *
     * @param topic a topic with a dead-letter queue
     * @param <M> the message type
     */
    public <M> List<M> deadLetters(Topic<M> topic) {
        return decodeAll(topic, deadLetterQueue(topic));
    }

    /**
     * {@return the headers of the messages waiting in the topic's dead-letter queue, oldest first}
     *
     * @param topic a topic with a dead-letter queue
     */
    public List<Map<String, String>> deadLetterHeaders(Topic<?> topic) {
        List<Map<String, String>> out = new ArrayList<>();
        for (MemMessage m : broker.peek(deadLetterQueue(topic))) {
            out.add(m.headers);
        }
        return out;
    }

    /**
     * A message as it sits in a queue: its bytes and every header.
     *
     * @param payload the bytes as stored
     * @param headers every header, {@code shove-*} included
     */
    public record RawMessage(byte[] payload, Map<String, String> headers) {
        /**
         * Copies {@code headers}.
         *
         * @param payload the bytes as stored
         * @param headers every header, {@code shove-*} included
         */
        public RawMessage {
            Objects.requireNonNull(payload, "payload");
            headers = Map.copyOf(headers);
        }
    }

    /**
     * The messages waiting in the topic's dead-letter queue exactly as stored, oldest first: bytes that may not decode
     * any more, with their headers ({@code shove-death-reason} and the others) alongside.
     *
     * @param topic a topic with a dead-letter queue
     * @return the dead letters as stored
     */
    public List<RawMessage> rawDeadLetters(Topic<?> topic) {
        List<RawMessage> out = new ArrayList<>();
        for (MemMessage m : broker.peek(deadLetterQueue(topic))) {
            out.add(new RawMessage(m.payload, m.headers));
        }
        return out;
    }

    /**
     * Puts raw bytes with headers of your choosing on the topic's queue, as another producer could: bytes that do not
     * decode, {@code shove-} headers shove's publisher refuses (a retry count, a due time), a message without a
     * message id. For a sequenced topic, {@code shove-sequence-key} in {@code headers} chooses the key and its shard.
     * Declares the topic first. Blocks while the queue is full, like a publish.
     *
     * @param topic the topic whose queue receives the message
     * @param payload the bytes to put there, as they are
     * @param headers every header the message carries; {@code shove-} headers included
     */
    public void inject(Topic<?> topic, byte[] payload, Map<String, String> headers) {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(payload, "payload");
        broker.declare(topic);
        String key = headers.get(ShoveHeaders.SEQUENCE_KEY);
        int shard = -1;
        if (topic.isSequenced()) {
            if (key == null) {
                throw new IllegalArgumentException("topic '" + topic.name() + "' is sequenced: give a "
                        + ShoveHeaders.SEQUENCE_KEY + " header to choose the key");
            }
            shard = topic.sequencing().orElseThrow().shardOf(key);
        }
        try {
            broker.publish(topic, new OutboundMessage(payload, headers, key, shard, "application/octet-stream"))
                    .get();
        } catch (ExecutionException e) {
            throw new PublishException("injecting into topic '" + topic.name() + "' failed: " + e.getCause(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PublishException("interrupted while injecting into topic '" + topic.name() + "'", e);
        }
    }

    /**
     * {@return the messages waiting in the topic's main queue (all shards of a sequenced topic), decoded}
     *
     * @param topic a topic
     * @param <M> the message type
     */
    public <M> List<M> waiting(Topic<M> topic) {
        List<M> out = new ArrayList<>();
        topic.sequencing()
                .ifPresentOrElse(
                        s -> {
                            for (int i = 0; i < s.routingShards(); i++) {
                                out.addAll(decodeAll(topic, topic.shardName(i)));
                            }
                        },
                        () -> out.addAll(decodeAll(topic, topic.name())));
        return out;
    }

    private static String deadLetterQueue(Topic<?> topic) {
        return topic.dlq().orElseThrow(() -> new IllegalArgumentException("topic '" + topic.name() + "' has no dlq"));
    }

    private <M> List<M> decodeAll(Topic<M> topic, String queue) {
        List<M> out = new ArrayList<>();
        for (MemMessage m : broker.peek(queue)) {
            try {
                out.add(topic.codec().decode(m.payload, m.headers));
            } catch (Exception e) {
                throw new CodecException(
                        "a message in '" + queue + "' cannot be decoded as "
                                + topic.codec().name(),
                        e);
            }
        }
        return out;
    }
}
