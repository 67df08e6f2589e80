package dev.shove.asyncapi;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.shove.Topic;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An AsyncAPI 3.0 document of an application's topics: the channels shove uses for them on the broker (main queue or
 * shards, hold tiers, dead-letter queue), what the application sends and receives there, each topic's message with a
 * JSON Schema derived from its Java type and the headers shove writes, and the bindings of the broker each server
 * runs. {@code docs/concepts/asyncapi.md} describes what each shove concept becomes.
 *
 * <pre>{@code
 * AsyncApi api = AsyncApi.builder()
 *         .title("orders service")
 *         .version("1.4.0")
 *         .server("production", "kafka://kafka-1:9092,kafka-2:9092?partitions=12")
 *         .topics(ORDERS)        // published and consumed
 *         .sends(PAYMENTS)       // only published
 *         .build();
 * Files.writeString(Path.of("asyncapi.yaml"), api.toYaml());
 * }</pre>
 *
 * <p>A tool that finds an application's topics by itself (such as {@code shove asyncapi}) reads them from a class's
 * constants with {@link #topicsOf(Class)}.
 *
 * <p>Immutable and thread-safe. Building one reads the topics' message classes by reflection (their fields, methods
 * and annotations, as Jackson sees them), never their values.
 *
 * @since 0.1.0
 */
public final class AsyncApi {
    /** The AsyncAPI version of every document: {@value}. */
    public static final String ASYNCAPI_VERSION = DocumentWriter.ASYNCAPI_VERSION;

    private static final ObjectWriter JSON_WRITER = new ObjectMapper()
            .writer(new DefaultPrettyPrinter()
                    .withSeparators(
                            Separators.createDefaultInstance().withObjectFieldValueSpacing(Separators.Spacing.AFTER))
                    .withObjectIndenter(new DefaultIndenter("  ", "\n"))
                    .withArrayIndenter(new DefaultIndenter("  ", "\n")));

    private final ObjectNode document;
    private final String title;
    private final String version;

    private AsyncApi(ObjectNode document, String title, String version) {
        this.document = document;
        this.title = title;
        this.version = version;
    }

    /**
     * Starts a document; {@link Builder#title title}, {@link Builder#version version} and one topic are required.
     *
     * @return this builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The topics a class declares as constants: its own {@code public static final} fields of type {@link Topic}, in
     * declaration order. Reading them initializes the class. A class in a named module must export (or open) its
     * package to {@code dev.shove.asyncapi}.
     *
     * <pre>{@code
     * AsyncApi.builder().title("orders").version("1.0.0").topics(AsyncApi.topicsOf(Topics.class)).build();
     * }</pre>
     *
     * @param holder the class whose constants to read
     * @return the topics, possibly none
     * @throws IllegalArgumentException when a field cannot be read, or holds null
     */
    public static List<Topic<?>> topicsOf(Class<?> holder) {
        Objects.requireNonNull(holder, "holder");
        List<Topic<?>> topics = new ArrayList<>();
        for (Field field : holder.getDeclaredFields()) {
            int modifiers = field.getModifiers();
            if (!Modifier.isPublic(modifiers)
                    || !Modifier.isStatic(modifiers)
                    || !Modifier.isFinal(modifiers)
                    || !Topic.class.isAssignableFrom(field.getType())) {
                continue;
            }
            String what = holder.getName() + "." + field.getName();
            Object value;
            try {
                if (!field.trySetAccessible()) {
                    throw new IllegalAccessException("not accessible");
                }
                value = field.get(null);
            } catch (IllegalAccessException | RuntimeException e) {
                throw new IllegalArgumentException(
                        "cannot read topic " + what + ": " + e.getMessage() + "; in a named module, export or open"
                                + " package " + holder.getPackageName() + " to dev.shove.asyncapi",
                        e);
            }
            if (value == null) {
                throw new IllegalArgumentException("topic " + what + " is null: is it read while " + holder.getName()
                        + " is still being initialized?");
            }
            topics.add((Topic<?>) value);
        }
        return List.copyOf(topics);
    }

