package dev.shove.asyncapi;

import dev.shove.HoldTier;
import dev.shove.Topic;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The channels and operations of a document, before they are written: for each topic its main queue (or shards), the
 * hold tiers that are broker objects on at least one server, and its dead-letter queue; and what the application does
 * with them. Without servers, the channels are shove's own objects: a hold tier per tier of an unsequenced topic, none
 * for a sequenced one (whose retries wait in place on most brokers).
 */
final class Plan {
    /** A topic and what the application does with it. */
    record Entry(Topic<?> topic, boolean sends, boolean receives) {}

    /** An operation: sending to or receiving from a channel, with the ids of the messages that go through it. */
    record Operation(String id, boolean send, Channel channel, List<String> messages) {}

    final Map<String, Channel> channels = new LinkedHashMap<>();
    final Map<String, Operation> operations = new LinkedHashMap<>();

    private final List<Server> servers;

    private Plan(List<Server> servers) {
        this.servers = servers;
    }

    static Plan of(List<Entry> entries, List<Server> servers) {
        Plan plan = new Plan(servers);
        entries.forEach(plan::add);
        return plan;
    }

    /** The id of a topic's message under {@code components/messages}. */
    static String messageId(Topic<?> topic) {
        return topic.name();
    }

    /** The id of a topic's dead letters under {@code components/messages}. */
    static String deadLetterId(Topic<?> topic) {
        return topic.name() + ".dead-letter";
    }

    private void add(Entry entry) {
        Topic<?> topic = entry.topic();
        List<Server> onMain = where(layout -> layout.hasMain(topic));
        if (!servers.isEmpty() && onMain.isEmpty()) {
            throw new IllegalArgumentException("topic '" + topic.name() + "' cannot be on any of the servers "
                    + servers.stream().map(Server::name).toList() + ": a broadcast topic on SQS needs SNS (sns=true)");
        }
        Channel main = put(Channel.main(topic), onMain);

        List<Channel> holds = new ArrayList<>();
        for (HoldTier tier : topic.holdTiers()) {
            if (topic.isSequenced()) {
                List<Server> on = where(layout -> layout.hasShardHolds(topic));
                if (!on.isEmpty()) {
                    holds.add(put(Channel.shardHold(topic, tier), on));
                }
            } else {
                List<Server> on = where(layout -> layout.hasHolds(topic));
                if (servers.isEmpty() ? Layout.PLAIN.hasHolds(topic) : !on.isEmpty()) {
                    holds.add(put(Channel.hold(topic, tier), on));
                }
            }
        }
        @Nullable
        Channel dlq = topic.dlq()
                .map(name -> put(Channel.deadLetters(topic, name), servers))
                .orElse(null);

        if (entry.sends()) {
            operation(main, true, messageId(topic));
        }
        if (entry.receives()) {
            operation(main, false, messageId(topic));
            holds.forEach(hold -> operation(hold, true, messageId(topic)));
            if (dlq != null) {
                operation(dlq, true, deadLetterId(topic));
                operation(dlq, false, deadLetterId(topic));
            }
        }
    }

    private List<Server> where(Predicate<Layout> has) {
        return servers.stream().filter(s -> has.test(s.layout())).toList();
    }

    /** Adds a channel, or joins a dead-letter queue another topic already has; any other clash of names is refused. */
    private Channel put(Channel channel, List<Server> on) {
        Channel existing = channels.get(channel.id);
        if (existing == null) {
            channel.servers.addAll(on);
            channels.put(channel.id, channel);
            return channel;
        }
        if (existing.kind == Channel.Kind.DEAD_LETTER
                && channel.kind == Channel.Kind.DEAD_LETTER
                && existing.address.equals(channel.address)) {
            if (!existing.deadLettersOf.contains(channel.topic)) {
                existing.deadLettersOf.add(channel.topic);
            }
            on.stream().filter(s -> !existing.servers.contains(s)).forEach(existing.servers::add);
            return existing;
        }
        throw new IllegalArgumentException("'" + channel.id + "' would name two broker objects: " + existing.describe()
                + " and " + channel.describe() + "; rename one of the topics or the dead-letter queue");
    }

    private void operation(Channel channel, boolean send, String message) {
        String id = channel.id + (send ? ".send" : ".receive");
        Operation op = operations.computeIfAbsent(id, k -> new Operation(k, send, channel, new ArrayList<>()));
        if (!op.messages().contains(message)) {
            op.messages().add(message);
        }
    }
}
