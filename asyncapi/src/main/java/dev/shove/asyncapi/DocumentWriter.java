package dev.shove.asyncapi;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.shove.HoldTier;
import dev.shove.SequenceFailure;
import dev.shove.Sequencing;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/** Writes the AsyncAPI 3.0 document of a {@link Plan}: info, servers, channels, operations and components. */
final class DocumentWriter {
    static final String ASYNCAPI_VERSION = "3.0.0";

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    /** The document's {@code info} and {@code id}. */
    record Info(
            String title,
            String version,
            @Nullable String description,
            @Nullable String id) {}

    private final List<Server> servers;
    private final Plan plan;
    private final List<Plan.Entry> entries;

    private DocumentWriter(List<Server> servers, List<Plan.Entry> entries, Plan plan) {
        this.servers = servers;
        this.entries = entries;
        this.plan = plan;
    }

    static ObjectNode write(Info info, List<Server> servers, List<Plan.Entry> entries) {
        Plan plan = Plan.of(entries, servers);
        return new DocumentWriter(servers, entries, plan).document(info);
    }

    private ObjectNode document(Info info) {
        ObjectNode doc = JSON.objectNode();
        doc.put("asyncapi", ASYNCAPI_VERSION);
        if (info.id() != null) {
            doc.put("id", info.id());
        }
        ObjectNode infoNode = doc.putObject("info");
        infoNode.put("title", info.title());
        infoNode.put("version", info.version());
        if (info.description() != null) {
            infoNode.put("description", info.description());
        }
        doc.put("defaultContentType", "application/json");
        if (!servers.isEmpty()) {
            ObjectNode serversNode = doc.putObject("servers");
            servers.forEach(s -> serversNode.set(s.name(), server(s)));
        }

        // every payload is asked for before the definitions are collected, which completes their references
        PayloadSchemas payloads = new PayloadSchemas();
        Map<String, ObjectNode> payloadOf = new HashMap<>();
        entries.forEach(
                e -> payloadOf.put(e.topic().name(), payloads.payload(e.topic().codec())));
        ObjectNode definitions = payloads.definitions();

        ObjectNode channels = doc.putObject("channels");
        plan.channels.values().forEach(c -> channels.set(c.id, channel(c)));
        ObjectNode operations = doc.putObject("operations");
        plan.operations.values().forEach(op -> operations.set(op.id(), operation(op)));

        ObjectNode components = doc.putObject("components");
        ObjectNode schemas = components.putObject("schemas");
        schemas.setAll(definitions);
        schemas.set(HeaderSchemas.MESSAGE_HEADERS, HeaderSchemas.messageHeaders());
        boolean deadLetters = entries.stream().anyMatch(e -> e.topic().dlq().isPresent());
        if (deadLetters) {
            schemas.set(HeaderSchemas.DEAD_LETTER_HEADERS, HeaderSchemas.deadLetterHeaders());
        }
        ObjectNode messages = components.putObject("messages");
        for (Plan.Entry e : entries) {
            Topic<?> topic = e.topic();
            ObjectNode payload = payloadOf.get(topic.name());
            messages.set(Plan.messageId(topic), message(topic, payload.deepCopy()));
            if (topic.dlq().isPresent()) {
                messages.set(Plan.deadLetterId(topic), deadLetter(topic, payload.deepCopy()));
            }
        }
        return doc;
    }

    // ------------------------------------------------------------------ servers

    private static ObjectNode server(Server s) {
        ObjectNode node = JSON.objectNode();
        node.put("host", s.host());
        node.put("protocol", s.protocol());
        if (s.protocolVersion() != null) {
            node.put("protocolVersion", s.protocolVersion());
        }
        if (s.pathname() != null) {
            node.put("pathname", s.pathname());
        }
        if (s.description() != null) {
            node.put("description", s.description());
        }
        return node;
    }

    // ------------------------------------------------------------------ channels