    /** {@return the document as JSON, indented by two spaces, ending with a line break} */
    public String toJson() {
        try {
            return JSON_WRITER.writeValueAsString(document) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the AsyncAPI document '" + title + "' as JSON", e);
        }
    }

    /**
     * {@return the document as YAML (block style, two-space indents), which YAML parsers read back as {@link
     * #toJson()}}
     */
    public String toYaml() {
        return Yaml.write(document);
    }

    /** {@return the document as a Jackson tree; a copy, so changing it changes nothing here} */
    public JsonNode toTree() {
        return document.deepCopy();
    }

    @Override
    public String toString() {
        return "AsyncApi[" + title + " " + version + ", "
                + document.path("channels").size() + " channels]";
    }

    /**
     * Builds an {@link AsyncApi}. The document's settings may each be given once; giving one twice fails at once with
     * a message naming it. Topics accumulate: a topic given to {@link #sends} and {@link #receives} is both sent and
     * received. Not thread-safe.
     */
    public static final class Builder {
        private @Nullable String title;
        private @Nullable String version;
        private @Nullable String description;
        private @Nullable String id;
        private final Map<String, Server> servers = new LinkedHashMap<>();
        private final Map<String, Plan.Entry> topics = new LinkedHashMap<>();

        private Builder() {}

        /**
         * The application's name: AsyncAPI's {@code info.title}. Required.
         *
         * @param title not blank
         * @return this builder
         */
        public Builder title(String title) {
            this.title = once("title", this.title, nonBlank("title", title));
            return this;
        }

        /**
         * The version of the application's API: AsyncAPI's {@code info.version}. Required.
         *
         * @param version e.g. {@code 1.4.0}
         * @return this builder
         */
        public Builder version(String version) {
            this.version = once("version", this.version, nonBlank("version", version));
            return this;
        }

        /**
         * A longer description of the application: AsyncAPI's {@code info.description}.
         *
         * @param description CommonMark text
         * @return this builder
         */
        public Builder description(String description) {
            this.description = once("description", this.description, nonBlank("description", description));
            return this;
        }

        /**
         * The application's unique id: AsyncAPI's {@code id}.
         *
         * @param id an absolute URI such as {@code urn:com:acme:orders}
         * @return this builder
         */
        public Builder id(String id) {
            nonBlank("id", id);
            URI uri;
            try {
                uri = URI.create(id);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "id must be an absolute URI, e.g. urn:com:acme:orders, was '" + id + "'");
            }
            if (!uri.isAbsolute()) {
                throw new IllegalArgumentException(
                        "id must be an absolute URI, e.g. urn:com:acme:orders, was '" + id + "'");
            }
            this.id = once("id", this.id, id);
            return this;
        }

        /**
         * A broker the application runs on, named by the URI it connects with ({@code kafka://host:9092,...}, {@code
         * amqp://host/vhost}, {@code sqs://region?endpoint=...}, {@code redis://host:6379}, {@code nats://host:4222},
         * {@code memory:}). The server's host and protocol come from it, and each channel gets the bindings of that
         * broker. A user name, a password or any setting the document does not need never appears in the document or
         * in an error message.
         *
         * @param name the server's name in the document, e.g. {@code production}: letters, digits, '.', '_', '-'
         * @param brokerUri the URI the application connects with
         * @return this builder
         * @throws IllegalArgumentException naming the server and what is wrong with its URI
         */
        public Builder server(String name, String brokerUri) {
            return addServer(name, brokerUri, null);
        }

        /**
         * A broker the application runs on, as {@link #server(String, String)}, with a description of it.
         *
         * @param name the server's name in the document
         * @param brokerUri the URI the application connects with
         * @param description the server's description (CommonMark)
         * @return this builder
         * @throws IllegalArgumentException naming the server and what is wrong with its URI
         */
        public Builder server(String name, String brokerUri, String description) {
            return addServer(name, brokerUri, nonBlank("server description", description));
        }

