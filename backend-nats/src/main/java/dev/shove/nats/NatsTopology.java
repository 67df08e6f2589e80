package dev.shove.nats;

import dev.shove.BrokerUnavailableException;
import dev.shove.Topic;
import dev.shove.TopologyException;
import dev.shove.spi.DurationText;
import dev.shove.spi.HoldRetention;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.DiscardPolicy;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JetStream objects of shove's topics, and their names: one stream per topic and per dead-letter queue, durable
 * pull consumers per group. The whole mapping is in {@code docs/backends/nats.md}.
 *
 * <ul>
 *   <li>stream {@code T} (a {@code .} in the name becomes {@code _}; stream names cannot hold dots), limits
 *       retention, subjects {@code T} and {@code T.retry.>} (retry copies, one subject per group); a sequenced topic
 *       has {@code T.seq.0}... instead of {@code T}, a broadcast topic only {@code T};
 *   <li>dead-letter stream {@code D} with subject {@code D};
 *   <li>consumers (names from the group's {@linkplain #token token}): {@code G} reads {@code T} (or {@code D}), {@code
 *       G_retry} reads {@code T.retry.G}, {@code G_seqI_gN} reads shard {@code I} of a sequenced topic (generation
 *       {@code N}, see {@link ShardLeases}).
 * </ul>
 *
 * Thread-safe.
 */
final class NatsTopology {
    private static final Logger log = LoggerFactory.getLogger(NatsTopology.class);

    /** JetStream's error code for "stream not found". */
    static final int STREAM_NOT_FOUND = 10059;

    /** JetStream's error code for "consumer not found". */
    static final int CONSUMER_NOT_FOUND = 10014;

    private final JetStreamManagement jsm;
    private final NatsConfig config;
    /** Streams this transport declared or checked, by name. */
    private final Set<String> known = ConcurrentHashMap.newKeySet();

    NatsTopology(JetStreamManagement jsm, NatsConfig config) {
        this.jsm = jsm;
        this.config = config;
    }

    // ---------------------------------------------------------------- names

    /** The stream of a topic or dead-letter queue: its name with {@code .} as {@code _}. */
    static String stream(String queue) {
        return queue.replace('.', '_');
    }

    /** The subject of an unsequenced topic's messages (or a dead-letter queue's): its name. */
    static String subject(String queue) {
        return queue;
    }

    /** The subject of shard {@code i} of a sequenced topic. */
    static String shardSubject(Topic<?> topic, int shard) {
        return topic.name() + ".seq." + shard;
    }

    /** The subject of the retry copies of one group. */
    static String retrySubject(Topic<?> topic, String group) {
        return topic.name() + ".retry." + token(group);
    }

