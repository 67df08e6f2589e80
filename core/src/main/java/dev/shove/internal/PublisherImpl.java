package dev.shove.internal;

import dev.shove.BatchPublishException;
import dev.shove.CodecException;
import dev.shove.Outcome;
import dev.shove.PublishException;
import dev.shove.Publisher;
import dev.shove.Sequencing;
import dev.shove.ShoveException;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.TopologyException;
import dev.shove.spi.OutboundMessage;
import dev.shove.spi.Transport;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Encodes, stamps and routes messages, then hands them to the transport; counts and times every publish. */
final class PublisherImpl implements Publisher {
    /** The longest message id a caller may give: as long as logs and dead letters show one. */
    static final int MAX_MESSAGE_ID = Failures.MAX_ID;

    private final Transport transport;
    private final Metrics metrics;

    PublisherImpl(Transport transport, Metrics metrics) {
        this.transport = transport;
        this.metrics = metrics;
    }

    @Override
    public <M> void publish(Topic<M> topic, M message) {
        publishWithHeaders(topic, message, Map.of());
    }

    @Override
    public <M> void publishWithHeaders(Topic<M> topic, M message, Map<String, String> headers) {
        await(topic, publishAsync(topic, message, headers));
    }

    @Override
    public <M> CompletableFuture<Void> publishAsync(Topic<M> topic, M message, Map<String, String> headers) {
        OutboundMessage outbound = prepare(topic, message, headers);
        Metrics.PublishMeters meters = metrics.publish(topic.name());
        long start = System.nanoTime();
        CompletableFuture<Void> result;
        try {
            result = transport.publish(topic, outbound);
        } catch (RuntimeException e) {
            result = CompletableFuture.failedFuture(e);
        }
        return result.handle((ok, failure) -> {
            long nanos = System.nanoTime() - start;
            if (failure == null) {
                meters.success.increment();
                meters.successDuration.record(nanos, TimeUnit.NANOSECONDS);
                return null;
            }
            meters.error.increment();
            meters.errorDuration.record(nanos, TimeUnit.NANOSECONDS);
            throw new CompletionException(asPublishException(topic, unwrap(failure)));
        });
    }

