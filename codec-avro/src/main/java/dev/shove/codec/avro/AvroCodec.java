package dev.shove.codec.avro;

import dev.shove.Codec;
import dev.shove.PayloadSchema;
import dev.shove.SchemaVersions;
import dev.shove.ShoveHeaders;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Type;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BiFunction;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.jspecify.annotations.Nullable;

/**
 * A codec for Avro records: the payload is one datum in Avro's binary encoding (no container file, no schema on the
 * wire), its content type {@value #CONTENT_TYPE}. For a {@link SpecificRecord} class the Avro compiler generated
 * ({@link #specific(Class)}) or for {@link GenericRecord}s of a schema ({@link #generic(Schema)}). Immutable and
 * thread-safe (as its upcasters are).
 *
 * <pre>{@code
 * Topic<Order> ORDERS = Topic.builder("orders", Order.class)
 *         .codec(AvroCodec.specific(Order.class))
 *         .dlq()
 *         .build();
 * }</pre>
 *
 * <p>Bytes that do not read as a datum of the schema, or that leave bytes over after it, are a decode failure, settled
 * by the registration's decode-failure policy like any other.
 *
 * <p><b>Schema versions.</b> Avro reads a datum only with the schema it was written with (the writer's schema), and
 * resolves it into the reader's: fields added with a default take it, fields the reader dropped are skipped, aliases
 * rename. A versioned codec ({@link #specific(Class, SchemaVersions, Map)}, {@link #generic(Schema, SchemaVersions,
 * Map)}) is given the writer's schema of every older version, writes its current version in the {@value
 * ShoveHeaders#SCHEMA_VERSION} header, and reads a message of version {@code n} with the schema of version {@code n}
 * resolved into its own; then the upcasters from {@code n} up to the current version change what resolution cannot
 * (a unit, a format, a value derived from others). Each older schema is checked against the current one when the codec
 * is built ({@link SchemaCompatibility}): one the current schema cannot read is refused then, not at the first message.
 * A message of a newer version than the current one is a decode failure naming that version.
 *
 * <p>There is no schema registry here: the schemas of the versions are given to the codec, in the application.
 *
 * @param <M> the record type
 * @since 0.1.0
 */
public final class AvroCodec<M> implements Codec<M> {
    /** The content type of every message this codec writes: an Avro binary datum, as the Avro specification names it. */
    public static final String CONTENT_TYPE = "avro/binary";

    /** The format of {@link #payloadSchema()}: an Avro schema in JSON, as AsyncAPI names it. */
    public static final String SCHEMA_FORMAT = "application/vnd.apache.avro+json;version=1.9.0";

    private final Schema schema;
    private final Type messageType;
    private final DatumWriter<M> writer;
    /** The reader of each version's writer schema into the current one; the current version included. */
    private final Map<Integer, DatumReader<M>> readers;

    private final Map<Integer, Schema> writerSchemas;
    private final @Nullable SchemaVersions<M> versions;
    private final String name;

    private AvroCodec(
            Schema schema,
            Type messageType,
            DatumWriter<M> writer,
            BiFunction<Schema, Schema, DatumReader<M>> readerOf,
            @Nullable SchemaVersions<M> versions,
            Map<Integer, Schema> writerSchemas) {
        this.schema = schema;
        this.messageType = messageType;
        this.writer = writer;
        this.versions = versions;
        this.name = "avro(" + schema.getFullName() + (versions == null ? "" : ", v" + versions.current()) + ")";
        int current = versions == null ? SchemaVersions.FIRST_VERSION : versions.current();
        Map<Integer, Schema> older = new TreeMap<>();
        writerSchemas.forEach((version, writerSchema) -> {
            Objects.requireNonNull(version, "version");
            Objects.requireNonNull(writerSchema, () -> "the writer schema of version " + version);
            if (version < SchemaVersions.FIRST_VERSION || version >= current) {
                throw new IllegalArgumentException(
                        "%s: a writer schema is given for version %d, but older versions go from 1 to %d (current %d)"
                                .formatted(name, version, current - 1, current));
            }
            older.put(version, writerSchema);
        });
        Map<Integer, DatumReader<M>> byVersion = new HashMap<>();
        for (int v = SchemaVersions.FIRST_VERSION; v < current; v++) {
            Schema writerSchema = older.get(v);
            if (writerSchema == null) {
                throw new IllegalArgumentException(
                        ("%s: no writer schema for version %d; Avro cannot read a message without the schema it was"
                                        + " written with: give every older version's schema (%s)")
                                .formatted(name, v, "1 to " + (current - 1)));
            }
            var compatibility = SchemaCompatibility.checkReaderWriterCompatibility(schema, writerSchema);
            if (compatibility.getType() != SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
                throw new IllegalArgumentException(
                        "%s: the schema of version %d cannot be read with the current one: %s"
                                .formatted(name, v, compatibility.getResult().getIncompatibilities()));
            }
            byVersion.put(v, readerOf.apply(writerSchema, schema));
        }
        byVersion.put(current, readerOf.apply(schema, schema));
        this.readers = Map.copyOf(byVersion);
        this.writerSchemas = Map.copyOf(older);
    }