    private ObjectNode channel(Channel c) {
        ObjectNode node = JSON.objectNode();
        node.put("address", c.address);
        node.put("title", title(c));
        node.put("description", description(c));
        ObjectNode messages = node.putObject("messages");
        if (c.kind == Channel.Kind.DEAD_LETTER) {
            c.deadLettersOf.forEach(t -> ref(messages, Plan.deadLetterId(t), "#/components/messages/"));
        } else {
            ref(messages, Plan.messageId(c.topic), "#/components/messages/");
        }
        if (c.perShard()) {
            int shards = c.topic.sequencing().orElseThrow().routingShards();
            ObjectNode shard = node.putObject("parameters").putObject(Channel.SHARD);
            shard.put(
                    "description",
                    "The shard of the message's sequence key (" + ShoveHeaders.SEQUENCE_KEY + "): FNV-1a-64 of"
                            + " the key's UTF-8 bytes, modulo " + shards + ".");
            ArrayNode values = shard.putArray("enum");
            for (int i = 0; i < shards; i++) {
                values.add(Integer.toString(i));
            }
        }
        if (!servers.isEmpty() && c.servers.size() < servers.size()) {
            ArrayNode refs = node.putArray("servers");
            c.servers.forEach(s -> refs.addObject().put("$ref", "#/servers/" + s.name()));
        }
        ObjectNode bindings = bindings(c.servers, layout -> layout.channelBindings(c));
        if (!bindings.isEmpty()) {
            node.set("bindings", bindings);
        }
        switch (c.kind) {
            case MAIN -> node.set("x-shove-topic", topicExtension(c.topic));
            case HOLD -> {
                ObjectNode hold = node.putObject("x-shove-hold-tier");
                hold.put("topic", c.topic.name());
                hold.put("delay", Channel.delayName(c.tier()));
                hold.put("delayMs", c.tier().delay().toMillis());
                hold.put("returnsTo", c.returnsTo());
                if (c.topic.hasImplicitTier()) {
                    hold.put("implicit", true);
                }
            }
            case DEAD_LETTER -> {
                ArrayNode topics = node.putObject("x-shove-dead-letter-queue").putArray("topics");
                c.deadLettersOf.forEach(t -> topics.add(t.name()));
            }
        }
        return node;
    }

    private static String title(Channel c) {
        return switch (c.kind) {
            case MAIN -> c.topic.name();
            case HOLD -> c.topic.name() + ": hold tier " + Channel.delayName(c.tier());
            case DEAD_LETTER -> c.id + ": dead letters of " + names(c.deadLettersOf);
        };
    }

    private static String description(Channel c) {
        Topic<?> topic = c.topic;
        return switch (c.kind) {
            case MAIN -> {
                if (topic.isBroadcast()) {
                    yield "Broadcast topic '" + topic.name() + "': every running subscriber receives every message"
                            + " published after it subscribed. Best effort: no retries and no dead-letter queue; a"
                            + " message a subscriber does not acknowledge is discarded and counted.";
                }
                if (topic.isSequenced()) {
                    Sequencing<?> seq = topic.sequencing().orElseThrow();
                    yield "Sequenced topic '" + topic.name() + "', in " + seq.routingShards() + " shards: a message"
                            + " goes to the shard of its key, and the messages of one key are handled strictly in"
                            + " publish order, across retries and restarts, while other keys run in parallel. A"
                            + " retried message holds its key: it waits in place, or in its shard's hold tiers where"
                            + " the broker has them. " + onFailure(seq.onFailure());
                }
                yield "Topic '" + topic.name() + "': its messages, handled by the topic's consumer groups. A retried"
                        + " message comes back here after its hold tier's delay, with " + ShoveHeaders.RETRY_COUNT
                        + " one higher.";
            }
            case HOLD ->
                "Hold tier " + Channel.delayName(c.tier()) + " of topic '" + topic.name() + "': a retried message"
                        + " waits here " + Channel.delayName(c.tier()) + ", then returns to '" + c.returnsTo()
                        + "' with " + ShoveHeaders.RETRY_COUNT + " and " + ShoveHeaders.NOT_BEFORE + " set."
                        + (topic.hasImplicitTier() ? " The topic declares no hold tier; this one is implicit." : "");
            case DEAD_LETTER ->
                "Dead-letter queue of " + names(c.deadLettersOf) + ": messages rejected, past maxRetries, undecodable"
                        + " or too large, with headers saying why (" + ShoveHeaders.DEATH_REASON + "). Count, browse,"
                        + " replay and purge them with broker.deadLetters(topic).";
        };
    }