    @Override
    public <M> void publishBatch(Topic<M> topic, List<? extends M> messages) {
        Objects.requireNonNull(messages, "messages");
        if (messages.isEmpty()) {
            return;
        }
        // Each message is prepared on its own: one that cannot be encoded (or has no key) fails alone, at its index,
        // and the others are published.
        SortedMap<Integer, Throwable> failures = new TreeMap<>();
        List<OutboundMessage> outbound = new ArrayList<>(messages.size());
        int[] indices = new int[messages.size()]; // the index in messages of each outbound message
        for (int i = 0; i < messages.size(); i++) {
            try {
                outbound.add(prepare(topic, messages.get(i), Map.of()));
                indices[outbound.size() - 1] = i;
            } catch (RuntimeException e) {
                failures.put(i, asPublishException(topic, e));
            }
        }
        Metrics.PublishMeters meters = metrics.publish(topic.name());
        long start = System.nanoTime();
        List<CompletableFuture<Void>> results;
        try {
            results = outbound.isEmpty() ? List.of() : transport.publishAll(topic, outbound);
        } catch (RuntimeException e) {
            results = outbound.stream()
                    .map(o -> CompletableFuture.<Void>failedFuture(e))
                    .toList();
        }
        for (int r = 0; r < results.size(); r++) {
            try {
                results.get(r).get();
            } catch (ExecutionException e) {
                failures.put(indices[r], asPublishException(topic, unwrap(e)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                for (int j = r; j < results.size(); j++) {
                    CompletableFuture<Void> result = results.get(j);
                    if (!result.isDone()) {
                        failures.put(indices[j], new PublishException("interrupted while waiting for the broker", e));
                    } else if (result.isCompletedExceptionally()) {
                        failures.put(indices[j], asPublishException(topic, unwrap(result.exceptionNow())));
                    }
                }
                break;
            }
        }
        long nanos = System.nanoTime() - start;
        meters.success.increment(messages.size() - failures.size());
        meters.error.increment(failures.size());
        (failures.isEmpty() ? meters.successDuration : meters.errorDuration).record(nanos, TimeUnit.NANOSECONDS);
        if (!failures.isEmpty()) {
            throw new BatchPublishException(topic.name(), messages.size(), failures);
        }
    }

    /** Prepares a handler's reply exactly like a publish. */
    static <R> OutboundMessage prepareReply(Outcome.Reply<R> reply) {
        return prepare(reply.topic(), reply.message(), reply.headers());
    }

    /**
     * Encodes the message and builds its headers: the user's (validated), a fresh message id unless the caller gave
     * one, the ordering key.
     */
    static <M> OutboundMessage prepare(Topic<M> topic, M message, Map<String, String> userHeaders) {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(userHeaders, "headers");
        if (!userHeaders.isEmpty()) { // an empty map's iterator is still an object per message
            for (Map.Entry<String, String> h : userHeaders.entrySet()) {
                if (h.getKey().equals(ShoveHeaders.MESSAGE_ID)) {
                    checkMessageId(topic, h.getValue());
                } else if (ShoveHeaders.isReserved(h.getKey())) {
                    throw new IllegalArgumentException(
                            "header '%s' uses the reserved prefix '%s' (publishing to topic '%s'); rename it"
                                    .formatted(h.getKey(), ShoveHeaders.PREFIX, topic.name()));
                }
                Objects.requireNonNull(h.getValue(), () -> "header '" + h.getKey() + "' has a null value");
                HeaderValues.check("header '" + h.getKey() + "'", h.getValue(), topic.name());
            }
        }
        byte[] payload;
        try {
            payload = topic.codec().encode(message);
        } catch (Exception e) {
            throw new CodecException(
                    "cannot encode a message for topic '%s' with codec %s: %s"
                            .formatted(topic.name(), topic.codec().name(), e.getMessage()),
                    e);
        }
        String key = null;
        int shard = -1;
        Sequencing<M> sequencing = topic.sequencing().orElse(null);
        Map<String, String> codecHeaders = topic.codec().headers(); // e.g. the schema version
        Map<String, String> headers;
        if (sequencing != null) {
            key = sequencing.keyOf(message);
            HeaderValues.check("the sequencing key", key, topic.name());
            shard = sequencing.shardOf(key);
            Map<String, String> all = new HashMap<>(userHeaders.size() + codecHeaders.size() + 3);
            all.putAll(userHeaders);
            all.putAll(codecHeaders);
            all.put(ShoveHeaders.SEQUENCE_KEY, key);
            all.putIfAbsent(ShoveHeaders.MESSAGE_ID, Ids.newMessageId());
            headers = Map.copyOf(all);
        } else if (userHeaders.isEmpty() && codecHeaders.isEmpty()) {
            headers = MessageIdHeaders.fresh(); // only the id, formatted when first read
        } else {
            Map<String, String> all = new HashMap<>(userHeaders.size() + codecHeaders.size() + 2);
            all.putAll(userHeaders);
            all.putAll(codecHeaders);
            all.putIfAbsent(ShoveHeaders.MESSAGE_ID, Ids.newMessageId());
            headers = Map.copyOf(all);
        }
        return new OutboundMessage(payload, headers, key, shard, topic.codec().contentType());
    }

    /**
     * A caller's own message id (an outbox relay's, a CloudEvent's id): it must be a usable id, since logs, dead
     * letters and the inbox name the message by it.
     */
    private static void checkMessageId(Topic<?> topic, String id) {
        Objects.requireNonNull(id, () -> "header '" + ShoveHeaders.MESSAGE_ID + "' has a null value");
        if (id.isBlank() || id.length() > MAX_MESSAGE_ID || id.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException(
                    "header '%s' must be a message id of 1 to %d characters on one line, not blank (publishing to topic '%s'); got '%s'"
                            .formatted(
                                    ShoveHeaders.MESSAGE_ID,
                                    MAX_MESSAGE_ID,
                                    topic.name(),
                                    Failures.oneLine(id, Failures.MAX_ID)));
        }
    }

    private static <M> void await(Topic<M> topic, CompletableFuture<Void> future) {
        try {
            future.get();
        } catch (ExecutionException e) {
            throw asPublishException(topic, unwrap(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PublishException(
                    "interrupted while waiting for the broker to accept a message for topic '%s'; it may or may not"
                                    .formatted(topic.name())
                            + " have been published",
                    e);
        }
    }

    private static Throwable unwrap(Throwable t) {
        Throwable cur = t;
        while ((cur instanceof CompletionException || cur instanceof ExecutionException) && cur.getCause() != null) {
            cur = cur.getCause();
        }
        return cur;
    }

    private static ShoveException asPublishException(Topic<?> topic, Throwable failure) {
        if (failure instanceof PublishException || failure instanceof TopologyException) {
            return (ShoveException) failure;
        }
        if (failure instanceof ShoveException s) {
            return new PublishException(
                    "publishing to topic '%s' failed: %s".formatted(topic.name(), s.getMessage()), s, s.isRetriable());
        }
        if (failure instanceof IllegalArgumentException) {
            return new PublishException(
                    "publishing to topic '%s' failed: %s".formatted(topic.name(), failure.getMessage()),
                    failure,
                    false);
        }
        return new PublishException(
                "publishing to topic '%s' failed: %s".formatted(topic.name(), failure), failure, false);
    }
}
