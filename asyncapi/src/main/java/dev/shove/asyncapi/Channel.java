package dev.shove.asyncapi;

import dev.shove.HoldTier;
import dev.shove.Topic;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One channel of the document: a broker object of one of shove's topics (its main queue or shards, a hold tier, its
 * dead-letter queue), under the name shove gives it, with the servers whose broker has it.
 */
final class Channel {
    /** What the channel is to its topic. */
    enum Kind {
        /** The topic's main queue; of a sequenced topic, its shards ({@link #SHARD} in the address). */
        MAIN,
        /** One hold tier: retried messages wait out the tier's delay here. */
        HOLD,
        /** The dead-letter queue, which several topics may share. */
        DEAD_LETTER
    }

    /** The parameter of a sequenced topic's addresses that names the shard. */
    static final String SHARD = "shard";

    final String id;
    final Kind kind;
    final String address;
    final Topic<?> topic;
    final @Nullable HoldTier tier;
    final List<Topic<?>> deadLettersOf = new ArrayList<>();
    final List<Server> servers = new ArrayList<>();

    private Channel(String id, Kind kind, String address, Topic<?> topic, @Nullable HoldTier tier) {
        this.id = id;
        this.kind = kind;
        this.address = address;
        this.topic = topic;
        this.tier = tier;
    }

    /** The main queue of a topic; a sequenced topic's is one address per shard, {@code {name}-seq-{shard}}. */
    static Channel main(Topic<?> topic) {
        String address = topic.isSequenced() ? shardAddress(topic) : topic.name();
        return new Channel(topic.name(), Kind.MAIN, address, topic, null);
    }

    /** A hold tier of an unsequenced topic, {@code {name}-hold-{delay}}. */
    static Channel hold(Topic<?> topic, HoldTier tier) {
        return new Channel(tier.queue(), Kind.HOLD, tier.queue(), topic, tier);
    }

    /** A hold tier of every shard of a sequenced topic, {@code {name}-seq-{shard}-hold-{delay}}. */
    static Channel shardHold(Topic<?> topic, HoldTier tier) {
        String address = shardAddress(topic) + "-hold-" + delayName(tier);
        return new Channel(address.replace("{", "").replace("}", ""), Kind.HOLD, address, topic, tier);
    }

    /** The dead-letter queue of a topic. */
    static Channel deadLetters(Topic<?> topic, String dlq) {
        Channel channel = new Channel(dlq, Kind.DEAD_LETTER, dlq, topic, null);
        channel.deadLettersOf.add(topic);
        return channel;
    }

    /** Whether the address names one shard of a sequenced topic through the {@link #SHARD} parameter. */
    boolean perShard() {
        return address.contains("{" + SHARD + "}");
    }

    /** The name of the queue of the main channel a hold tier returns its messages to (with the shard parameter). */
    String returnsTo() {
        return topic.isSequenced() ? shardAddress(topic) : topic.name();
    }

    /** What the channel is, for error messages: "the dead-letter queue of topic 'orders'". */
    String describe() {
        return switch (kind) {
            case MAIN -> "the main queue of topic '" + topic.name() + "'";
            case HOLD -> "hold tier " + delayName(tier()) + " of topic '" + topic.name() + "'";
            case DEAD_LETTER -> "the dead-letter queue of topic '" + topic.name() + "'";
        };
    }

    HoldTier tier() {
        if (tier == null) {
            throw new IllegalStateException(describe() + " is not a hold tier");
        }
        return tier;
    }

    /** A tier's delay as shove writes it in names: {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}. */
    static String delayName(HoldTier tier) {
        // the tier's queue is named {queue}-hold-{delay} by core; take the delay from there rather than re-derive it
        String queue = tier.queue();
        return queue.substring(queue.lastIndexOf("-hold-") + "-hold-".length());
    }

    private static String shardAddress(Topic<?> topic) {
        String first = topic.shardName(0);
        return first.substring(0, first.length() - 1) + "{" + SHARD + "}";
    }
}
