package dev.shove;

import java.util.Objects;

/**
 * A codec's own schema of its payloads, for tools that describe topics: an AsyncAPI document shows it as the message's
 * payload, in its format. An immutable value.
 *
 * <pre>{@code
 * new PayloadSchema("application/vnd.apache.avro+json;version=1.9.0", avroSchema.toString())
 * }</pre>
 *
 * @param format the schema's format as a media type, e.g. {@code application/vnd.apache.avro+json;version=1.9.0} or
 *     {@code application/vnd.google.protobuf;version=3}; one whose base type ends in {@code +json} is a JSON document
 * @param document the schema itself, as text: Avro's JSON, a {@code .proto} file
 * @since 0.1.0
 */
public record PayloadSchema(String format, String document) {
    /**
     * Checks the parts.
     *
     * @throws IllegalArgumentException when the format or the document is blank
     */
    public PayloadSchema {
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(document, "document");
        if (format.isBlank() || document.isBlank()) {
            throw new IllegalArgumentException("a payload schema needs a format and a document, not blanks");
        }
    }
}
