/**
 * A codec for topics of Avro records: {@link dev.shove.codec.avro.AvroCodec}, for {@code SpecificRecord} classes the
 * Avro compiler generates and for {@code GenericRecord}s of a schema, with writer/reader schema resolution and schema
 * versions with upcasters ({@link dev.shove.SchemaVersions}). {@code docs/concepts/codecs.md} describes it.
 */
@NullMarked
package dev.shove.codec.avro;

import org.jspecify.annotations.NullMarked;