    /**
     * A group's name as a consumer name and subject token: letters, digits and {@code -} stay; anything else becomes
     * {@code _} and the name gets a hash suffix, so two groups never share a token and shove's own suffixes (which
     * start with {@code _}) never collide with a group's name.
     */
    static String token(String group) {
        StringBuilder b = new StringBuilder(group.length());
        boolean changed = false;
        for (int i = 0; i < group.length(); i++) {
            char c = group.charAt(i);
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
                b.append(c);
            } else {
                b.append('_');
                changed = true;
            }
        }
        if (b.length() > 100) {
            b.setLength(100);
            changed = true;
        }
        if (changed) {
            long hash = 0xcbf29ce484222325L;
            for (byte x : group.getBytes(StandardCharsets.UTF_8)) {
                hash = (hash ^ (x & 0xff)) * 0x100000001b3L;
            }
            b.append('-').append(String.format("%08x", (int) (hash ^ (hash >>> 32))));
        }
        return b.toString();
    }

    static String mainConsumer(String group) {
        return token(group);
    }

    static String retryConsumer(String group) {
        return token(group) + "_retry";
    }

    /** The prefix of every generation of a group's consumer of one shard. */
    static String shardConsumerPrefix(String group, int shard) {
        return token(group) + "_seq" + shard + "_g";
    }

    /** The subjects a topic's stream holds. */
    static List<String> subjects(Topic<?> topic) {
        List<String> subjects = new ArrayList<>();
        if (topic.isSequenced()) {
            int shards = topic.sequencing().orElseThrow().routingShards();
            for (int i = 0; i < shards; i++) {
                subjects.add(shardSubject(topic, i));
            }
        } else {
            subjects.add(subject(topic.name()));
        }
        if (!topic.isBroadcast() && !topic.isSequenced()) {
            subjects.add(topic.name() + ".retry.>");
        }
        return subjects;
    }

    // ---------------------------------------------------------------- streams

    /**
     * Creates a topic's stream and its dead-letter stream if missing, and checks them if present. Refused before
     * anything is created when the stream's max age could expire a retry copy before it is due ({@link
     * #minimumMaxAge}).
     */
    void declare(Topic<?> topic) {
        Duration needed = minimumMaxAge(topic);
        config.streamMaxAge().ifPresent(maxAge -> {
            if (needed != null && maxAge.compareTo(needed) < 0) {
                throw new TopologyException(("topic '%s' has a hold tier of %s, but NATS streamMaxAge is %s: its retry"
                                + " copies wait in the topic's stream and would expire before they are due, with no"
                                + " retry and no dead letter. Set streamMaxAge to at least %s (twice the longest tier),"
                                + " or noStreamMaxAge()")
                        .formatted(
                                topic.name(),
                                DurationText.of(HoldRetention.longestTier(topic)),
                                DurationText.of(maxAge),
                                DurationText.of(needed)));
            }
        });
        if (needed != null && config.streamMaxMessages().isPresent() && !known.contains(stream(topic.name()))) {
            log.warn(
                    "stream '{}' of topic '{}' keeps at most {} messages (streamMaxMessages): past it JetStream deletes"
                            + " the oldest, read or not, retry copies included; size it well above any backlog",
                    stream(topic.name()),
                    topic.name(),
                    config.streamMaxMessages().getAsLong());
        }
        ensureStream(topic.name(), subjects(topic), "topic '" + topic.name() + "'", needed, false);
        topic.dlq()
                .ifPresent(dlq -> ensureStream(
                        dlq,
                        List.of(subject(dlq)),
                        "dead-letter queue '" + dlq + "' of topic '" + topic.name() + "'",
                        null,
                        true));
    }

    /**
     * The shortest max age a topic's stream may have ({@link HoldRetention#minimum}): its retry copies (and, on a
     * sequenced topic, the message that waits in place) wait in it. Null for a topic that holds nothing (broadcast).
     */
    static @Nullable Duration minimumMaxAge(Topic<?> topic) {
        return HoldRetention.minimum(topic).orElse(null);
    }

    /** Whether this transport has declared or checked the stream of {@code queue}. */
    boolean isKnown(String queue) {
        return known.contains(stream(queue));
    }

    private void ensureStream(
            String queue, List<String> subjects, String what, @Nullable Duration neededMaxAge, boolean deadLetters) {
        String name = stream(queue);
        StreamInfo info = null;
        try {
            info = jsm.getStreamInfo(name);
        } catch (JetStreamApiException e) {
            if (e.getApiErrorCode() != STREAM_NOT_FOUND) {
                throw new TopologyException("cannot read stream '" + name + "' of " + what + ": " + e.getMessage());
            }
        } catch (IOException e) {
            throw unavailable("reading stream '" + name + "' of " + what, e);
        }
        if (info != null) {
            check(info.getConfiguration(), subjects, what, neededMaxAge);
            known.add(name);
            return;
        }
        StreamConfiguration.Builder b = StreamConfiguration.builder()
                .name(name)
                .subjects(subjects)
                .retentionPolicy(RetentionPolicy.Limits)
                .storageType(config.storage() == NatsConfig.Storage.FILE ? StorageType.File : StorageType.Memory)
                .replicas(config.replicas())
                .duplicateWindow(config.duplicateWindow());
        if (deadLetters) {
            // a parking lot: kept until replayed or purged, or for deadLetterMaxAge; never evicted by a count
            b.discardPolicy(DiscardPolicy.Old);
            config.deadLetterMaxAge().ifPresent(b::maxAge);
        } else {
            b.discardPolicy(DiscardPolicy.Old);
            config.streamMaxAge().ifPresent(b::maxAge);
            config.streamMaxMessages().ifPresent(b::maxMessages);
        }
        try {
            jsm.addStream(b.build());
            log.info("created stream '{}' of {} with subjects {}", name, what, subjects);
        } catch (JetStreamApiException e) {
            // created meanwhile by another process (same config: fine), or refused (overlapping subjects...)
            try {
                check(jsm.getStreamInfo(name).getConfiguration(), subjects, what, neededMaxAge);
            } catch (JetStreamApiException again) {
                throw new TopologyException("JetStream refused to create stream '" + name + "' of " + what
                        + " with subjects " + subjects + ": " + e.getMessage()
                        + ". Another stream may already hold one of these subjects: find it with `nats stream ls`");
            } catch (IOException io) {
                throw unavailable("creating stream '" + name + "' of " + what, io);
            }
        } catch (IOException e) {
            throw unavailable("creating stream '" + name + "' of " + what, e);
        }
        known.add(name);
    }

    private static void check(
            StreamConfiguration existing, List<String> subjects, String what, @Nullable Duration neededMaxAge) {
        String name = existing.getName();
        Duration maxAge = existing.getMaxAge();
        if (neededMaxAge != null && maxAge != null && !maxAge.isZero() && maxAge.compareTo(neededMaxAge) < 0) {
            throw new TopologyException(
                    ("stream '%s' of %s exists with max age %s, but its retry copies need it to keep"
                                    + " messages for at least %s (twice the longest hold tier), or"
                                    + " they expire before they are due. Raise it (`nats stream edit %s --max-age=%ds`) or"
                                    + " remove the limit")
                            .formatted(
                                    name,
                                    what,
                                    DurationText.of(maxAge),
                                    DurationText.of(neededMaxAge),
                                    name,
                                    neededMaxAge.toSeconds()));
        }
        if (!new HashSet<>(existing.getSubjects()).equals(new HashSet<>(subjects))) {
            throw new TopologyException(("stream '%s' of %s exists with subjects %s, but this topic needs %s (was it"
                            + " declared with another shape: sequenced, broadcast, another shard count?). Delete the"
                            + " stream (`nats stream rm %s`, which deletes its messages) or use another topic name")
                    .formatted(name, what, existing.getSubjects(), subjects, name));
        }
        if (existing.getRetentionPolicy() != RetentionPolicy.Limits) {
            throw new TopologyException(("stream '%s' of %s has %s retention, but shove needs limits retention (groups"
                            + " read it independently, start at and seek to any message, and browse dead letters)."
                            + " Recreate the stream with limits retention, or use another topic name")
                    .formatted(name, what, existing.getRetentionPolicy()));
        }
    }

    // ---------------------------------------------------------------- consumers

    /**
     * The settings every durable consumer of shove has: explicit acks, no delivery limit (the engine counts retries),
     * the configured {@code ack_wait} and {@code max_ack_pending}.
     */
    ConsumerConfiguration.Builder durable(String name, String filterSubject) {
        return ConsumerConfiguration.builder()
                .durable(name)
                .filterSubject(filterSubject)
                .ackPolicy(AckPolicy.Explicit)
                .ackWait(config.ackWait())
                .maxDeliver(-1)
                .maxAckPending(config.maxAckPending());
    }

    /**
     * Creates a durable consumer if it is missing; an existing one must read the same subject with explicit acks
     * (else a {@link TopologyException} naming the difference), and gets this config's {@code ack_wait} and {@code
     * max_ack_pending} if they differ. Returns its info.
     */
    ConsumerInfo ensureConsumer(String queue, ConsumerConfiguration wanted, String what) {
        String stream = stream(queue);
        String name = wanted.getDurable();
        ConsumerInfo info = consumerInfo(stream, name, what);
        if (info == null) {
            try {
                log.debug("creating consumer '{}' on stream '{}'", name, stream);
                return jsm.addOrUpdateConsumer(stream, wanted);
            } catch (JetStreamApiException e) {
                ConsumerInfo raced = consumerInfo(stream, name, what);
                if (raced == null) {
                    throw refused(stream, name, what, e);
                }
                info = raced;
            } catch (IOException e) {
                throw unavailable("creating consumer '" + name + "' of " + what, e);
            }
        }
        ConsumerConfiguration existing = info.getConsumerConfiguration();
        if (!wanted.getFilterSubject().equals(existing.getFilterSubject())) {
            throw new TopologyException(("consumer '%s' on stream '%s' (%s) reads subject '%s', but shove needs '%s'."
                            + " Delete it (`nats consumer rm %s %s`) or use another group name")
                    .formatted(
                            name, stream, what, existing.getFilterSubject(), wanted.getFilterSubject(), stream, name));
        }
        if (existing.getAckPolicy() != wanted.getAckPolicy()) {
            throw new TopologyException(("consumer '%s' on stream '%s' (%s) has ack policy %s, but shove needs %s."
                            + " Delete it (`nats consumer rm %s %s`) or use another group name")
                    .formatted(name, stream, what, existing.getAckPolicy(), wanted.getAckPolicy(), stream, name));
        }
        if (existing.getDeliverSubject() != null) {
            throw new TopologyException(("consumer '%s' on stream '%s' (%s) is a push consumer, but shove pulls."
                            + " Delete it (`nats consumer rm %s %s`) or use another group name")
                    .formatted(name, stream, what, stream, name));
        }
        boolean tuned = !wanted.getAckWait().equals(existing.getAckWait())
                || wanted.getMaxAckPending() != existing.getMaxAckPending()
                || existing.getMaxDeliver() != -1;
        if (tuned) {
            ConsumerConfiguration updated = ConsumerConfiguration.builder(existing)
                    .ackWait(wanted.getAckWait())
                    .maxAckPending(wanted.getMaxAckPending())
                    .maxDeliver(-1)
                    .build();
            try {
                info = jsm.updateConsumer(stream, updated);
                log.info(
                        "consumer '{}' on stream '{}' now has ack_wait {} and max_ack_pending {}",
                        name,
                        stream,
                        wanted.getAckWait(),
                        wanted.getMaxAckPending());
            } catch (JetStreamApiException e) {
                throw refused(stream, name, what, e);
            } catch (IOException e) {
                throw unavailable("updating consumer '" + name + "' of " + what, e);
            }
        }
        return info;
    }

    /** Creates a consumer that must not exist yet (a new generation, an ephemeral reader). */
    ConsumerInfo createConsumer(String queue, ConsumerConfiguration wanted, String what) {
        String stream = stream(queue);
        try {
            return jsm.addOrUpdateConsumer(stream, wanted);
        } catch (JetStreamApiException e) {
            throw refused(stream, wanted.getDurable() == null ? wanted.getName() : wanted.getDurable(), what, e);
        } catch (IOException e) {
            throw unavailable("creating a consumer of " + what, e);
        }
    }

    /** A consumer's info, or null when it does not exist. */
    @Nullable
    ConsumerInfo consumerInfo(String stream, String name, String what) {
        try {
            return jsm.getConsumerInfo(stream, name);
        } catch (JetStreamApiException e) {
            if (e.getApiErrorCode() == CONSUMER_NOT_FOUND) {
                return null;
            }
            if (e.getApiErrorCode() == STREAM_NOT_FOUND) {
                throw new TopologyException("stream '" + stream + "' of " + what
                        + " does not exist on the NATS server; declare the topic first with"
                        + " broker.topology().declare(topic)");
            }
            throw new TopologyException("cannot read consumer '" + name + "' on stream '" + stream + "' of " + what
                    + ": " + e.getMessage());
        } catch (IOException e) {
            throw unavailable("reading consumer '" + name + "' of " + what, e);
        }
    }

    /** The names of a stream's consumers. */
    List<String> consumerNames(String queue, String what) {
        try {
            return jsm.getConsumerNames(stream(queue));
        } catch (JetStreamApiException e) {
            throw new TopologyException(
                    "cannot list the consumers of stream '" + stream(queue) + "' of " + what + ": " + e.getMessage());
        } catch (IOException e) {
            throw unavailable("listing the consumers of " + what, e);
        }
    }

    /** Deletes a consumer; a missing one is fine. */
    void deleteConsumer(String queue, String name) {
        log.debug("deleting consumer '{}' on stream '{}'", name, stream(queue));
        try {
            jsm.deleteConsumer(stream(queue), name);
        } catch (JetStreamApiException e) {
            if (e.getApiErrorCode() != CONSUMER_NOT_FOUND) {
                log.warn("deleting consumer '{}' on stream '{}' failed: {}", name, stream(queue), e.getMessage());
            }
        } catch (IOException e) {
            log.warn("deleting consumer '{}' on stream '{}' failed: {}", name, stream(queue), e.toString());
        }
    }

    /** The last sequence of a stream (0 when it is empty). */
    long lastSequence(String queue) {
        try {
            return jsm.getStreamInfo(stream(queue)).getStreamState().getLastSequence();
        } catch (JetStreamApiException e) {
            throw new TopologyException("cannot read stream '" + stream(queue) + "': " + e.getMessage());
        } catch (IOException e) {
            throw unavailable("reading stream '" + stream(queue) + "'", e);
        }
    }

    /** The first sequence still in a stream. */
    long firstSequence(String queue) {
        try {
            return jsm.getStreamInfo(stream(queue)).getStreamState().getFirstSequence();
        } catch (JetStreamApiException e) {
            throw new TopologyException("cannot read stream '" + stream(queue) + "': " + e.getMessage());
        } catch (IOException e) {
            throw unavailable("reading stream '" + stream(queue) + "'", e);
        }
    }

    private static TopologyException refused(String stream, @Nullable String name, String what, Exception e) {
        return new TopologyException("JetStream refused consumer '" + name + "' on stream '" + stream + "' of " + what
                + ": " + e.getMessage()
                + (e.getMessage() != null && e.getMessage().contains("stream not found")
                        ? "; declare the topic first with broker.topology().declare(topic)"
                        : ""));
    }

    static BrokerUnavailableException unavailable(String doing, Exception e) {
        return new BrokerUnavailableException(
                doing + " failed: the NATS server did not answer (" + e.getMessage() + ")", e);
    }
}
