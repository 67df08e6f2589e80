package dev.shove.cloudevents;

import dev.shove.ShoveHeaders;
import java.net.URI;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * What one event sets for itself, over its {@link CloudEventTopic}'s defaults: its id, type, source, subject, time,
 * extensions, and headers of your own. Immutable and thread-safe; {@link #none()} sets nothing.
 *
 * <pre>{@code
 * events.publish(ORDER_EVENTS, order, CloudEventOptions.builder().subject(order.id()).extension("tenant", "acme").build());
 * }</pre>
 *
 * @since 0.1.0
 */
public final class CloudEventOptions {
    private static final CloudEventOptions NONE = new Builder().build();

    /** What an extension's name may be, as the spec says: lower-case letters and digits. */
    private static final Pattern EXTENSION_NAME = Pattern.compile("[a-z0-9]+");

    /** Names the spec gives to attributes and data: never an extension's. */
    static final Set<String> RESERVED_NAMES = Set.of(
            "specversion",
            "id",
            "type",
            "source",
            "subject",
            "time",
            "datacontenttype",
            "dataschema",
            "data",
            "data_base64");

    private final @Nullable String id;
    private final @Nullable String type;
    private final @Nullable URI source;
    private final @Nullable String subject;
    private final @Nullable OffsetDateTime time;
    private final Map<String, String> extensions;
    private final Map<String, String> headers;

    private CloudEventOptions(Builder b) {
        this.id = b.id;
        this.type = b.type;
        this.source = b.source;
        this.subject = b.subject;
        this.time = b.time;
        this.extensions = Map.copyOf(b.extensions);
        this.headers = Map.copyOf(b.headers);
    }

    /** {@return options that set nothing: the topic's defaults, a fresh id, the time of publishing} */
    public static CloudEventOptions none() {
        return NONE;
    }

    /** {@return a builder with nothing set} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return the event's own id; empty: a fresh random UUID} */
    public Optional<String> id() {
        return Optional.ofNullable(id);
    }

    /** {@return the event's type, over the topic's} */
    public Optional<String> type() {
        return Optional.ofNullable(type);
    }

    /** {@return the event's source, over the topic's} */
    public Optional<URI> source() {
        return Optional.ofNullable(source);
    }

    /** {@return the event's subject, over the topic's} */
    public Optional<String> subject() {
        return Optional.ofNullable(subject);
    }

    /** {@return the event's time; empty: the time of publishing} */
    public Optional<OffsetDateTime> time() {
        return Optional.ofNullable(time);
    }

    /** {@return the event's extension attributes, by name} */
    public Map<String, String> extensions() {
        return extensions;
    }

    /** {@return headers of your own beside the event's} */
    public Map<String, String> headers() {
        return headers;
    }

    /** Builds {@link CloudEventOptions}; each value may be set once. Not thread-safe. */
    public static final class Builder {
        private @Nullable String id;
        private @Nullable String type;
        private @Nullable URI source;
        private @Nullable String subject;
        private @Nullable OffsetDateTime time;
        private final Map<String, String> extensions = new LinkedHashMap<>();
        private final Map<String, String> headers = new LinkedHashMap<>();

        private Builder() {}

        /**
         * Sets the event's id, which is also its shove message id (e.g. to forward an event under its own id). It must
         * be 1 to 200 characters on one line; the producer promises it is unique for the source.
         *
         * @param id the event's id
         * @return this builder
         */
        public Builder id(String id) {
            once("id", this.id);
            this.id = CloudEventTopic.requireText("id", id);
            return this;
        }

        /**
         * Sets the event's type, over the topic's.
         *
         * @param type e.g. {@code com.acme.order.paid}
         * @return this builder
         */
        public Builder type(String type) {
            once("type", this.type);
            this.type = CloudEventTopic.requireText("type", type);
            return this;
        }

        /**
         * Sets the event's source, over the topic's.
         *
         * @param source a URI reference, e.g. {@code /orders}
         * @return this builder
         */
        public Builder source(URI source) {
            once("source", this.source);
            this.source = Objects.requireNonNull(source, "source");
            return this;
        }

        /**
         * Sets the event's subject, over the topic's.
         *
         * @param subject what the event is about within its source, e.g. an order's id
         * @return this builder
         */
        public Builder subject(String subject) {
            once("subject", this.subject);
            this.subject = CloudEventTopic.requireText("subject", subject);
            return this;
        }

        /**
         * Sets the event's time; without it, the time of publishing.
         *
         * @param time when the occurrence happened
         * @return this builder
         */
        public Builder time(OffsetDateTime time) {
            once("time", this.time);
            this.time = Objects.requireNonNull(time, "time");
            return this;
        }

        /**
         * Adds an extension attribute, e.g. {@code tenant}.
         *
         * @param name lower-case letters and digits, not one of the spec's attribute names
         * @param value its value
         * @return this builder
         * @throws IllegalArgumentException when the name is not a valid extension name or is already set
         */
        public Builder extension(String name, String value) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, () -> "extension '" + name + "' has a null value");
            if (!EXTENSION_NAME.matcher(name).matches() || RESERVED_NAMES.contains(name)) {
                throw new IllegalArgumentException("'" + name + "' is not a CloudEvents extension name: use lower-case"
                        + " letters and digits only, and none of the spec's attribute names " + RESERVED_NAMES);
            }
            if (extensions.putIfAbsent(name, value) != null) {
                throw new IllegalArgumentException(
                        "extension '" + name + "' is already set to '" + extensions.get(name) + "'");
            }
            return this;
        }

        /**
         * Adds a header of your own, which travels beside the event's (and survives retries and dead-lettering).
         *
         * @param name not shove's reserved prefix, and not {@value HeaderConvention#CONTENT_TYPE_HEADER}
         * @param value its value
         * @return this builder
         */
        public Builder header(String name, String value) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, () -> "header '" + name + "' has a null value");
            if (ShoveHeaders.isReserved(name)) {
                throw new IllegalArgumentException("header '" + name + "' uses shove's reserved prefix '"
                        + ShoveHeaders.PREFIX + "'; the event's id is its message id, set it with id(...)");
            }
            if (name.equalsIgnoreCase(HeaderConvention.CONTENT_TYPE_HEADER)) {
                throw new IllegalArgumentException("header '" + name + "' is the event's datacontenttype, which is the"
                        + " content type of the topic's data codec; give the topic another codec to change it");
            }
            if (headers.putIfAbsent(name, value) != null) {
                throw new IllegalArgumentException(
                        "header '" + name + "' is already set to '" + headers.get(name) + "'");
            }
            return this;
        }

        /** {@return the options} */
        public CloudEventOptions build() {
            return new CloudEventOptions(this);
        }

        private static void once(String what, @Nullable Object current) {
            if (current != null) {
                throw new IllegalStateException(what + " is already set to '" + current + "'");
            }
        }
    }
}