        /**
         * Topics the application both publishes and consumes.
         *
         * @param topics the topics
         * @return this builder
         */
        public Builder topics(Topic<?>... topics) {
            return add(List.of(topics), true, true);
        }

        /**
         * Topics the application both publishes and consumes, e.g. those of {@link #topicsOf(Class)}.
         *
         * @param topics the topics
         * @return this builder
         */
        public Builder topics(Collection<? extends Topic<?>> topics) {
            return add(List.copyOf(topics), true, true);
        }

        /**
         * Topics the application publishes to.
         *
         * @param topics the topics
         * @return this builder
         */
        public Builder sends(Topic<?>... topics) {
            return add(List.of(topics), true, false);
        }

        /**
         * Topics the application consumes (with their hold tiers and dead-letter queues).
         *
         * @param topics the topics
         * @return this builder
         */
        public Builder receives(Topic<?>... topics) {
            return add(List.of(topics), false, true);
        }

        /**
         * Builds the document.
         *
         * @return the document
         * @throws IllegalStateException when the title, the version or every topic is missing
         * @throws IllegalArgumentException when two of shove's objects would have one name (a topic named like
         *     another topic's dead-letter queue or hold tier), or a topic cannot be on a server's broker
         */
        public AsyncApi build() {
            if (title == null) {
                throw new IllegalStateException("an AsyncAPI document needs a title: call title(...)");
            }
            if (version == null) {
                throw new IllegalStateException("an AsyncAPI document needs a version: call version(...), e.g. 1.0.0");
            }
            if (topics.isEmpty()) {
                throw new IllegalStateException("AsyncAPI document '" + title
                        + "' has no topics: call topics(...), sends(...) or receives(...)");
            }
            ObjectNode document = DocumentWriter.write(
                    new DocumentWriter.Info(title, version, description, id),
                    List.copyOf(servers.values()),
                    List.copyOf(topics.values()));
            return new AsyncApi(document, title, version);
        }

        private Builder addServer(String name, String brokerUri, @Nullable String description) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(brokerUri, "brokerUri");
            if (servers.containsKey(name)) {
                throw new IllegalStateException("server '" + name + "' is already given");
            }
            servers.put(name, Server.parse(name, brokerUri, description));
            return this;
        }

        private Builder add(List<? extends Topic<?>> given, boolean sends, boolean receives) {
            for (Topic<?> topic : given) {
                Objects.requireNonNull(topic, "topic");
                Plan.Entry earlier = topics.get(topic.name());
                if (earlier == null) {
                    topics.put(topic.name(), new Plan.Entry(topic, sends, receives));
                    continue;
                }
                if (earlier.topic() != topic && !shape(earlier.topic()).equals(shape(topic))) {
                    throw new IllegalArgumentException("topic '" + topic.name() + "' is given twice, declared"
                            + " differently: " + shape(earlier.topic()) + " and " + shape(topic));
                }
                topics.put(
                        topic.name(),
                        new Plan.Entry(earlier.topic(), earlier.sends() || sends, earlier.receives() || receives));
            }
            return this;
        }

        /** What the document shows of a topic: two topics of one name and one shape describe the same thing. */
        private static String shape(Topic<?> t) {
            return "codec " + t.codec().name() + " (" + t.codec().contentType() + "), hold tiers "
                    + t.holdTiers().stream().map(Channel::delayName).toList() + ", dlq "
                    + t.dlq().orElse("none")
                    + t.sequencing()
                            .map(s -> ", sequenced " + s.onFailure() + " in " + s.routingShards() + " shards")
                            .orElse("")
                    + (t.isBroadcast() ? ", broadcast" : "");
        }

        private static String nonBlank(String setting, String value) {
            Objects.requireNonNull(value, setting);
            if (value.isBlank()) {
                throw new IllegalArgumentException(setting + " must not be blank");
            }
            return value;
        }

        private static <T> T once(String setting, @Nullable T current, T value) {
            if (current != null) {
                throw new IllegalStateException(setting + " was already set to '" + current + "'");
            }
            return value;
        }
    }
}