    private static String onFailure(SequenceFailure onFailure) {
        return switch (onFailure) {
            case SKIP -> "On failure (SKIP), a dead-lettered message does not stop the rest of its key.";
            case FAIL_ALL ->
                "On failure (FAIL_ALL), a dead-lettered message takes every later message of its key to"
                        + " the dead-letter queue.";
        };
    }

    private ObjectNode topicExtension(Topic<?> topic) {
        ObjectNode node = JSON.objectNode();
        node.put("name", topic.name());
        node.put("codec", topic.codec().name());
        topic.codec().messageType().ifPresent(t -> node.put("javaType", t.getTypeName()));
        node.put("broadcast", topic.isBroadcast());
        topic.sequencing().ifPresent(seq -> {
            ObjectNode s = node.putObject("sequencing");
            s.put("onFailure", seq.onFailure().name());
            s.put("routingShards", seq.routingShards());
            s.put("keyHeader", ShoveHeaders.SEQUENCE_KEY);
            s.put("sharding", "FNV-1a-64 of the key's UTF-8 bytes, modulo routingShards");
        });
        ArrayNode tiers = topic.holdTiers().isEmpty() ? JSON.arrayNode() : node.putArray("holdTiers");
        for (HoldTier tier : topic.holdTiers()) {
            ObjectNode t = tiers.addObject();
            t.put("delay", Channel.delayName(tier));
            t.put("delayMs", tier.delay().toMillis());
            plan.channels.values().stream()
                    .filter(c -> c.kind == Channel.Kind.HOLD
                            && c.topic == topic
                            && c.tier().equals(tier))
                    .findFirst()
                    .ifPresent(c -> t.put("channel", c.id));
        }
        if (topic.hasImplicitTier()) {
            node.put("implicitHoldTier", true);
        }
        topic.dlq().ifPresent(dlq -> node.put("deadLetterQueue", dlq));
        if (topic.allowsMessageLoss()) {
            node.put("allowsMessageLoss", true);
        }
        return node;
    }

    // ------------------------------------------------------------------ operations

    private ObjectNode operation(Plan.Operation op) {
        Channel c = op.channel();
        ObjectNode node = JSON.objectNode();
        node.put("action", op.send() ? "send" : "receive");
        node.putObject("channel").put("$ref", "#/channels/" + c.id);
        node.put("summary", summary(op));
        ArrayNode messages = node.putArray("messages");
        op.messages().forEach(m -> messages.addObject().put("$ref", "#/channels/" + c.id + "/messages/" + m));
        ObjectNode bindings = bindings(c.servers, layout -> layout.operationBindings(c, op.send()));
        if (!bindings.isEmpty()) {
            node.set("bindings", bindings);
        }
        return node;
    }

    private static String summary(Plan.Operation op) {
        Channel c = op.channel();
        Topic<?> topic = c.topic;
        String type = typeName(topic);
        return switch (c.kind) {
            case MAIN -> {
                if (op.send()) {
                    yield "Publish " + type + " to '" + topic.name() + "'"
                            + (topic.isSequenced() ? ", to the shard of its key" : "");
                }
                yield topic.isBroadcast()
                        ? "Receive every message of broadcast topic '" + topic.name() + "' while subscribed"
                        : "Handle the messages of '" + topic.name() + "'";
            }
            case HOLD ->
                "Retry a message of '" + topic.name() + "': its copy waits " + Channel.delayName(c.tier()) + " here";
            case DEAD_LETTER -> {
                String topics = names(op.messages().stream()
                        .map(m -> m.substring(0, m.length() - ".dead-letter".length()))
                        .toList());
                yield op.send()
                        ? "Dead-letter the messages of " + topics + " that cannot be handled"
                        : "Receive the dead letters of " + topics + " (handleDead, and the dead-letter tools)";
            }
        };
    }