    /**
     * A codec for a record class the Avro compiler generated, without schema versions: its schema writes and reads.
     *
     * @param type the generated class, e.g. {@code Order.class}
     * @param <M> the record type
     * @return a thread-safe codec
     */
    public static <M extends SpecificRecord> AvroCodec<M> specific(Class<M> type) {
        return specificOf(type, null, Map.of());
    }

    /**
     * A codec for a generated record class with schema versions.
     *
     * @param type the generated class at the current version
     * @param versions the current version and the upcasters, over {@code type}
     * @param writerSchemas the schema each older version was written with, from 1 to {@code versions.current() - 1}
     * @param <M> the record type
     * @return a thread-safe codec, as long as the upcasters are
     * @throws IllegalArgumentException when an older version has no schema, or one the current schema cannot read
     */
    public static <M extends SpecificRecord> AvroCodec<M> specific(
            Class<M> type, SchemaVersions<M> versions, Map<Integer, Schema> writerSchemas) {
        return specificOf(type, Objects.requireNonNull(versions, "versions"), writerSchemas);
    }

    private static <M extends SpecificRecord> AvroCodec<M> specificOf(
            Class<M> type, @Nullable SchemaVersions<M> versions, Map<Integer, Schema> writerSchemas) {
        Objects.requireNonNull(type, "type");
        SpecificData data = TrustedSpecificData.of(type);
        Schema schema = data.getSchema(type);
        return new AvroCodec<>(
                schema,
                type,
                new SpecificDatumWriter<>(schema, data),
                (writer, reader) -> new SpecificDatumReader<>(writer, reader, data),
                versions,
                Objects.requireNonNull(writerSchemas, "writerSchemas"));
    }

    /**
     * A codec for generic records of a schema, without schema versions.
     *
     * @param schema the record schema that writes and reads
     * @return a thread-safe codec
     */
    public static AvroCodec<GenericRecord> generic(Schema schema) {
        return genericOf(schema, null, Map.of());
    }

    /**
     * A codec for generic records with schema versions.
     *
     * @param schema the schema of the current version
     * @param versions the current version and the upcasters, over generic records of {@code schema}
     * @param writerSchemas the schema each older version was written with, from 1 to {@code versions.current() - 1}
     * @return a thread-safe codec, as long as the upcasters are
     * @throws IllegalArgumentException when an older version has no schema, or one the current schema cannot read
     */
    public static AvroCodec<GenericRecord> generic(
            Schema schema, SchemaVersions<GenericRecord> versions, Map<Integer, Schema> writerSchemas) {
        return genericOf(schema, Objects.requireNonNull(versions, "versions"), writerSchemas);
    }

    private static AvroCodec<GenericRecord> genericOf(
            Schema schema, @Nullable SchemaVersions<GenericRecord> versions, Map<Integer, Schema> writerSchemas) {
        Objects.requireNonNull(schema, "schema");
        if (schema.getType() != Schema.Type.RECORD) {
            throw new IllegalArgumentException(
                    "a generic Avro codec takes a record schema, not a " + schema.getType() + ": " + schema);
        }
        return new AvroCodec<>(
                schema,
                GenericRecord.class,
                new GenericDatumWriter<>(schema),
                GenericDatumReader::new,
                versions,
                Objects.requireNonNull(writerSchemas, "writerSchemas"));
    }

    /** {@return the schema this codec writes with, and resolves every older version into} */
    public Schema schema() {
        return schema;
    }

    /** {@return the writer schema of each older version, by version; empty when unversioned} */
    public Map<Integer, Schema> writerSchemas() {
        return writerSchemas;
    }

    /** {@return the current schema, in Avro's JSON; format {@value #SCHEMA_FORMAT}} */
    @Override
    public Optional<PayloadSchema> payloadSchema() {
        return Optional.of(new PayloadSchema(SCHEMA_FORMAT, schema.toString()));
    }

    /** {@return the schema versions, when this codec has them} */
    public Optional<SchemaVersions<M>> versions() {
        return Optional.ofNullable(versions);
    }

    @Override
    public byte[] encode(M message) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        writer.write(message, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    @Override
    public M decode(byte[] payload) throws IOException {
        return read(payload, versions == null ? SchemaVersions.FIRST_VERSION : versions.current());
    }

    @Override
    public M decode(byte[] payload, Map<String, String> headers) throws Exception {
        SchemaVersions<M> v = versions;
        if (v == null) {
            return read(payload, SchemaVersions.FIRST_VERSION);
        }
        int version = v.versionOf(headers); // before reading: a newer version is refused by its number
        M message = read(payload, version);
        return version == v.current() ? message : v.upcast(message, version);
    }

    private M read(byte[] payload, int version) throws IOException {
        DatumReader<M> reader = readers.get(version);
        BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(payload, null);
        M message = reader.read(null, decoder);
        if (!decoder.isEnd()) {
            throw new IOException("bytes are left over after a datum of " + schema.getFullName()
                    + ": not a datum written with the schema of version " + version);
        }
        return message;
    }

    @Override
    public Map<String, String> headers() {
        SchemaVersions<M> v = versions;
        return v == null ? Map.of() : v.headers();
    }

    @Override
    public String contentType() {
        return CONTENT_TYPE;
    }

    @Override
    public Optional<Type> messageType() {
        return Optional.of(messageType);
    }

    /** {@return {@code avro(<full record name>)}, with {@code , v<current>} when versioned} */
    @Override
    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return name;
    }
}
