package dev.shove.cloudevents;

import io.cloudevents.CloudEventContext;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.types.Time;
import java.net.URI;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A binary-mode event's attributes as headers and back. Writing uses one convention; reading finds the convention by
 * its {@code specversion} header among {@link HeaderConvention#KNOWN}, comparing prefixes case-insensitively (HTTP
 * gateways change the case of header names), and turns every other header of that prefix into an extension.
 */
final class BinaryAttributes {
    private static final Pattern EXTENSION_NAME = Pattern.compile("[a-z0-9]+");

    private BinaryAttributes() {}

    /** The headers of an event's attributes and extensions; {@code datacontenttype} as the convention carries it. */
    static Map<String, String> write(CloudEventContext event, HeaderConvention convention) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(convention.header("specversion"), event.getSpecVersion().toString());
        headers.put(convention.header("id"), event.getId());
        headers.put(convention.header("source"), event.getSource().toString());
        headers.put(convention.header("type"), event.getType());
        if (event.getSubject() != null) {
            headers.put(convention.header("subject"), event.getSubject());
        }
        if (event.getTime() != null) {
            headers.put(convention.header("time"), Time.writeTime(event.getTime()));
        }
        if (event.getDataSchema() != null) {
            headers.put(convention.header("dataschema"), event.getDataSchema().toString());
        }
        if (event.getDataContentType() != null && convention.contentTypeHeader()) {
            headers.put(HeaderConvention.CONTENT_TYPE_HEADER, event.getDataContentType());
        }
        for (String name : event.getExtensionNames()) {
            Object value = event.getExtension(name);
            if (value != null) {
                headers.put(convention.header(name), value.toString());
            }
        }
        return headers;
    }

    /**
     * The event the headers carry.
     *
     * @param contentType the {@code datacontenttype} when no header gives it: the topic's codec's
     * @throws IllegalArgumentException naming the header that is missing or does not parse
     */
    static CloudEventContext read(Map<String, String> headers, String contentType) {
        HeaderConvention convention = null;
        Map<String, String> attributes = null;
        for (HeaderConvention candidate : HeaderConvention.KNOWN) {
            Map<String, String> found = attributes(headers, candidate.prefix());
            if (found.containsKey("specversion")) {
                convention = candidate;
                attributes = found;
                break;
            }
        }
        if (convention == null || attributes == null) {
            throw new IllegalArgumentException(
                    "no CloudEvents 'specversion' header (ce_specversion, cloudEvents:specversion,"
                            + " cloudEvents_specversion or ce-specversion): not a binary-mode CloudEvent");
        }
        String version = attributes.get("specversion");
        if (!"1.0".equals(version)) {
            throw new IllegalArgumentException("header '%s' is '%s'; shove reads CloudEvents 1.0"
                    .formatted(convention.header("specversion"), version));
        }
        CloudEventBuilder event = CloudEventBuilder.v1()
                .withId(required(attributes, convention, "id"))
                .withSource(uri(convention, "source", required(attributes, convention, "source")))
                .withType(required(attributes, convention, "type"))
                .withDataContentType(contentType(headers, attributes, contentType));
        for (Map.Entry<String, String> a : attributes.entrySet()) {
            String name = a.getKey();
            String value = a.getValue();
            switch (name) {
                case "specversion", "id", "source", "type", "datacontenttype" -> {}
                case "subject" -> event.withSubject(value);
                case "dataschema" -> event.withDataSchema(uri(convention, name, value));
                case "time" -> {
                    try {
                        event.withTime(Time.parseTime(value));
                    } catch (DateTimeParseException e) {
                        throw new IllegalArgumentException(
                                "header '%s' is not an RFC 3339 time: '%s'".formatted(convention.header(name), value));
                    }
                }
                default -> {
                    if (EXTENSION_NAME.matcher(name).matches()) {
                        event.withExtension(name, value);
                    }
                }
            }
        }
        return event.build();
    }

    /** The headers under a prefix, by attribute name (lower case). */
    private static Map<String, String> attributes(Map<String, String> headers, String prefix) {
        Map<String, String> found = new LinkedHashMap<>();
        int n = prefix.length();
        for (Map.Entry<String, String> h : headers.entrySet()) {
            String name = h.getKey();
            if (name.length() > n && name.regionMatches(true, 0, prefix, 0, n)) {
                found.putIfAbsent(name.substring(n).toLowerCase(Locale.ROOT), h.getValue());
            }
        }
        return found;
    }

    private static String required(Map<String, String> attributes, HeaderConvention convention, String name) {
        String value = attributes.get(name);
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(
                    "required CloudEvents header '%s' is missing or empty".formatted(convention.header(name)));
        }
        return value;
    }

    private static URI uri(HeaderConvention convention, String name, String value) {
        try {
            return new URI(value);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException(
                    "header '%s' is not a URI reference: '%s'".formatted(convention.header(name), value));
        }
    }

    private static String contentType(Map<String, String> headers, Map<String, String> attributes, String fallback) {
        String header = header(headers, HeaderConvention.CONTENT_TYPE_HEADER);
        if (header != null) {
            return header;
        }
        return attributes.getOrDefault("datacontenttype", fallback);
    }

    private static @Nullable String header(Map<String, String> headers, String name) {
        String exact = headers.get(name);
        if (exact != null) {
            return exact;
        }
        for (Map.Entry<String, String> h : headers.entrySet()) {
            if (h.getKey().equalsIgnoreCase(name)) {
                return h.getValue();
            }
        }
        return null;
    }
}