    // ------------------------------------------------------------------ messages

    private ObjectNode message(Topic<?> topic, ObjectNode payload) {
        ObjectNode node = JSON.objectNode();
        node.put("name", typeName(topic));
        node.put("title", typeName(topic));
        node.put("summary", "A message of topic '" + topic.name() + "'.");
        node.put("contentType", topic.codec().contentType());
        node.putObject("headers").put("$ref", "#/components/schemas/" + HeaderSchemas.MESSAGE_HEADERS);
        node.set("payload", payload);
        ObjectNode bindings = bindings(servers, layout -> layout.messageBindings(topic));
        if (!bindings.isEmpty()) {
            node.set("bindings", bindings);
        }
        node.put("x-shove-codec", topic.codec().name());
        schemaVersion(topic, node);
        return node;
    }

    /** A versioned codec's current version: what its publishers write in the schema version header. */
    private static void schemaVersion(Topic<?> topic, ObjectNode node) {
        String version = topic.codec().headers().get(ShoveHeaders.SCHEMA_VERSION);
        if (version != null) {
            node.put("x-shove-schema-version", version);
        }
    }

    private static ObjectNode deadLetter(Topic<?> topic, ObjectNode payload) {
        ObjectNode node = JSON.objectNode();
        node.put("name", typeName(topic));
        node.put("title", "Dead letter of '" + topic.name() + "'");
        node.put("summary", "A message of topic '" + topic.name() + "' that could not be handled.");
        node.put(
                "description",
                "The message as it was consumed, with headers saying why it died. A dead letter that could not be"
                        + " decoded (decode-failed) or was too large (oversize) carries its bytes as they arrived,"
                        + " which need not fit the payload schema.");
        node.put("contentType", topic.codec().contentType());
        node.putObject("headers").put("$ref", "#/components/schemas/" + HeaderSchemas.DEAD_LETTER_HEADERS);
        node.set("payload", payload);
        node.put("x-shove-codec", topic.codec().name());
        return node;
    }

    // ------------------------------------------------------------------ helpers

    /** The bindings the given servers' brokers give, by binding name; the first server of each kind decides. */
    private static ObjectNode bindings(List<Server> on, Function<Layout, Map<String, ObjectNode>> of) {
        ObjectNode node = JSON.objectNode();
        for (Server s : on) {
            of.apply(s.layout()).forEach((name, binding) -> {
                if (!node.has(name)) {
                    node.set(name, binding);
                }
            });
        }
        return node;
    }

    private static void ref(ObjectNode messages, String id, String prefix) {
        messages.putObject(id).put("$ref", prefix + id);
    }

    private static String names(List<?> topics) {
        return topics.stream()
                .map(t -> "'" + (t instanceof Topic<?> topic ? topic.name() : t) + "'")
                .collect(Collectors.joining(", "));
    }

    /** The message type without packages ({@code List<OrderPaid>}), or what the codec writes when it is unknown. */
    static String typeName(Topic<?> topic) {
        return topic.codec()
                .messageType()
                .map(DocumentWriter::simpleName)
                .orElse(topic.codec().name());
    }

    private static String simpleName(Type type) {
        return switch (type) {
            case Class<?> c when c == byte[].class -> "bytes";
            case Class<?> c -> c.getSimpleName();
            case ParameterizedType p ->
                simpleName(p.getRawType())
                        + Arrays.stream(p.getActualTypeArguments())
                                .map(DocumentWriter::simpleName)
                                .collect(Collectors.joining(", ", "<", ">"));
            case GenericArrayType a -> simpleName(a.getGenericComponentType()) + "[]";
            case WildcardType w -> w.getTypeName().replaceAll("[\\w.$]+\\.", "");
            case TypeVariable<?> v -> v.getName();
            default -> type.getTypeName();
        };
    }
}
